// POST /v1/project-wallet/orders/buy: the project wallet fills listed Seaport orders, one
// transaction per order (an ERC20-priced order may get its token's approval first). An order
// that cannot be bought becomes an error item; the others go on.
import { eq } from "drizzle-orm";
import { encodeErc20Approve } from "../../chain/erc20";
import { encodeFulfilment, fillGasLimitWithoutEstimate } from "../../chain/seaport-fulfil";
import { fillStateProblem, ITEM_TYPE, seaportOrderStatus, signatureForFill, validationLost, type OrderComponentsJson } from "../../chain/seaport";
import { orders } from "../../db/schema";
import { getChain, type ChainConfig } from "../../lib/chains";
import { AppError, OutcomeUnknownError, type ErrorCode } from "../../lib/errors";
import { logError } from "../../lib/log";
import type { ServiceContext } from "../context";
import { recordSeaportEnd, recordValidationLost } from "../orders/seaport-end";
import { getProjectRow } from "../projects";
import type { TransactionView } from "../engine/transaction-view";
import { Erc20Payments, UNLIMITED_ALLOWANCE } from "./erc20-payments";
import { sendFromProjectWallet, SubjectStillPending } from "./send";

export type BuyResultItem =
  | { type: "transaction"; result: TransactionView }
  | { type: "error"; result: { code: ErrorCode; message: string } };

const unfillable = (message: string) => new AppError("order_not_fillable", message);
const buyStillPending = (transactionId: string) => unfillable(`this project's buy of the order is still pending (transaction ${transactionId})`);

/** A refusal because the same buy or approval is still unmined, as `onPending` says; other errors as they are. */
async function unlessStillPending<T, R>(sending: Promise<T>, onPending: (transactionId: string) => R): Promise<T | R> {
  try {
    return await sending;
  } catch (error) {
    if (error instanceof SubjectStillPending) return onPending(error.pendingTransactionId);
    throw error;
  }
}

async function fillableOrder(ctx: ServiceContext, chain: ChainConfig, orderHash: string) {
  const order = await ctx.db.select().from(orders).where(eq(orders.orderHash, orderHash)).get();
  // The marketplace issue's rule: an unknown order is one more order that cannot be bought.
  if (!order) throw unfillable("no listing with this order hash is known to the service");
  if (order.chainId !== chain.chainId) throw unfillable(`the order is on chain ${order.chainId}`);
  if (order.status !== "active") throw unfillable(`the order is ${order.status}`);
  if (order.endTime.getTime() <= Date.now()) throw unfillable("the order has expired");
  // Seaport refuses an order before its start time; the fill would only revert.
  if (order.startTime.getTime() > Date.now()) throw unfillable(`the order starts at ${order.startTime.toISOString()}`);
  const status = await seaportOrderStatus(chain.rpcUrl, chain.seaportAddress, orderHash).catch(() => {
    throw new AppError("chain_unavailable", `chain ${chain.chainId} RPC did not answer`);
  });
  const fillState = fillStateProblem(status);
  if (fillState) {
    // Best effort: the answer is the same whether or not the row could be corrected.
    await recordSeaportEnd(ctx.env.DB, chain.chainId, orderHash, status).catch((error) => logError(ctx.env, { where: "recordSeaportEnd", orderHash }, error));
    throw unfillable(fillState);
  }
  if (validationLost(order.signature, status)) {
    await recordValidationLost(ctx.env.DB, chain.chainId, orderHash).catch((error) => logError(ctx.env, { where: "recordValidationLost", orderHash }, error));
    throw unfillable("the order was listed as validated on chain with no signature, and Seaport no longer has it validated");
  }
  return order;
}

const erc20Total = (order: OrderComponentsJson) =>
  order.consideration.filter((item) => item.itemType === ITEM_TYPE.ERC20).reduce((sum, item) => sum + BigInt(item.startAmount), 0n);

export async function buyOrders(ctx: ServiceContext, projectId: string, input: { chainId: number; orderHashes: string[] }) {
  const chain = getChain(ctx.env, input.chainId);
  const project = await getProjectRow(ctx, projectId);
  const payments = new Erc20Payments(chain, project.walletAddress);
  const jobId = crypto.randomUUID();
  const send = (request: Omit<Parameters<typeof sendFromProjectWallet>[2], "jobId" | "chainId" | "metadata" | "payload">) =>
    sendFromProjectWallet(ctx, project, { ...request, jobId, chainId: chain.chainId, metadata: null, payload: null });
  const results: { id: string; result: BuyResultItem[] }[] = [];
  // Whether a transaction of this request is out, or may be (an engine answer that never came).
  let maybeSent = false;
  // One at a time, in the caller's order, so nonces follow the list (the hashes are distinct).
  for (const sentHash of input.orderHashes) {
    const orderHash = sentHash.toLowerCase();
    const items: BuyResultItem[] = [];
    let committed: { token: string; amount: bigint } | undefined;
    try {
      const order = await fillableOrder(ctx, chain, orderHash);
      const components = JSON.parse(order.parameters) as OrderComponentsJson;
      const fulfilment = encodeFulfilment(components, await signatureForFill(chain.chainId, chain.seaportAddress, components, order.signature));
      let gasLimit: bigint | undefined;
      if (order.currencyAddress) {
        const token = order.currencyAddress;
        const amount = erc20Total(components);
        const payment = await payments.commit(token, amount);
        committed = { token, amount };
        if (payment.needsApproval) {
          const approving = send({ kind: "approve", subjectId: token.toLowerCase(), to: token, data: encodeErc20Approve(chain.seaportAddress, UNLIMITED_ALLOWANCE), value: "0" });
          // A simultaneous request's approval got there first: the fill trusts that one (decision 25).
          const approval = await unlessStillPending(approving, () => null);
          payments.approvalSent(token);
          if (approval) {
            items.push({ type: "transaction", result: approval.transaction });
            maybeSent = true;
          }
        }
        if (payment.dependsOnApproval) gasLimit = fillGasLimitWithoutEstimate(components);
      }
      const filling = send({
        kind: "buy",
        subjectId: orderHash,
        to: chain.seaportAddress,
        data: fulfilment.data,
        value: fulfilment.value.toString(),
        ...(gasLimit ? { gasLimit: gasLimit.toString() } : {}),
      });
      const fill = await unlessStillPending(filling, (transactionId) => {
        throw buyStillPending(transactionId);
      });
      items.push({ type: "transaction", result: fill.transaction });
      maybeSent = true;
    } catch (error) {
      if (committed) payments.uncommit(committed.token, committed.amount);
      if (error instanceof OutcomeUnknownError) maybeSent = true;
      if (!(error instanceof AppError)) {
        // Nothing out yet: the request fails whole and can be retried. Once a transaction is (or
        // may be) out, the answer must name it (decision 28): this order gets an error item instead.
        if (!maybeSent) throw error;
        logError(ctx.env, { where: "buyOrders", orderHash }, error);
        items.push({ type: "error", result: { code: "internal_error", message: "this order could not be bought because of an internal error; no fill of it was sent" } });
      } else {
        items.push({ type: "error", result: { code: error.code, message: error.message } });
      }
    }
    results.push({ id: sentHash, result: items });
  }
  return results;
}
