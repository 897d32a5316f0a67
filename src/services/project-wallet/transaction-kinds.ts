// The project wallet's own transactions as the engine sees them (engine/kinds.ts): transfers,
// Seaport fills (buy) and the ERC20 approvals a fill in that currency needs first.
import { seaportAbi } from "../../chain/artifacts/seaport";
import { erc20Abi } from "../../chain/erc20";
import { defineTransactionKind } from "../engine/kinds";
import { receiptEffectsOnly } from "../indexer/receipt-effects";

export const transferKind = defineTransactionKind({
  name: "transfer",
  // A native transfer carries no call data, and no contract error to decode.
  revertAbi: (call) => (call.data === "0x" ? undefined : erc20Abi),
  outcome: { confirmed: receiptEffectsOnly },
});

/** One order, one fill in flight: a second could only revert (decision 24). */
export const buyKind = defineTransactionKind({
  name: "buy",
  revertAbi: seaportAbi,
  holdsSubject: true,
  outcome: { confirmed: receiptEffectsOnly },
});

/**
 * One approval of a token in flight, and for a minute after it is confirmed: a buy that read the
 * allowance before it was mined would otherwise approve again, and only burn gas (decision 25).
 */
export const approveKind = defineTransactionKind({
  name: "approve",
  revertAbi: erc20Abi,
  holdsSubject: { keptAfterConfirmedMs: 60_000 },
  outcome: { confirmed: receiptEffectsOnly },
});
