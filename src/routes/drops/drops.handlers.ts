import type { z } from "@hono/zod-openapi";
import { getChain } from "../../lib/chains";
import { validationError } from "../../lib/errors";
import { lenientLimit, lenientPage, lenientSortBy, paginatedLinks, paginatedMeta, type PaginateConfig } from "../../lib/paginate";
import type { AppRouteHandler } from "../app-types";
import { serviceContext } from "../../services/context";
import { getAllowlistEntry } from "../../services/drops/allowlist";
import { getDrop, listDrops, type DropFilters } from "../../services/drops/read-drops";
import type {
  DropListQuery,
  getAllowlistEntry as getAllowlistEntryRoute,
  getDrop as getDropRoute,
  listDrops as listDropsRoute,
} from "./drops.routes";

const DROPS_PAGINATION: PaginateConfig = {
  sortableColumns: ["createdAt"],
  defaultSortBy: [["createdAt", "DESC"]],
  defaultLimit: 20,
  maxLimit: 100,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const CHAIN_ID = /^[1-9][0-9]{0,15}$/;

type Query = z.infer<typeof DropListQuery>;
type FilterName = keyof DropFilters;

/** A repeated paging parameter: nestjs-paginate's parseInt of the joined values reads the first. */
const firstOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** One filter value without its `$eq:` prefix; other operators are not supported. */
function withoutEq(raw: string, name: FilterName): string {
  const operator = /^\$([a-z]+):/i.exec(raw);
  if (operator && operator[1]!.toLowerCase() !== "eq") {
    throw validationError(`query.filter.${name}`, `only the $eq operator is supported`);
  }
  return (operator ? raw.slice(operator[0].length) : raw).toLowerCase();
}

/**
 * `filter.x` wins over plain `x`. A repeated filter is the AND of its values: the same value
 * again changes nothing, and two different equalities can match nothing, a mistake worth naming.
 */
function filterValue(query: Query, name: FilterName): string | undefined {
  const given = query[`filter.${name}`] ?? query[name];
  if (given === undefined) return undefined;
  const values = new Set((Array.isArray(given) ? given : [given]).map((raw) => withoutEq(raw, name)));
  if (values.size > 1) throw validationError(`query.filter.${name}`, "is given more than once with different values");
  return [...values][0];
}

function parseFilters(env: Env, query: Query): { filters: DropFilters; echo: Record<string, string> } {
  const filters: DropFilters = {};
  const echo: Record<string, string> = {};
  const projectId = filterValue(query, "projectId");
  if (projectId !== undefined) {
    if (!UUID.test(projectId)) throw validationError("query.filter.projectId", "must be a UUID");
    filters.projectId = projectId.toLowerCase();
    echo.projectId = `$eq:${filters.projectId}`;
  }
  const chainId = filterValue(query, "chainId");
  if (chainId !== undefined) {
    if (!CHAIN_ID.test(chainId)) throw validationError("query.filter.chainId", "must be a positive integer");
    filters.chainId = getChain(env, Number(chainId)).chainId;
    echo.chainId = `$eq:${filters.chainId}`;
  }
  const contractAddress = filterValue(query, "contractAddress");
  if (contractAddress !== undefined) {
    if (!ADDRESS.test(contractAddress)) throw validationError("query.filter.contractAddress", "must be a 20-byte hex address");
    filters.contractAddress = contractAddress.toLowerCase();
    echo.contractAddress = `$eq:${filters.contractAddress}`;
  }
  return { filters, echo };
}

export const listDropsHandler: AppRouteHandler<typeof listDropsRoute> = async (c) => {
  const query = c.req.valid("query");
  const { filters, echo } = parseFilters(c.env, query);
  const paginateQuery = {
    page: lenientPage(firstOf(query.page)),
    limit: lenientLimit(firstOf(query.limit), DROPS_PAGINATION),
    sortBy: lenientSortBy(query.sortBy, DROPS_PAGINATION),
    filter: echo,
  };
  const { rows, total } = await listDrops(serviceContext(c.env), paginateQuery, filters, c.get("auth").projectId);
  const path = new URL(c.req.url).origin + "/v1/drops";
  return c.json(
    { data: rows, meta: paginatedMeta(paginateQuery, total), links: paginatedLinks(path, paginateQuery, total) },
    200,
  );
};

export const getDropHandler: AppRouteHandler<typeof getDropRoute> = async (c) => {
  const drop = await getDrop(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id);
  return c.json(drop, 200);
};

export const getAllowlistEntryHandler: AppRouteHandler<typeof getAllowlistEntryRoute> = async (c) => {
  const { id, address } = c.req.valid("param");
  return c.json(await getAllowlistEntry(serviceContext(c.env), c.get("auth").projectId, id, address), 200);
};
