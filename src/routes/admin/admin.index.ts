import { createRouter } from "../create-router";
import * as handlers from "./admin.handlers";
import * as routes from "./admin.routes";

export const adminRouter = createRouter()
  .openapi(routes.createProject, handlers.createProjectHandler)
  .openapi(routes.listProjects, handlers.listProjectsHandler)
  .openapi(routes.createKey, handlers.createKeyHandler)
  .openapi(routes.listKeys, handlers.listKeysHandler)
  .openapi(routes.revokeKey, handlers.revokeKeyHandler)
  .openapi(routes.registerCollection, handlers.registerCollectionHandler)
  .openapi(routes.runIndexer, handlers.runIndexerHandler);
