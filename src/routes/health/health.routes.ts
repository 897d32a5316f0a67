import { createRoute, z } from "@hono/zod-openapi";
import { jsonContent } from "../../schemas/common";

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
  tags: ["Health"],
  summary: "Service health",
  description: "Reports D1 reachability and, per configured chain, whether its RPC answers. No authentication.",
  responses: {
    200: jsonContent(HealthSchema, "D1 reachable; `status` tells whether every chain RPC answered"),
    503: jsonContent(HealthSchema, "D1 is unreachable"),
  },
});
