// POST /v1/orders: a signed Seaport listing becomes an active order, after every check Seaport
// would make when it is filled (signature, counter, status, ownership, approval).
import { and, eq } from "drizzle-orm";
import { erc20PaymentToken } from "../../chain/erc20";
import { canOperate, erc1155BalanceOf, erc721OwnerOf } from "../../chain/nft-reads";
import { fillStateProblem, offererSignature, orderHashOf, seaportCounter, seaportOperator, seaportOrderStatus, type OrderComponentsJson } from "../../chain/seaport";
import { collections, drops, orders } from "../../db/schema";
import { getChain, type ChainConfig } from "../../lib/chains";
import { AppError, notFound, validationError } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { refreshBestListingStatement } from "./best-listing";
import { loadDraft } from "./drafts";
import { canonicalOrder, summarizeListing, type OrderSummary } from "./order-shape";
import { orderView, type OrderView } from "./order-view";
import { priceSortKey } from "./price-sort";
import { isSoulbound, SOULBOUND_REFUSAL } from "./soulbound";

/** The latest instant a Date holds; Seaport times may lie beyond it. */
const MAX_DATE_MS = 8.64e15;
const dateOfSeconds = (seconds: string) => new Date(Math.min(Number(seconds) * 1000, MAX_DATE_MS));

interface CheckedOrder {
  priceSymbol: string;
  operator: string;
  signature: string;
}

export type SubmitOrderInput =
  | { signature: string; orderHash: string }
  | { signature: string; parameters: Record<string, unknown>; chainId: number };

/** Every check Seaport would make at fill time; returns the price's symbol, who moves the token and the signature Seaport is to get. */
async function onChainChecks(
  chain: ChainConfig,
  order: OrderComponentsJson,
  orderHash: string,
  signature: string,
  summary: OrderSummary,
  fieldPath: (field: string) => string,
): Promise<CheckedOrder> {
  const rpc = chain.rpcUrl;
  const [acceptedSignature, counter, status, operator, currency] = await Promise.all([
    offererSignature(rpc, chain.chainId, chain.seaportAddress, order, signature),
    seaportCounter(rpc, chain.seaportAddress, order.offerer),
    seaportOrderStatus(rpc, chain.seaportAddress, orderHash),
    seaportOperator(rpc, chain.seaportAddress, order.conduitKey),
    summary.currency ? erc20PaymentToken(rpc, summary.currency, order.offerer) : ({ payable: true, symbol: chain.nativeSymbol } as const),
  ]);
  // Cancelled or filled first: a cancel also clears a validation, which would read as a bad signature.
  const fillState = fillStateProblem(status);
  if (fillState) throw new AppError("order_not_fillable", fillState);
  // Seaport checks no signature for an order validated on chain (its offerer's `validate`), so
  // neither does this; the fill then carries none.
  if (!acceptedSignature && !status.isValidated) {
    throw new AppError("invalid_signature", "the signature is not the offerer's for this order on this chain's Seaport, and the order is not validated on chain");
  }
  if (counter !== BigInt(order.counter)) throw new AppError("order_not_fillable", `the order's counter ${order.counter} is not the offerer's current counter ${counter}`);
  if ("refusal" in operator) throw validationError(fieldPath("conduitKey"), operator.refusal);
  // Stored as active, a listing no buyer can pay would show as the token's best listing for ever.
  if (!currency.payable) throw validationError(fieldPath("consideration.0.token"), currency.reason);

  const owns =
    summary.schema === "ERC721"
      ? (await erc721OwnerOf(rpc, summary.contract, summary.tokenId)) === order.offerer
      : (await erc1155BalanceOf(rpc, summary.contract, order.offerer, summary.tokenId)) >= summary.quantity;
  if (!owns) throw new AppError("not_token_owner", "the offerer does not own the offered token");
  if (!(await canOperate(rpc, summary.contract, order.offerer, operator.operator, summary.schema === "ERC721" ? summary.tokenId : undefined))) {
    throw new AppError("not_approved", `the offerer has not approved ${operator.operator} to transfer this token`);
  }
  return { priceSymbol: currency.symbol, operator: operator.operator, signature: acceptedSignature ?? "0x" };
}

