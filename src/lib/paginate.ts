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

const POSITIVE_INT = /^[1-9][0-9]{0,8}$/;

export function lenientPage(raw: string | undefined): number {
  return raw !== undefined && POSITIVE_INT.test(raw) ? Number(raw) : 1;
}

export function lenientLimit(raw: string | undefined, config: PaginateConfig): number {
  if (raw === undefined || !POSITIVE_INT.test(raw)) return config.defaultLimit;
  return Math.min(Number(raw), config.maxLimit);
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
