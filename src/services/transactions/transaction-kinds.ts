// `nonce_fill`: a 0-value transfer from the project wallet to itself that takes a nonce. The
// engine's own fillers (a cancellation, a deadline, a gap) go out under the transaction whose
// nonce they take and end it `failed`; a row of this kind is only ever read (engine/kinds.ts).
import { defineTransactionKind } from "../engine/kinds";
import { receiptEffectsOnly } from "../indexer/receipt-effects";

export const nonceFillKind = defineTransactionKind({
  name: "nonce_fill",
  outcome: { confirmed: receiptEffectsOnly },
});
