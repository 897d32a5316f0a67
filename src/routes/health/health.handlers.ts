import { checkHealth } from "../../services/health";
import { serviceContext } from "../../services/context";
import type { AppRouteHandler } from "../app-types";
import type { health } from "./health.routes";

export const healthHandler: AppRouteHandler<typeof health> = async (c) => {
  const report = await checkHealth(serviceContext(c.env));
  return c.json(report, report.status === "down" ? 503 : 200);
};
