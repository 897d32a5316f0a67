import { defineConfig } from "drizzle-kit";

// `npm run db:generate` writes D1 SQL migrations into migrations/ (wrangler applies them;
// it ignores migrations/meta, which drizzle-kit keeps for the next diff).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./migrations",
});
