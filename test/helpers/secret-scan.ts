// Issue 6 "Secrets": every response the suite reads and every log line the Worker, its Durable
// Objects or the tests print is scanned for the mnemonic, the admin token, project wallets'
// private keys and plain API keys (a plain key may appear only in the response that created it).
// test/setup.ts fails the file if anything leaked.
import { TEST_ADMIN_TOKEN, TEST_WALLET_MNEMONIC } from "../fixtures/secrets";

const secrets = new Map<string, string>([
  [TEST_WALLET_MNEMONIC, "WALLET_MNEMONIC"],
  [TEST_ADMIN_TOKEN, "ADMIN_TOKEN"],
]);
const leaks: string[] = [];
let scanned = 0;

export function registerSecret(value: string, label: string) {
  if (value.length >= 16) secrets.set(value.toLowerCase().startsWith("0x") ? value.slice(2).toLowerCase() : value, label);
}

/** Labels of the registered secrets `text` contains (hex keys in any case). */
export function findSecrets(text: string): string[] {
  const lower = text.toLowerCase();
  return [...secrets].filter(([secret]) => text.includes(secret) || (/^[0-9a-f]{64}$/.test(secret) && lower.includes(secret))).map(([, label]) => label);
}

export function scanForSecrets(where: string, text: string) {
  scanned += 1;
  for (const label of findSecrets(text)) leaks.push(`${label} in ${where}`);
}

export const secretScanReport = () => ({ scanned, leaks: [...leaks] });
