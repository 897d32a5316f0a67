import { adminRouter } from "./admin/admin.index";
import { healthRouter } from "./health/health.index";

export const routers = [healthRouter, adminRouter];
