import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent, operationErrors } from "../../schemas/common";

export const HealthSchema = z
  .object({
    status: z.enum(["ok", "degraded", "down"]).openapi({ description: "degraded: a chain RPC is unreachable; down: D1 is unreachable" }),
    db: z.object({ ok: z.boolean(), latencyMs: z.number() }),
    chains: z.array(
      z.object({
        chainId: z.number().int(),
        name: z.string(),
        ok: z.boolean(),
        blockNumber: z.string().nullable(),
        latencyMs: z.number(),
      }),
    ),
    time: z.string(),
  })
  .openapi("Health");

export const health = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Health"],
  security: [],
  summary: "Service health",
  description: "Reports D1 reachability and, per configured chain, whether its RPC answers. No authentication.",
  responses: {
    200: jsonContent(HealthSchema, "D1 reachable; `status` tells whether every chain RPC answered", {
      status: "ok",
      db: { ok: true, latencyMs: 3 },
      chains: [{ chainId: 1868, name: "soneium", ok: true, blockNumber: "1200240", latencyMs: 41 }],
      time: "2026-11-21T12:00:00.000Z",
    }),
    503: jsonContent(HealthSchema, "D1 is unreachable", {
      status: "down",
      db: { ok: false, latencyMs: 2000 },
      chains: [{ chainId: 1868, name: "soneium", ok: true, blockNumber: "1200240", latencyMs: 41 }],
      time: "2026-11-21T12:00:00.000Z",
    }),
    ...operationErrors({ auth: "none" }),
  },
});
