import { checksumAddress } from "../../chain/address";
import type { transactions } from "../../db/schema";

type TransactionRow = typeof transactions.$inferSelect;

interface TransactionBase {
  id: string;
  jobId: string;
  projectId: string;
  chainId: number;
  transactionHash: string;
  from: string;
  to: string;
  value: string;
  data: string;
  metadata: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Unsettled {
  gasUsed: null;
  gasPrice: null;
  totalGasFee: null;
}

interface Mined {
  gasUsed: string;
  gasPrice: string;
  totalGasFee: string;
}

/** A transaction as the API shows it: a union keyed on `status`. */
export type TransactionView =
  | (TransactionBase & Unsettled & { status: "pending"; errorMessage: null })
  | (TransactionBase & Mined & { status: "confirmed"; errorMessage: null })
  | (TransactionBase & Mined & { status: "reverted"; errorMessage: string | null })
  | (TransactionBase & Unsettled & { status: "failed"; errorMessage: string });

export function transactionView(row: TransactionRow): TransactionView {
  // Rows are inserted with the hash they were signed with (insertPendingRow); the column is
  // nullable only because making it NOT NULL would rebuild the table (decision 47).
  if (row.transactionHash === null) throw new Error(`transaction ${row.id} has no hash`);
  const base: TransactionBase = {
    id: row.id,
    jobId: row.jobId,
    projectId: row.projectId,
    chainId: row.chainId,
    transactionHash: row.transactionHash,
    from: checksumAddress(row.fromAddress),
    to: checksumAddress(row.toAddress),
    value: row.value,
    data: row.data,
    metadata: row.metadata,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  const unsettled: Unsettled = { gasUsed: null, gasPrice: null, totalGasFee: null };
  const mined = (): Mined => ({ gasUsed: row.gasUsed ?? "0", gasPrice: row.gasPrice ?? "0", totalGasFee: row.totalGasFee ?? "0" });
  switch (row.status) {
    case "pending":
      return { ...base, ...unsettled, status: "pending", errorMessage: null };
    case "confirmed":
      return { ...base, ...mined(), status: "confirmed", errorMessage: null };
    case "reverted":
      return { ...base, ...mined(), status: "reverted", errorMessage: row.errorMessage };
    case "failed":
      return { ...base, ...unsettled, status: "failed", errorMessage: row.errorMessage ?? "not mined" };
  }
}
