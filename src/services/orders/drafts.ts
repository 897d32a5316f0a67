// Prepared (unsigned) orders, kept in KV for an hour between the prepare and submit steps.
import type { OrderComponentsJson } from "../../chain/seaport";
import type { ServiceContext } from "../context";

export const DRAFT_TTL_SECONDS = 3600;

export interface OrderDraft {
  chainId: number;
  parameters: OrderComponentsJson;
  projectId: string;
}

const draftKey = (orderHash: string) => `order-draft:${orderHash.toLowerCase()}`;

export async function saveDraft(ctx: ServiceContext, orderHash: string, draft: OrderDraft) {
  await ctx.env.KV.put(draftKey(orderHash), JSON.stringify(draft), { expirationTtl: DRAFT_TTL_SECONDS });
}

/** The project's own draft; another project's is as absent as an expired one. */
export async function loadDraft(ctx: ServiceContext, projectId: string, orderHash: string): Promise<OrderDraft | null> {
  const draft = await ctx.env.KV.get<OrderDraft>(draftKey(orderHash), "json");
  return draft?.projectId === projectId ? draft : null;
}
