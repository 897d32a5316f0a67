import type { AppRouteHandler } from "../app-types";
import { registerCollection as registerCollectionService } from "../../services/collections/register-collection";
import { serviceContext } from "../../services/context";
import { runIndexerForAdmin } from "../../services/indexer/run";
import * as projects from "../../services/projects";
import type { createKey, createProject, listKeys, listProjects, registerCollection, revokeKey, runIndexer } from "./admin.routes";

export const createProjectHandler: AppRouteHandler<typeof createProject> = async (c) => {
  const project = await projects.createProject(serviceContext(c.env), c.req.valid("json").name);
  return c.json(project, 201);
};

export const listProjectsHandler: AppRouteHandler<typeof listProjects> = async (c) => {
  return c.json({ data: await projects.listProjects(serviceContext(c.env)) }, 200);
};

export const createKeyHandler: AppRouteHandler<typeof createKey> = async (c) => {
  const key = await projects.createKey(serviceContext(c.env), c.req.valid("param").id, c.req.valid("json").kind);
  return c.json(key, 201);
};

export const listKeysHandler: AppRouteHandler<typeof listKeys> = async (c) => {
  return c.json({ data: await projects.listKeys(serviceContext(c.env), c.req.valid("param").id) }, 200);
};

export const revokeKeyHandler: AppRouteHandler<typeof revokeKey> = async (c) => {
  await projects.revokeKey(serviceContext(c.env), c.req.valid("param").keyId, { withDescendants: c.req.valid("query").withDescendants === true });
  return c.body(null, 204);
};

export const registerCollectionHandler: AppRouteHandler<typeof registerCollection> = async (c) => {
  return c.json(await registerCollectionService(serviceContext(c.env), c.req.valid("json")), 201);
};

export const runIndexerHandler: AppRouteHandler<typeof runIndexer> = async (c) => {
  return c.json(await runIndexerForAdmin(serviceContext(c.env)), 200);
};
