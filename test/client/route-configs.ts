/// <reference types="vite/client" />
// Every createRoute definition of src/routes/**/*.routes.ts (found by glob, so a new feature's
// routes are included without editing this file), keyed like the OpenAPI document's operations.
import type { RouteConfig } from "@hono/zod-openapi";
import type { ZodType } from "zod";

const modules = import.meta.glob<Record<string, unknown>>("../../src/routes/*/*.routes.ts", { eager: true });

const isRouteConfig = (value: unknown): value is RouteConfig =>
  typeof value === "object" && value !== null && "method" in value && "path" in value && "responses" in value;

export const routeConfigs = new Map<string, RouteConfig>();
for (const module of Object.values(modules)) {
  for (const value of Object.values(module)) {
    if (isRouteConfig(value)) routeConfigs.set(`${value.method.toUpperCase()} ${value.path}`, value);
  }
}

interface JsonMedia {
  schema: ZodType;
  example?: unknown;
}

/** The JSON media type of a route's request body, if it has one. */
export function requestMedia(route: RouteConfig): JsonMedia | undefined {
  const body = route.request?.body as { content?: Record<string, JsonMedia> } | undefined;
  return body?.content?.["application/json"];
}

/** The JSON media type of one of a route's responses, if it has content. */
export function responseMedia(route: RouteConfig, status: number | string): JsonMedia | undefined {
  const response = (route.responses as Record<string, { content?: Record<string, JsonMedia> }>)[String(status)];
  return response?.content?.["application/json"];
}
