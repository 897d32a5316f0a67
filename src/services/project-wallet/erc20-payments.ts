// ERC20-priced listings: Seaport pulls the price from the project wallet, which needs the
// wallet's token balance and its allowance for Seaport. One buy request reads both once per
// token and tracks what its own orders have committed; a missing allowance is granted once per
// token, unlimited, right before the first fill that needs it (decision 20), and nonce order
// keeps the approval ahead of the fills. An approval another request already has on its way is
// refused by the wallet's sequencer, and this request's fills then trust it (decision 25).
import { erc20Allowance, erc20Balance } from "../../chain/erc20";
import { classifySimulationError } from "../../chain/rpc-errors";
import type { ChainConfig } from "../../lib/chains";
import { AppError } from "../../lib/errors";
import { MAX_UINT256 } from "../../lib/uint256";

export const UNLIMITED_ALLOWANCE = MAX_UINT256;

interface TokenBudget {
  balance: bigint;
  /** Allowance on chain when the request started. */
  allowance: bigint;
  committed: bigint;
  approvalSent: boolean;
}

export interface Erc20Payment {
  /** Send an approval before the fill. */
  needsApproval: boolean;
  /**
   * The fill depends on an approval not mined yet (sent just now or earlier in this request), so
   * it cannot be simulated and goes out with a fixed gas limit.
   */
  dependsOnApproval: boolean;
}

export class Erc20Payments {
  private readonly budgets = new Map<string, TokenBudget>();

  constructor(
    private readonly chain: ChainConfig,
    private readonly walletAddress: string,
  ) {}

  /** Commits `amount` of `token` to one fill; insufficient_funds when the balance cannot cover this request's fills. */
  async commit(token: string, amount: bigint): Promise<Erc20Payment> {
    const budget = await this.budget(token);
    if (budget.balance < budget.committed + amount) {
      const earlier = budget.committed ? ` on top of ${budget.committed} for earlier orders in this request` : "";
      throw new AppError("insufficient_funds", `the project wallet holds ${budget.balance} of token ${token}; this order needs ${amount}${earlier}`);
    }
    budget.committed += amount;
    const dependsOnApproval = budget.allowance < budget.committed;
    return { needsApproval: dependsOnApproval && !budget.approvalSent, dependsOnApproval };
  }

  /** The fill did not go out: its amount is free again for the next orders. */
  uncommit(token: string, amount: bigint) {
    const budget = this.budgets.get(token.toLowerCase());
    if (budget) budget.committed -= amount;
  }

  approvalSent(token: string) {
    const budget = this.budgets.get(token.toLowerCase());
    if (budget) budget.approvalSent = true;
  }

  private async budget(token: string): Promise<TokenBudget> {
    const key = token.toLowerCase();
    const known = this.budgets.get(key);
    if (known) return known;
    const [balance, allowance] = await Promise.all([
      erc20Balance(this.chain.rpcUrl, token, this.walletAddress),
      erc20Allowance(this.chain.rpcUrl, token, this.walletAddress, this.chain.seaportAddress),
    ]).catch((error: unknown) => {
      if (classifySimulationError(error).kind === "unavailable") {
        throw new AppError("chain_unavailable", `chain ${this.chain.chainId} RPC did not answer the balance and allowance of token ${token}`);
      }
      throw new AppError("order_not_fillable", `the order's currency ${token} does not answer balanceOf and allowance as an ERC20 does`);
    });
    const budget = { balance, allowance, committed: 0n, approvalSent: false };
    this.budgets.set(key, budget);
    return budget;
  }
}
