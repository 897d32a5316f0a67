// Endpoints whose contract (request, response, errors) is fixed in the OpenAPI document but
// whose handlers land with the transaction engine (issue 4) and the marketplace (issue 5).
// Until then they are documented only and answer 404 not_found. Each moves to its router's
// `.openapi(route, handler)` when implemented.
import type { RouteConfig } from "@hono/zod-openapi";

export const plannedRoutes: RouteConfig[] = [
];
