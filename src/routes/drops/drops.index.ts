import { createRouter } from "../../lib/create-router";
import { getDropHandler, listDropsHandler } from "./drops.handlers";
import { getDrop, listDrops } from "./drops.routes";

export const dropsRouter = createRouter().openapi(listDrops, listDropsHandler).openapi(getDrop, getDropHandler);
