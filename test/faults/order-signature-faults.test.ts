// A contract offerer's signature is checked by asking the wallet (EIP-1271). Its answer decides;
// no answer must not read as "invalid signature" (a 400 the seller cannot fix), but as an outage.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { ChainUnavailableError } from "../../src/chain/chain-unavailable";
import { offererSignature, type OrderComponentsJson } from "../../src/chain/seaport";
import { getChain } from "../../src/lib/chains";
import { rpc } from "../helpers/chain";

const contractWallet = "0x000000000000000000000000000000000000c0de";
const zero32 = `0x${"0".repeat(64)}`;
const order: OrderComponentsJson = {
  offerer: contractWallet,
  zone: "0x0000000000000000000000000000000000000000",
  offer: [{ itemType: 2, token: "0x0000000000000000000000000000000000000d0e", identifierOrCriteria: "1", startAmount: "1", endAmount: "1" }],
  consideration: [
    { itemType: 0, token: "0x0000000000000000000000000000000000000000", identifierOrCriteria: "0", startAmount: "1000", endAmount: "1000", recipient: contractWallet },
  ],
  orderType: 0,
  startTime: "0",
  endTime: "99999999999",
  zoneHash: zero32,
  salt: zero32,
  conduitKey: zero32,
  counter: "0",
};
const signature = `0x${"11".repeat(65)}`;

const setFaults = (rules: unknown[]) => fetch(`${env.PROXY_URL}/__faults`, { method: "POST", body: JSON.stringify(rules) });
const check = () => {
  const chain = getChain(env, 1868);
  return offererSignature(chain.rpcUrl, chain.chainId, chain.seaportAddress, order, signature);
};

describe("EIP-1271 offerer signature", () => {
  afterEach(() => setFaults([]));

  it("is a 'no' when the wallet answers without the magic value", async () => {
    // One STOP opcode: code is there, every call returns no data.
    await rpc("anvil_setCode", [contractWallet, "0x00"]);
    await expect(check()).resolves.toBeNull();
  });

  it("is an outage, not a 'no', when the node does not answer the wallet's call", async () => {
    await rpc("anvil_setCode", [contractWallet, "0x00"]);
    await setFaults([{ method: "eth_call", action: "fail" }]);
    await expect(check()).rejects.toBeInstanceOf(ChainUnavailableError);
  });
});
