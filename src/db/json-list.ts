import { sql, type Column, type SQL } from "drizzle-orm";

/**
 * `column in (values…)` with the whole list bound as one JSON parameter. D1 takes at most 100
 * bound parameters per statement, so a list as long as a page (limit 100) or as the collections
 * that sold in a period must not be bound value by value. SQLite still drives an index on
 * `column` with the list (IN over a subquery).
 */
export const inJsonList = (column: Column, values: readonly (string | number)[]): SQL =>
  sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;

/** Values per JSON list parameter (jsonLists). */
export const JSON_LIST_CHUNK = 2_000;

/**
 * `values` as JSON list parameters of at most `size` values each. D1 refuses a bound string over
 * 1,000,000 bytes, and one indexed range of busy blocks can name tens of thousands of
 * transactions or tokens (a transaction hash is 69 bytes of a list): a list bound whole would
 * fail that range, and so the chain's indexing, on every run.
 */
export function jsonLists(values: readonly unknown[], size = JSON_LIST_CHUNK): string[] {
  const lists: string[] = [];
  for (let start = 0; start < values.length; start += size) lists.push(JSON.stringify(values.slice(start, start + size)));
  return lists;
}

/**
 * Runs `statementsFor(list)` for each JSON list of `values` (jsonLists), all in one D1 batch, and
 * returns each statement position's rows across the lists (empty lists when `values` is).
 */
export async function batchOverJsonLists<Row>(db: D1Database, values: readonly unknown[], statementsFor: (list: string) => D1PreparedStatement[]): Promise<Row[][]> {
  const perList = jsonLists(values).map(statementsFor);
  const width = perList[0]?.length ?? 0;
  const answers = perList.length ? await db.batch<Row>(perList.flat()) : [];
  return Array.from({ length: width }, (_, position) => answers.filter((_, index) => index % width === position).flatMap((answer) => answer.results));
}
