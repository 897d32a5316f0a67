import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { KeyKind } from "../services/auth/keys";

export interface AuthContext {
  projectId: string;
  keyId: string;
  kind: KeyKind;
}

export interface AppBindings {
  Bindings: Env;
  Variables: {
    requestId: string;
    auth: AuthContext;
  };
}

export type AppOpenAPI = OpenAPIHono<AppBindings>;
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppBindings>;
