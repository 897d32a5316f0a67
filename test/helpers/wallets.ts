import { createWalletClient, http, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { env } from "cloudflare:workers";
import { fund, chainClient } from "./chain";

const devnet = { id: 1868, name: "devnet", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [""] } } } as const;

/** A fresh funded key per test: parallel test files never share an account or its nonces. */
export async function freshWallet() {
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  await fund(account.address);
  const wallet = createWalletClient({ account, chain: devnet, transport: http(env.RPC_URL) });
  return {
    privateKey,
    account,
    address: account.address.toLowerCase() as Address,
    /** Deploys a contract and returns its address. */
    async deploy(abi: readonly unknown[], bytecode: Hex, args: readonly unknown[] = []) {
      const hash = await wallet.deployContract({ abi: abi as never, bytecode, args: args as never });
      const receipt = await chainClient().waitForTransactionReceipt({ hash, pollingInterval: 100 });
      return receipt.contractAddress!.toLowerCase() as Address;
    },
    /** Sends and waits for the receipt. */
    async send(tx: { to: string; data?: string; value?: bigint }) {
      const hash = await wallet.sendTransaction({ to: tx.to as Address, data: (tx.data ?? "0x") as Hex, value: tx.value ?? 0n });
      return chainClient().waitForTransactionReceipt({ hash, pollingInterval: 100 });
    },
  };
}
