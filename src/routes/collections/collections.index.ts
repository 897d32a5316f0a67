import { createRouter } from "../create-router";
import { trendingHandler } from "./collections.handlers";
import { trending } from "./collections.routes";

export const collectionsRouter = createRouter().openapi(trending, trendingHandler);
