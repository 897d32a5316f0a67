// GET /docs (the API reference page) and the script that starts it. Outside the OpenAPI
// document, like the dashboard; Swagger UI's own files are static assets (docs.page.ts).
import { Hono } from "hono";
import type { AppBindings } from "../app-types";
import { DOCS_CSP, DOCS_HTML, DOCS_INIT_JS, DOCS_INIT_PATH } from "./docs.page";

// Set per route: middleware on "*" here would reach every route of the app this is mounted in.
const PAGE_HEADERS = { "Content-Security-Policy": DOCS_CSP, "X-Content-Type-Options": "nosniff" };

export const docsRouter = new Hono<AppBindings>();

docsRouter.get("/docs", (c) => c.html(DOCS_HTML, 200, PAGE_HEADERS));
docsRouter.get(DOCS_INIT_PATH, (c) => c.body(DOCS_INIT_JS, 200, { ...PAGE_HEADERS, "Content-Type": "text/javascript; charset=utf-8" }));
