import { createRoute, z } from "@hono/zod-openapi";
import { anyKey } from "../middleware/auth";
import { AddressInput, jsonContent, operationErrors, READ_SECURITY, uuidPathParam } from "../../schemas/common";
import { EXAMPLE, exampleDrop } from "../../schemas/examples";
import { DropSchema } from "../../schemas/resources";

const tags = ["Drops"];
const security = READ_SECURITY;

// A key repeated in the query string arrives as an array; nestjs-paginate copes with that, so
// every parameter here takes one.
const repeatable = (name: string, description: string, example?: string) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({ param: { name, in: "query", style: "form", explode: true }, description, ...(example ? { example } : {}) });

const filterParam = (name: string, description: string) => repeatable(name, `${description}; repeated, every value must be the same`);

// Paging parameters are plain strings on purpose: nestjs-paginate falls back to defaults
// for invalid values instead of rejecting them (DESIGN §4).
export const DropListQuery = z.object({
  page: repeatable("page", "Page number, default 1; an invalid value falls back to 1; repeated, the first counts", "1"),
  limit: repeatable("limit", "Records per page, default 20; values over 100 become 100; invalid → 20; repeated, the first counts", "20"),
  sortBy: repeatable("sortBy", "`createdAt:ASC` or `createdAt:DESC` (default); repeatable, URL order is sort order; invalid entries are ignored", "createdAt:DESC"),
  "filter.projectId": filterParam("filter.projectId", "Project id, optionally `$eq:`-prefixed"),
  "filter.chainId": filterParam("filter.chainId", "Chain id, optionally `$eq:`-prefixed"),
  "filter.contractAddress": filterParam("filter.contractAddress", "Drop contract address, optionally `$eq:`-prefixed"),
  projectId: filterParam("projectId", "Same as filter.projectId"),
  chainId: filterParam("chainId", "Same as filter.chainId"),
  contractAddress: filterParam("contractAddress", "Same as filter.contractAddress"),
});

const SortOrderSchema = z.tuple([z.string(), z.enum(["ASC", "DESC"])]);

export const DropPageSchema = z
  .object({
    data: z.array(DropSchema),
    meta: z.object({
      itemsPerPage: z.number().int(),
      totalItems: z.number().int(),
      currentPage: z.number().int(),
      totalPages: z.number().int(),
      filter: z.record(z.string(), z.string()).openapi({ example: { chainId: "$eq:1868" } }),
      sortBy: z.array(SortOrderSchema).openapi({ example: [["createdAt", "DESC"]] }),
      searchBy: z.array(z.string()),
      search: z.string(),
      select: z.array(z.string()),
    }),
    links: z
      .object({
        first: z.string().optional(),
        previous: z.string().optional(),
        current: z.string(),
        next: z.string().optional(),
        last: z.string().optional(),
      })
      .openapi({ description: "Absolute URLs as nestjs-paginate builds them: first/previous are absent on page 1, next/last on the last page" }),
  })
  .openapi("DropPage");

export const listDrops = createRoute({
  method: "get",
  path: "/v1/drops",
  operationId: "listDrops",
  tags,
  security,
  middleware: [anyKey] as const,
  summary: "List drops",
  description:
    "Every deployed drop (a marketplace read), in nestjs-paginate format, plus your own project's drops whose deploy is pending or failed. `blindboxKey` is null except on your own project's drops.",
  request: { query: DropListQuery },
  responses: {
    200: jsonContent(DropPageSchema, "A page of drops", {
      data: [exampleDrop],
      meta: {
        itemsPerPage: 20,
        totalItems: 1,
        currentPage: 1,
        totalPages: 1,
        filter: { chainId: "$eq:1868" },
        sortBy: [["createdAt", "DESC"]],
        searchBy: [],
        search: "",
        select: [],
      },
      links: { current: "https://mintyard.example.net/v1/drops?page=1&limit=20&sortBy=createdAt:DESC&filter.chainId=$eq:1868" },
    }),
    ...operationErrors({ auth: "anyKey", input: true }, "unsupported_chain"),
  },
});

export const getDrop = createRoute({
  method: "get",
  path: "/v1/drops/{id}",
  operationId: "getDrop",
  tags,
  security,
  middleware: [anyKey] as const,
  summary: "Get one of your drops",
  description: "A drop of the key's project, with its blindbox key. Another project's drop is 404.",
  request: { params: z.object({ id: uuidPathParam("id") }) },
  responses: {
    200: jsonContent(DropSchema, "The drop", exampleDrop),
    ...operationErrors({ auth: "anyKey", input: true }, "not_found"),
  },
});

export const AllowlistEntrySchema = z
  .object({
    address: z.string(),
    maxClaimable: z.string().openapi({ description: "Tokens this address may claim in total" }),
    price: z.string().openapi({ description: "Price per token for this address, smallest unit" }),
    proof: z.array(z.string()).openapi({ description: "Merkle proof for `claim(to, quantity, proof, maxClaimable, price)`" }),
  })
  .openapi("AllowlistEntry");

export const getAllowlistEntry = createRoute({
  method: "get",
  path: "/v1/drops/{id}/allowlist/{address}",
  operationId: "getAllowlistEntry",
  tags,
  security,
  middleware: [anyKey] as const,
  summary: "Allowlist proof for an address",
  description: "What a public claimer needs to call the drop's `claim` with its allowlist entry. 404 when the address is not on the list.",
  request: {
    params: z.object({
      id: uuidPathParam("id"),
      address: AddressInput.openapi({ param: { name: "address", in: "path" } }),
    }),
  },
  responses: {
    200: jsonContent(AllowlistEntrySchema, "Allowlist entry", {
      address: EXAMPLE.recipient,
      maxClaimable: "2",
      price: "5000000000000000",
      proof: ["0x8f2c1e4b7a9d3c5e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60", "0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f809"],
    }),
    ...operationErrors({ auth: "anyKey", input: true }, "not_found"),
  },
});
