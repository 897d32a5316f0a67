import { sql, type Column, type SQL } from "drizzle-orm";

/**
 * `+column`: the same value, but a term SQLite will not drive an index with. D1 plans without
 * statistics (decision 34), so the planner picks the index with the most equality terms; where a
 * broad condition (a chain, a flag) sits beside a narrow one, writing the broad one this way
 * leaves the plan to the narrow one's index.
 */
export const byValueOnly = (column: Column): SQL => sql`+${column}`;
