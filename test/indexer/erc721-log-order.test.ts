// ERC-721 Transfer effects applied out of chain order (decision 53): only the token's latest
// transfer decides its owner and whether its asset row exists. A contract that can mint a burned
// id again shows why the burn's delete carries the same guard: the indexer can reach the burn
// after a receipt already applied the later mint.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Erc721Transfer } from "../../src/chain/transfer-logs";
import { claimLog, erc721TransferStatements, newLogGuard, type AssetFields } from "../../src/services/chain-events/apply";
import { randomHash, seedCollection, uniqueAddress } from "../fixtures/seed";

const ZERO = "0x0000000000000000000000000000000000000000";
const fields: AssetFields = { name: "Minted again", description: null, imageUrl: null, animationUrl: null, tokenUri: null };

function transferLog(contract: string, from: string, to: string, blockNumber: number): Erc721Transfer {
  return { contract, from, to, tokenId: "1", logIndex: 0, blockNumber, blockHash: randomHash(), transactionHash: randomHash() };
}

async function apply(transfer: Erc721Transfer, asset: AssetFields | null = null) {
  const guard = newLogGuard(1868, transfer);
  await env.DB.batch([claimLog(env.DB, guard), ...erc721TransferStatements(env.DB, guard, transfer, asset)]);
}

const tokenState = async (contract: string) => ({
  asset: await env.DB.prepare("select name from assets where contract_address = ? and token_id = '1'").bind(contract).first<{ name: string }>(),
  owners: (
    await env.DB.prepare("select owner_address from ownerships where contract_address = ? and token_id = '1'").bind(contract).all<{ owner_address: string }>()
  ).results.map((row) => row.owner_address),
});

describe("an ERC-721 burn applied after a later mint of the same id", () => {
  it("keeps the asset and its new owner; a burn after that mint removes both", async () => {
    const { contractAddress: contract } = await seedCollection();
    const [first, second] = [uniqueAddress(), uniqueAddress()];

    // Chain order: mint to `first` (block 10), burn (block 20), mint again to `second` (block 30).
    // Applied order: the first mint, then the re-mint (a receipt), then the burn (the indexer).
    await apply(transferLog(contract, ZERO, first, 10), fields);
    await apply(transferLog(contract, ZERO, second, 30), fields);
    await apply(transferLog(contract, first, ZERO, 20));
    expect(await tokenState(contract)).toEqual({ asset: { name: "Minted again" }, owners: [second] });

    await apply(transferLog(contract, second, ZERO, 40));
    expect(await tokenState(contract)).toEqual({ asset: null, owners: [] });
  });
});
