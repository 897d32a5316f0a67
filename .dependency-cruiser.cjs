// The layer rules of src/ (docs/architecture.md), checked by dependency-cruiser in `npm test`
// (test/layers/layers.test.ts) and by `npm run layers`. Paths are relative to the directory the
// check runs in (the repository, or the test's planted fixture).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "chain-imports-only-chain",
      comment: "src/chain wraps viem and the contracts; it knows nothing of the service around it.",
      severity: "error",
      from: { path: "^src/chain/" },
      to: { path: "^src/", pathNot: "^src/chain/" },
    },
    {
      name: "viem-only-in-chain",
      comment: "One place speaks to the chain library, so its types and errors stop at src/chain.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/chain/" },
      to: { path: "node_modules/viem/" },
    },
    {
      name: "services-import-no-hono",
      comment: "Services are called by routes, Durable Objects and the cron alike: HTTP stays in src/routes.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: "node_modules/(hono|@hono/[^/]+)/" },
    },
    {
      name: "services-import-no-routes",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: "^src/(routes/|app\\.ts$|openapi)" },
    },
    {
      name: "lib-imports-no-services-or-routes",
      comment: "src/lib holds helpers any layer may use; it knows no feature.",
      severity: "error",
      from: { path: "^src/lib/" },
      to: { path: "^src/(services|routes|durable-objects)/" },
    },
    {
      name: "engine-imports-no-feature",
      comment: "The transaction engine learns of kinds and announcements by registration (src/services/transaction-kinds.ts), never by import.",
      severity: "error",
      from: { path: "^src/services/engine/" },
      to: { path: "^src/(services|routes|durable-objects)/", pathNot: "^src/services/(engine/|context\\.ts$)" },
    },
    {
      name: "durable-objects-reach-others-through-services",
      comment: "A Durable Object is a thin shell over its service: it imports services and lib only, never another object (its stub comes from services/durable-object-stubs.ts).",
      severity: "error",
      from: { path: "^src/durable-objects/" },
      to: { path: "^src/", pathNot: "^src/(services|lib)/" },
    },
    {
      name: "services-know-durable-objects-as-types-only",
      comment: "Services reach an object through its stub; the class itself is imported for its type only.",
      severity: "error",
      from: { path: "^src/services/" },
      to: { path: "^src/durable-objects/", dependencyTypesNot: ["type-only"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: a layer that names another's types depends on it.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".d.ts", ".js", ".mjs"],
    },
  },
};
