// The committed OpenAPI document (client/openapi.json): lint-clean under Redocly's recommended
// ruleset, documented by the rules of docs/decisions.md §15, and the generated client files are
// what the generator makes of it. (test/client/openapi-fresh.test.ts proves it is the Worker's.)
import { readFile } from "node:fs/promises";
import { createConfig, lint } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import {
  DOCUMENT_PATH,
  generateSchemaTypes,
  generateSecurityModule,
  SCHEMA_TYPES_PATH,
  SECURITY_PATH,
} from "../../scripts/lib/client-codegen.mjs";

interface MediaType {
  example?: unknown;
  examples?: Record<string, { $ref?: string; value?: unknown }>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { description: string; content?: Record<string, MediaType> }>;
}

const document = JSON.parse(await readFile(DOCUMENT_PATH, "utf8")) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
);

/**
 * Warnings of the recommended ruleset the document keeps on purpose (docs/decisions.md §15):
 * the project has not chosen a licence, and /health has no 4xx to document.
 */
const ACCEPTED_WARNINGS = new Set(["info-license #/info", "operation-4xx-response #/paths/~1health/get/responses"]);

/** The error codes a response documents, from its examples (one per code). */
const codesOf = (operation: Operation, status: string) =>
  Object.keys(operation.responses[status]?.content?.["application/json"]?.examples ?? {});

describe("client/openapi.json", () => {
  it("passes Redocly's recommended ruleset: no errors, no warnings but the accepted ones", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lint({ ref: DOCUMENT_PATH, config });
    const report = problems.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer ?? ""}: ${problem.message}`);
    expect(problems.filter((problem) => problem.severity === "error").length, report.join("\n")).toBe(0);
    const unexpected = problems.filter((problem) => !ACCEPTED_WARNINGS.has(`${problem.ruleId} ${problem.location[0]?.pointer ?? ""}`));
    expect(unexpected.map((problem) => `${problem.severity} ${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([]);
  }, 60_000);

  it("documents every operation: operationId, summary, description, tags and examples", () => {
    expect(operations.length).toBeGreaterThan(0);
    const gaps: string[] = [];
    for (const { name, operation } of operations) {
      if (!operation.operationId) gaps.push(`${name}: no operationId`);
      if (!operation.summary?.trim()) gaps.push(`${name}: no summary`);
      if (!operation.description?.trim()) gaps.push(`${name}: no description`);
      if (!operation.tags?.length) gaps.push(`${name}: no tags`);
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        if (media.example === undefined && !media.examples) gaps.push(`${name}: request ${type} has no example`);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (media.example === undefined && !media.examples) gaps.push(`${name}: response ${status} ${type} has no example`);
        }
        const envelope = (response.content?.["application/json"] as { schema?: { $ref?: string } } | undefined)?.schema?.$ref === "#/components/schemas/ErrorEnvelope";
        if (envelope && !codesOf(operation, status).length) gaps.push(`${name}: ${status} names no error code`);
      }
    }
    expect(gaps).toEqual([]);
  });

  it("documents the errors every operation can return (docs/decisions.md §15)", () => {
    const gaps: string[] = [];
    for (const { name, operation } of operations) {
      const has = (status: string, ...codes: string[]) => {
        for (const code of codes) if (!codesOf(operation, status).includes(code)) gaps.push(`${name}: ${status} ${code} missing`);
      };
      const schemes = new Set((operation.security ?? []).flatMap((requirement) => Object.keys(requirement)));
      const idempotent = operation.parameters?.some((parameter) => parameter.in === "header" && parameter.name.toLowerCase() === "idempotency-key");
      has("500", "internal_error");
      if (operation.parameters?.length || operation.requestBody) has("400", "validation_error");
      if (operation.requestBody) has("413", "payload_too_large");
      if (schemes.size) has("401", "unauthorized");
      if (schemes.has("ApiKey") || schemes.has("SecretKey")) has("429", "rate_limited");
      if (schemes.has("SecretKey") && !schemes.has("ApiKey")) has("403", "forbidden");
      if (idempotent) has("409", "conflict", "idempotency_conflict");
    }
    expect(gaps).toEqual([]);
  });

  it("has unique operationIds", () => {
    const ids = operations.flatMap(({ operation }) => (operation.operationId ? [operation.operationId] : []));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("generated client files", () => {
  it("client/src/schema.d.ts is openapi-typescript's output for client/openapi.json (run npm run client:generate)", async () => {
    expect(await readFile(SCHEMA_TYPES_PATH, "utf8")).toBe(await generateSchemaTypes(document));
  });

  it("client/src/security.ts matches client/openapi.json (run npm run client:generate)", async () => {
    expect(await readFile(SECURITY_PATH, "utf8")).toBe(generateSecurityModule(document));
  });
});
