// nestjs-paginate's query and response conventions, for GET /v1/drops (DESIGN §4): lenient
// paging (invalid page → 1, invalid limit → default, limit capped), repeatable `sortBy`, and
// `links` built the way nestjs-paginate builds them.

export type SortDirection = "ASC" | "DESC";
export type SortOrder = [field: string, direction: SortDirection];

export interface PaginateConfig {
  sortableColumns: readonly string[];
  defaultSortBy: SortOrder[];
  defaultLimit: number;
  maxLimit: number;
}

export interface PaginateQuery {
  page: number;
  limit: number;
  sortBy: SortOrder[];
  /** Normalised filters, echoed in `meta.filter` and the links, e.g. `{ chainId: "$eq:1868" }`. */
  filter: Record<string, string>;
}

export interface PaginatedMeta {
  itemsPerPage: number;
  totalItems: number;
  currentPage: number;
  totalPages: number;
  sortBy: SortOrder[];
  searchBy: string[];
  search: string;
  select: string[];
  filter: Record<string, string>;
}

export interface PaginatedLinks {
  first?: string;
  previous?: string;
  current: string;
  next?: string;
  last?: string;
}

const DIGITS = /^[0-9]+$/;
/**
 * Any page past the end is empty, however far; the cap keeps (page - 1) × limit an exact
 * integer for D1's OFFSET (limits up to 9,000).
 */
const MAX_PAGE = 1_000_000_000_000;

/** A positive integer written in digits alone, clamped to `max`; anything else is undefined. */
function positiveDigits(raw: string | undefined, max: number): number | undefined {
  if (raw === undefined || !DIGITS.test(raw)) return undefined;
  const value = Number(raw); // past 2^53 inexact, but far above `max`
  return value >= 1 ? Math.min(value, max) : undefined;
}

export function lenientPage(raw: string | undefined): number {
  return positiveDigits(raw, MAX_PAGE) ?? 1;
}

export function lenientLimit(raw: string | undefined, config: PaginateConfig): number {
  return positiveDigits(raw, config.maxLimit) ?? config.defaultLimit;
}

/** Valid `field:DIRECTION` entries in URL order; none valid → the default order. */
export function lenientSortBy(raw: string | string[] | undefined, config: PaginateConfig): SortOrder[] {
  const entries = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const orders: SortOrder[] = [];
  for (const entry of entries) {
    const [field, direction, ...rest] = entry.split(":");
    const upper = direction?.toUpperCase();
    if (rest.length || !field || !config.sortableColumns.includes(field) || (upper !== "ASC" && upper !== "DESC")) continue;
    if (!orders.some(([existing]) => existing === field)) orders.push([field, upper]);
  }
  return orders.length ? orders : config.defaultSortBy;
}

export function paginatedMeta(query: PaginateQuery, totalItems: number): PaginatedMeta {
  return {
    itemsPerPage: query.limit,
    totalItems,
    currentPage: query.page,
    totalPages: Math.ceil(totalItems / query.limit),
    sortBy: query.sortBy,
    searchBy: [],
    search: "",
    select: [],
    filter: query.filter,
  };
}

/** `path?page=N&limit=…&sortBy=…&filter.x=…`; first/previous vanish on page 1, next/last on the last page. */
export function paginatedLinks(path: string, query: PaginateQuery, totalItems: number): PaginatedLinks {
  const totalPages = Math.ceil(totalItems / query.limit);
  const options =
    `&limit=${query.limit}` +
    query.sortBy.map((order) => `&sortBy=${order.join(":")}`).join("") +
    Object.entries(query.filter)
      .map(([key, value]) => `&filter.${key}=${value}`)
      .join("");
  const link = (page: number) => `${path}?page=${page}${options}`;
  return {
    first: query.page === 1 ? undefined : link(1),
    previous: query.page - 1 < 1 ? undefined : link(query.page - 1),
    current: link(query.page),
    next: query.page + 1 > totalPages ? undefined : link(query.page + 1),
    last: query.page === totalPages || !totalItems ? undefined : link(totalPages),
  };
}