const alreadyListed = (orderHash: string, status: string) => new AppError("conflict", `order ${orderHash} is already listed (status ${status})`);

export async function submitOrder(ctx: ServiceContext, projectId: string, input: SubmitOrderInput): Promise<OrderView> {
  let chainId: number;
  let order: OrderComponentsJson;
  if ("orderHash" in input) {
    const draft = await loadDraft(ctx, projectId, input.orderHash);
    if (!draft) throw notFound("prepared order (drafts expire after 1 h)");
    chainId = draft.chainId;
    order = draft.parameters;
  } else {
    chainId = input.chainId;
    order = canonicalOrder(input.parameters);
  }
  const chain = getChain(ctx.env, chainId);
  const summary = summarizeListing(order);
  const orderHash = orderHashOf(order);

  const known = await ctx.db.select({ status: orders.status }).from(orders).where(eq(orders.orderHash, orderHash)).get();
  if (known) throw alreadyListed(orderHash, known.status);
  // The collection and, for one of our drops, its mode: one read.
  const collection = await ctx.db
    .select({ id: collections.id, isVerified: collections.isVerified, dropMode: drops.mode })
    .from(collections)
    .leftJoin(drops, eq(drops.id, collections.dropId))
    .where(and(eq(collections.chainId, chain.chainId), eq(collections.contractAddress, summary.contract)))
    .get();
  if (!collection) throw notFound("collection (register the contract before listing its tokens)");
  if (isSoulbound(collection.dropMode)) throw new AppError("order_not_fillable", SOULBOUND_REFUSAL);
  // A prepared draft's fields are not in the body: its errors point at the hash that names it.
  const fieldPath = (field: string) => ("orderHash" in input ? "body.orderHash" : `body.parameters.${field}`);
  // Bad input by the marketplace issue's list (400), like prepare's past endTime.
  if (BigInt(order.endTime) * 1000n <= BigInt(Date.now())) throw validationError(fieldPath("endTime"), "endTime is in the past");

  let checked: CheckedOrder;
  try {
    checked = await onChainChecks(chain, order, orderHash, input.signature, summary, fieldPath);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError("chain_unavailable", `chain ${chain.chainId} RPC did not answer`);
  }

  const now = new Date();
  const row: typeof orders.$inferInsert = {
    orderHash,
    chainId: chain.chainId,
    status: "active",
    offerer: order.offerer,
    contractAddress: summary.contract,
    tokenId: summary.tokenId,
    quantity: summary.quantity.toString(),
    unitPrice: summary.unitPrice.toString(),
    priceSort: priceSortKey(summary.unitPrice, summary.currency),
    currencyAddress: summary.currency,
    priceSymbol: checked.priceSymbol,
    startTime: dateOfSeconds(order.startTime),
    startPending: dateOfSeconds(order.startTime).getTime() > now.getTime(),
    endTime: dateOfSeconds(order.endTime),
    counter: order.counter,
    parameters: JSON.stringify(order),
    signature: checked.signature,
    operator: checked.operator,
    projectId,
    createdAt: now,
    updatedAt: now,
  };
  const db = ctx.env.DB;
  // The check above is only the cheap path: an identical submission may pass it at the same time.
  const insertOrder = ctx.db.insert(orders).values(row).onConflictDoNothing({ target: orders.orderHash }).toSQL();
  const [, inserted] = await db.batch([
    // A listing of a token the indexer has not seen yet still gets its asset row.
    db
      .prepare(
        `insert into assets (id, chain_id, contract_address, token_id, collection_id, schema, is_verified, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (chain_id, contract_address, token_id) do nothing`,
      )
      .bind(crypto.randomUUID(), chain.chainId, summary.contract, summary.tokenId, collection.id, summary.schema, collection.isVerified ? 1 : 0, now.getTime(), now.getTime()),
    db.prepare(insertOrder.sql).bind(...insertOrder.params),
    refreshBestListingStatement(db, chain.chainId, summary.contract, summary.tokenId, now.getTime()),
  ]);
  const saved = await ctx.db.select().from(orders).where(eq(orders.orderHash, orderHash)).get();
  if (!inserted!.meta.changes) throw alreadyListed(orderHash, saved!.status);
  return orderView(saved!);
}
