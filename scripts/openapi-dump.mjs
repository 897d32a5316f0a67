// npm run client:generate: writes client/openapi.json (the Worker's OpenAPI document, built
// without a running server), client/src/schema.d.ts (its types) and client/src/security.ts.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import {
  buildDocument,
  CLIENT_DIR,
  DOCUMENT_PATH,
  generateSchemaTypes,
  generateSecurityModule,
  SCHEMA_TYPES_PATH,
  SECURITY_PATH,
  serializeDocument,
} from "./lib/client-codegen.mjs";

const document = await buildDocument();
await writeFile(DOCUMENT_PATH, serializeDocument(document));
await writeFile(SCHEMA_TYPES_PATH, await generateSchemaTypes(document));
await writeFile(SECURITY_PATH, generateSecurityModule(document));
const operations = Object.values(document.paths).reduce((count, item) => count + Object.keys(item).length, 0);
for (const file of [DOCUMENT_PATH, SCHEMA_TYPES_PATH, SECURITY_PATH]) console.log(`wrote ${path.relative(path.dirname(CLIENT_DIR), file)}`);
console.log(`${operations} operations`);
