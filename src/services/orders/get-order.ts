import { eq } from "drizzle-orm";
import { orders } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { orderView, type OrderView } from "./order-view";

/** Orders are marketplace data: any key may read any order. */
export async function getOrder({ db }: ServiceContext, orderHash: string): Promise<OrderView> {
  const row = await db.select().from(orders).where(eq(orders.orderHash, orderHash)).get();
  if (!row) throw notFound("order");
  return orderView(row);
}
