// POST /v1/project-wallet/transfer: native currency or an ERC20 from the project wallet.
import { encodeErc20Transfer, erc20Balance } from "../../chain/erc20";
import { classifySimulationError } from "../../chain/rpc-errors";
import { nativeBalance } from "../../chain/transactions";
import { getChain } from "../../lib/chains";
import { AppError } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { getProjectRow } from "../projects";
import type { TransactionView } from "../engine/transaction-view";
import { sendFromProjectWallet } from "./send";

export interface TransferInput {
  type: "native" | "erc20";
  chainId: number;
  recipientAddress: string;
  amount: string;
  tokenAddress?: string;
}

export async function transferFromProjectWallet(ctx: ServiceContext, projectId: string, input: TransferInput): Promise<TransactionView> {
  const chain = getChain(ctx.env, input.chainId);
  const project = await getProjectRow(ctx, projectId);
  const amount = BigInt(input.amount);
  let balance: bigint;
  try {
    balance =
      input.type === "native"
        ? await nativeBalance(chain.rpcUrl, project.walletAddress)
        : await erc20Balance(chain.rpcUrl, input.tokenAddress!, project.walletAddress);
  } catch (error) {
    // Only an answer that is not an ERC20's (no contract, a revert) is the client's doing.
    if (input.type === "native" || classifySimulationError(error).kind === "unavailable") {
      throw new AppError("chain_unavailable", `chain ${chain.chainId} RPC did not answer the balance read`);
    }
    throw new AppError("validation_error", "body.tokenAddress: is not an ERC20 token on this chain", [
      { path: "body.tokenAddress", message: "is not an ERC20 token on this chain" },
    ]);
  }
  if (balance < amount) {
    throw new AppError("insufficient_funds", `the project wallet holds ${balance} but the transfer needs ${amount}`, [
      { path: "body.amount", message: `exceeds the wallet balance of ${balance}` },
    ]);
  }
  const { transaction } = await sendFromProjectWallet(ctx, project, {
    chainId: chain.chainId,
    kind: "transfer",
    subjectId: null,
    to: input.type === "native" ? input.recipientAddress : input.tokenAddress!,
    data: input.type === "native" ? "0x" : encodeErc20Transfer(input.recipientAddress, amount),
    value: input.type === "native" ? amount.toString() : "0",
    metadata: null,
    payload: null,
  });
  return transaction;
}
