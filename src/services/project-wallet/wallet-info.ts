import { nativeBalance } from "../../chain/transactions";
import { chainsFrom } from "../../lib/chains";
import type { ServiceContext } from "../context";
import { getProjectRow } from "../projects";

/** The wallet's native balance on every configured chain; an unreachable chain reports null. */
export async function projectWalletInfo(ctx: ServiceContext, projectId: string) {
  const project = await getProjectRow(ctx, projectId);
  const balances = await Promise.all(
    [...chainsFrom(ctx.env).values()].map(async (chain) => {
      try {
        const balance = await nativeBalance(chain.rpcUrl, project.walletAddress);
        return { chainId: chain.chainId, symbol: chain.nativeSymbol, balance: balance.toString() };
      } catch {
        return { chainId: chain.chainId, symbol: chain.nativeSymbol, balance: null, error: "chain RPC unreachable" };
      }
    }),
  );
  return { address: project.walletAddress, balances };
}
