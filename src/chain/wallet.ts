import { mnemonicToSeedSync } from "@scure/bip39";
import { HDKey, hdKeyToAccount, type HDAccount } from "viem/accounts";

// Deriving the seed from a mnemonic is deliberately slow (PBKDF2, 2048 rounds), so the master
// key and the derived accounts are memoised per isolate. Nothing here is ever serialised.
let master: { mnemonic: string; key: HDKey; accounts: Map<number, HDAccount> } | undefined;

export type ProjectAccount = HDAccount;

/** The project wallet: m/44'/60'/0'/0/{walletIndex} of WALLET_MNEMONIC. */
export function projectAccount(mnemonic: string, walletIndex: number): HDAccount {
  if (master?.mnemonic !== mnemonic) {
    master = { mnemonic, key: HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic)), accounts: new Map() };
  }
  let account = master.accounts.get(walletIndex);
  if (!account) {
    account = hdKeyToAccount(master.key, { addressIndex: walletIndex });
    master.accounts.set(walletIndex, account);
  }
  return account;
}

export const projectWalletAddress = (mnemonic: string, walletIndex: number): string =>
  projectAccount(mnemonic, walletIndex).address;
