// client/openapi.json (and the client types generated from it) must be the document the Worker
// serves: a route, schema or example changed without `npm run client:generate` fails here. Every
// example in the document must also be valid for its route's zod schema, which is what the
// service actually enforces and returns.
import { describe, expect, it } from "vitest";
import committedDocument from "../../client/openapi.json";
import { ERROR_CODES } from "../../src/lib/errors";
import { ErrorEnvelopeSchema, errorExample } from "../../src/schemas/common";
import { call } from "../helpers/http";
import { requestMedia, responseMedia, routeConfigs } from "./route-configs";

type Document = { servers?: unknown; paths: Record<string, Record<string, unknown>>; components?: Record<string, Record<string, unknown>> };
const committed = committedDocument as unknown as Document;

/** Top-level keys, operations and components that differ between two documents. */
function differences(fresh: Document, stored: Document): string[] {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const out: string[] = [];
  for (const key of new Set([...Object.keys(fresh), ...Object.keys(stored)])) {
    if (key === "paths" || key === "components" || key === "servers") continue;
    if (!same(fresh[key as keyof Document], stored[key as keyof Document])) out.push(key);
  }
  for (const path of new Set([...Object.keys(fresh.paths), ...Object.keys(stored.paths)])) {
    for (const method of new Set([...Object.keys(fresh.paths[path] ?? {}), ...Object.keys(stored.paths[path] ?? {})])) {
      if (!same(fresh.paths[path]?.[method], stored.paths[path]?.[method])) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  for (const kind of new Set([...Object.keys(fresh.components ?? {}), ...Object.keys(stored.components ?? {})])) {
    for (const name of new Set([...Object.keys(fresh.components?.[kind] ?? {}), ...Object.keys(stored.components?.[kind] ?? {})])) {
      if (!same(fresh.components?.[kind]?.[name], stored.components?.[kind]?.[name])) out.push(`components.${kind}.${name}`);
    }
  }
  return out;
}

const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`));

describe("client/openapi.json", () => {
  it("is the document the Worker serves (else run npm run client:generate and commit client/)", async () => {
    const { status, body } = await call<Document>("/openapi.json");
    expect(status).toBe(200);
    // The served document names the request's origin as its server; the committed one, npm run dev's.
    const fresh = { ...body, servers: committed.servers };
    expect(differences(fresh, committed), "stale client/openapi.json: run `npm run client:generate`").toEqual([]);
    expect(fresh).toEqual(committed);
  });

  it("covers exactly the routes defined in src/routes/**/*.routes.ts", () => {
    expect(operationsOf(committed).sort()).toEqual([...routeConfigs.keys()].sort());
  });

  it("has request and response examples that the routes' zod schemas accept as they are", () => {
    const problems: string[] = [];
    for (const [name, route] of routeConfigs) {
      const request = requestMedia(route);
      if (request?.example !== undefined) {
        const result = request.schema.safeParse(request.example);
        if (!result.success) problems.push(`${name} request: ${result.error.message}`);
      }
      for (const status of Object.keys(route.responses)) {
        const media = responseMedia(route, status);
        if (media?.example === undefined) continue;
        const result = media.schema.safeParse(media.example);
        if (!result.success) problems.push(`${name} ${status}: ${result.error.message}`);
        // Parsing strips undocumented fields: an example must not have any.
        else if (JSON.stringify(result.data) !== JSON.stringify(media.example)) problems.push(`${name} ${status}: the example has fields the schema does not declare`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("has an error example per code, each a valid envelope", () => {
    for (const code of ERROR_CODES) {
      expect(ErrorEnvelopeSchema.parse(errorExample(code).value).error.code).toBe(code);
      expect(committed.components?.examples?.[`error.${code}`]).toEqual(errorExample(code));
    }
  });
});
