// What the engine is given at module load: every kind of transaction the service sends, each
// defined in its own feature folder, and the webhooks that announce them. The Worker entry
// (src/index.ts) and both engine Durable Objects import this module, so every isolate that runs
// the engine has it; the engine imports no feature (docs/architecture.md).
import { announceTransactionsWith } from "./engine/announcer";
import { registerTransactionKinds } from "./engine/kinds";
import { claimKind, deployKind, mintKind } from "./drops/transaction-kinds";
import { approveKind, buyKind, transferKind } from "./project-wallet/transaction-kinds";
import { nonceFillKind } from "./transactions/transaction-kinds";
import { webhookAnnouncer } from "./webhooks/transaction-events";

registerTransactionKinds([deployKind, claimKind, mintKind, transferKind, buyKind, approveKind, nonceFillKind]);
announceTransactionsWith(webhookAnnouncer);
