// One indexed range of busy blocks can name tens of thousands of transactions. D1 refuses a bound
// string over 1,000,000 bytes, so the indexer's lookups bind their lists in chunks: a list bound
// whole failed the range, and so the chain's indexing, on every run (decision 90).
import { env } from "cloudflare:workers";
import { encodeAbiParameters, encodeEventTopics, type Address, type Hex, type Log } from "viem";
import { describe, expect, it } from "vitest";
import { seaportAbi } from "../../src/chain/artifacts/seaport";
import { getChain } from "../../src/lib/chains";
import { applyLogs } from "../../src/services/indexer/apply-logs";
import { randomHash, uniqueAddress } from "../fixtures/seed";
import { recordingD1 } from "../helpers/d1-recorder";
import { seaportAddress } from "../helpers/seaport-basic-order";

const D1_MAX_STRING_BYTES = 1_000_000;
const EVENTS = 15_000;

/** A counter raised on Seaport by an offerer with no order in D1: nothing for the indexer to apply. */
function counterIncremented(seaport: string, index: number): Log {
  const blockNumber = 1_000_000 + Math.floor(index / 100);
  return {
    address: seaport as Address,
    topics: encodeEventTopics({ abi: seaportAbi, eventName: "CounterIncremented", args: { offerer: uniqueAddress() as Address } }) as [Hex, ...Hex[]],
    data: encodeAbiParameters([{ type: "uint256" }], [1n]),
    blockNumber: BigInt(blockNumber),
    blockHash: `0x${blockNumber.toString(16).padStart(64, "0")}`,
    transactionHash: randomHash() as Hex,
    transactionIndex: index % 100,
    logIndex: index % 100,
    removed: false,
  };
}

describe("a range with more events than one D1 parameter can list", () => {
  it(`binds no string over D1's limit for ${EVENTS} Seaport events in one range, and claims none of them`, async () => {
    const seaport = seaportAddress().toLowerCase();
    const logs = Array.from({ length: EVENTS }, (_, index) => counterIncremented(seaport, index));
    const { d1, statements } = recordingD1();
    const scope = { db: d1, chain: getChain(env, 1868), collections: new Map(), seaport, budget: { tokenUriLookups: 0 }, blockTimes: new Map(), webhookProjects: new Set<string>() };

    expect(await applyLogs(scope, logs)).toEqual({ stopBefore: null });
    const stringSizes = statements.flatMap((statement) => statement.params).map((param) => (typeof param === "string" ? new TextEncoder().encode(param).length : 0));
    expect(Math.max(...stringSizes)).toBeLessThan(D1_MAX_STRING_BYTES);
    // Every transaction was looked up (in chunks), and no counter of an offerer without orders was claimed.
    const lookedUp = statements.filter((statement) => statement.sql.includes("from chain_events")).flatMap((statement) => JSON.parse(statement.params[1] as string) as string[]);
    expect(new Set(lookedUp).size).toBe(EVENTS);
    expect(statements.some((statement) => /insert or ignore into chain_events/i.test(statement.sql))).toBe(false);
  });
});
