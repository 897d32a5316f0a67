import { createRouter } from "../create-router";
import { healthHandler } from "./health.handlers";
import { health } from "./health.routes";

export const healthRouter = createRouter().openapi(health, healthHandler);
