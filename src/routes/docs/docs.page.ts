// The API reference page: Swagger UI, whose bundle (swagger-ui-dist, pinned in package.json) is
// served by this Worker's static assets under SWAGGER_UI_PATH (copied from node_modules by
// scripts/docs-assets.mjs), reading /openapi.json. Nothing comes from a CDN, and the page's CSP
// allows this origin only, so it renders with no network and cannot be made to load elsewhere.

/** Where the assets layer serves swagger-ui-dist's files (build/assets/docs/swagger-ui/). */
export const SWAGGER_UI_PATH = "/docs/swagger-ui";
export const DOCS_INIT_PATH = "/docs/init.js";

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes, and its stylesheet draws icons from data: URIs.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  // The OpenAPI document and "Try it out" requests, to this origin only.
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mintyard API</title>
<link rel="stylesheet" href="${SWAGGER_UI_PATH}/swagger-ui.css">
</head>
<body>
<noscript>The API reference needs JavaScript. The OpenAPI 3.1 document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="swagger-ui"></div>
<script src="${SWAGGER_UI_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_INIT_PATH}"></script>
</body>
</html>
`;

// A script file rather than an inline script, so the CSP needs no nonce or hash. validatorUrl
// null: Swagger UI would otherwise fetch a badge from an outside validator.
export const DOCS_INIT_JS = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;
