// Property-based bad input (issue 6): every operation of /openapi.json gets generated path
// parameters, query strings, headers and bodies. Whatever arrives: never a 5xx, every 4xx is the
// error envelope, and nothing reaches the chain. New endpoints are covered without editing
// this file because the list comes from the OpenAPI document.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { TEST_ADMIN_TOKEN } from "../fixtures/secrets";
import { chainClient } from "../helpers/chain";
import { call, type CallResult } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[];
  hasBody: boolean;
}

const RUNS_PER_OPERATION = 20;
let project: TestProject;
let operations: Operation[] = [];
let requests = 0;

/** Values that look almost right, plus plain junk. */
const scalar = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("0", "-1", "1.5", "1e30", "0x", "0x1234", `0x${"f".repeat(40)}`, `0x${"0".repeat(64)}`, "1868", "NaN", "", " ", "true", "../..", "%00", "<script>"),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
);
const jsonValue = fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 4 }));

function bodyFor(operation: Operation) {
  const known = operation.bodyFields.length
    ? fc.dictionary(fc.constantFrom(...operation.bodyFields), jsonValue, { maxKeys: operation.bodyFields.length })
    : fc.constant({});
  return fc.oneof(
    known.chain((object) => fc.option(fc.string({ maxLength: 10 }), { nil: undefined }).map((extra) => (extra ? { ...object, [extra]: 1 } : object))).map((v) => JSON.stringify(v)),
    jsonValue.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 60 }),
    fc.constantFrom("{", "[]", "null", '{"a":', "\u0000"),
  );
}

const credentials = fc.constantFrom<"secret" | "api" | "none" | "garbage" | "admin">("secret", "secret", "api", "none", "garbage", "admin");

function requestFor(operation: Operation) {
  return fc.record({
    pathValues: fc.array(fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("1868", "1", crypto.randomUUID(), `0x${"a".repeat(40)}`, `0x${"b".repeat(64)}`)), {
      minLength: operation.pathParams.length,
      maxLength: operation.pathParams.length,
    }),
    query: fc.dictionary(fc.constantFrom(...operation.queryParams, "sortBy", "page", "limit", "junk"), fc.oneof(fc.string({ maxLength: 20 }), scalar.map(String)), { maxKeys: 4 }) as fc.Arbitrary<Record<string, string>>,
    body: operation.hasBody ? fc.option(bodyFor(operation), { nil: undefined }) : fc.constant(undefined),
    credential: credentials,
    idempotencyKey: fc.option(fc.string({ maxLength: 250 }), { nil: undefined }),
    contentType: fc.constantFrom("application/json", "application/json", "text/plain", "application/x-www-form-urlencoded"),
  });
}

type RequestInput = ReturnType<typeof requestFor> extends fc.Arbitrary<infer T> ? T : never;

async function send(operation: Operation, input: RequestInput) {
  let path = operation.path;
  operation.pathParams.forEach((name, index) => {
    path = path.replace(`{${name}}`, encodeURIComponent(String(input.pathValues[index] ?? "")) || "x");
  });
  const query = new URLSearchParams(Object.entries(input.query)).toString();
  const headers: Record<string, string> = { "content-type": input.contentType };
  if (input.credential === "secret") headers.authorization = `Bearer ${project.secretKey}`;
  if (input.credential === "api") headers["x-api-key"] = project.apiKey;
  if (input.credential === "garbage") headers.authorization = "Bearer sk_notakeyatall";
  if (input.credential === "admin") headers.authorization = `Bearer ${TEST_ADMIN_TOKEN}`;
  if (input.idempotencyKey !== undefined) headers["idempotency-key"] = input.idempotencyKey.replace(/[\r\n]/g, "");
  requests += 1;
  return call(`${path}${query ? `?${query}` : ""}`, { method: operation.method, headers, ...(input.body !== undefined ? { rawBody: input.body } : {}) });
}

function check(operation: Operation, result: CallResult) {
  const where = `${operation.method} ${operation.path} → ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`;
  expect(result.status, where).toBeLessThan(500);
  expect(result.headers.get("x-request-id"), where).toBeTruthy();
  if (result.status >= 400) {
    expect(result.body?.error?.code, where).toMatch(/^[a-z_]+$/);
    expect(typeof result.body.error.message, where).toBe("string");
    expect(result.body.error.requestId, where).toBe(result.headers.get("x-request-id"));
  }
}

beforeAll(async () => {
  // An unfunded wallet: even a request that passes validation can never pay for a transaction.
  project = await createTestProject("Fuzzed");
  const { body } = await call("/openapi.json");
  operations = Object.entries(body.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, spec]) => {
      const parameters = (spec.parameters ?? []) as { name: string; in: string }[];
      const schema = spec.requestBody?.content?.["application/json"]?.schema;
      const resolved = schema?.$ref ? body.components.schemas[schema.$ref.split("/").pop()] : schema;
      const bodyFields = Object.keys(resolved?.properties ?? {}).concat(...(resolved?.anyOf ?? resolved?.oneOf ?? []).map((s: any) => Object.keys(s.properties ?? {})));
      return {
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === "query").map((p) => p.name),
        bodyFields: [...new Set(bodyFields)],
        hasBody: Boolean(spec.requestBody),
      };
    }),
  );
});

describe("fuzzed input against every documented operation", () => {
  it("never answers 5xx, always answers 4xx with the envelope, and sends nothing to the chain", async () => {
    expect(operations.length).toBeGreaterThan(25);
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestFor(operation), async (input) => check(operation, await send(operation, input))),
        { numRuns: RUNS_PER_OPERATION, seed: 20261121 },
      );
    }
    const nonce = await chainClient().getTransactionCount({ address: project.walletAddress as Address });
    const rows = await env.DB.prepare("select count(*) as n from transactions where project_id = ?").bind(project.id).first<{ n: number }>();
    expect({ nonce, transactions: rows!.n }).toEqual({ nonce: 0, transactions: 0 });
    console.info(`fuzz: ${requests} generated requests over ${operations.length} operations`);
    expect(requests).toBeGreaterThanOrEqual(operations.length * RUNS_PER_OPERATION);
  }, 300_000);
});
