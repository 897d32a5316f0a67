import { createRouter } from "../create-router";
import { getAllowlistEntryHandler, getDropHandler, listDropsHandler } from "./drops.handlers";
import { getAllowlistEntry, getDrop, listDrops } from "./drops.routes";

export const dropsRouter = createRouter()
  .openapi(listDrops, listDropsHandler)
  .openapi(getDrop, getDropHandler)
  .openapi(getAllowlistEntry, getAllowlistEntryHandler);
