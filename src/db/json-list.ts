import { sql, type Column, type SQL } from "drizzle-orm";

/**
 * `column in (values…)` with the whole list bound as one JSON parameter. D1 takes at most 100
 * bound parameters per statement, so a list as long as a page (limit 100) or as the collections
 * that sold in a period must not be bound value by value. SQLite still drives an index on
 * `column` with the list (IN over a subquery).
 */
export const inJsonList = (column: Column, values: readonly (string | number)[]): SQL =>
  sql`${column} in (select value from json_each(${JSON.stringify(values)}))`;
