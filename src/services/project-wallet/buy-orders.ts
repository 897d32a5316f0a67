// POST /v1/project-wallet/orders/buy: the project wallet fills listed Seaport orders, one
// transaction per order. An order that cannot be bought becomes an error item; the others go on.
import { eq } from "drizzle-orm";
import { encodeFulfilment } from "../../chain/seaport-fulfil";
import { seaportOrderStatus, type OrderComponentsJson } from "../../chain/seaport";
import { orders } from "../../db/schema";
import { getChain, type ChainConfig } from "../../lib/chains";
import { AppError, type ErrorCode } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { getProjectRow } from "../projects";
import type { TransactionView } from "../transactions/transaction-view";
import { sendFromProjectWallet } from "./send";

export type BuyResultItem =
  | { type: "transaction"; result: TransactionView }
  | { type: "error"; result: { code: ErrorCode; message: string } };

const unfillable = (message: string) => new AppError("order_not_fillable", message);

async function fillableOrder(ctx: ServiceContext, chain: ChainConfig, orderHash: string) {
  const order = await ctx.db.select().from(orders).where(eq(orders.orderHash, orderHash)).get();
  if (!order) throw new AppError("not_found", "order not found");
  if (order.chainId !== chain.chainId) throw unfillable(`the order is on chain ${order.chainId}`);
  if (order.status !== "active") throw unfillable(`the order is ${order.status}`);
  if (order.endTime.getTime() <= Date.now()) throw unfillable("the order has expired");
  if (order.currencyAddress) throw unfillable("only native-currency listings can be bought by the project wallet");
  const status = await seaportOrderStatus(chain.rpcUrl, chain.seaportAddress, orderHash).catch(() => {
    throw new AppError("chain_unavailable", `chain ${chain.chainId} RPC did not answer`);
  });
  if (status.isCancelled) throw unfillable("the order is cancelled on Seaport");
  if (status.totalSize > 0n && status.totalFilled >= status.totalSize) throw unfillable("the order is already filled");
  return order;
}

export async function buyOrders(ctx: ServiceContext, projectId: string, input: { chainId: number; orderHashes: string[] }) {
  const chain = getChain(ctx.env, input.chainId);
  const project = await getProjectRow(ctx, projectId);
  const jobId = crypto.randomUUID();
  const results: { id: string; result: BuyResultItem[] }[] = [];
  // One at a time, in the caller's order, so nonces follow the list.
  for (const orderHash of [...new Set(input.orderHashes)]) {
    try {
      const order = await fillableOrder(ctx, chain, orderHash);
      const fulfilment = encodeFulfilment(JSON.parse(order.parameters) as OrderComponentsJson, order.signature);
      const { transaction } = await sendFromProjectWallet(ctx, project, {
        jobId,
        chainId: chain.chainId,
        kind: "buy",
        subjectId: orderHash,
        to: chain.seaportAddress,
        data: fulfilment.data,
        value: fulfilment.value.toString(),
        metadata: null,
        payload: null,
        revertAbi: "seaport",
      });
      results.push({ id: orderHash, result: [{ type: "transaction", result: transaction }] });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      results.push({ id: orderHash, result: [{ type: "error", result: { code: error.code, message: error.message } }] });
    }
  }
  return results;
}
