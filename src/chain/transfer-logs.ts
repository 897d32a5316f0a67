import { decodeEventLog, parseAbiItem, type Log } from "viem";

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)");
const ZERO = "0x0000000000000000000000000000000000000000";

export interface Erc721Transfer {
  contract: string;
  from: string;
  to: string;
  tokenId: string;
  logIndex: number;
  blockNumber: number;
  transactionHash: string;
}

/** ERC-721 Transfer logs (4 topics; ERC-20 Transfers have 3 and are skipped), addresses lower-case. */
export function erc721Transfers(logs: readonly Log[]): Erc721Transfer[] {
  const transfers: Erc721Transfer[] = [];
  for (const log of logs) {
    if (log.topics.length !== 4 || log.removed) continue;
    try {
      const { args } = decodeEventLog({ abi: [transferEvent], data: log.data, topics: log.topics });
      transfers.push({
        contract: log.address.toLowerCase(),
        from: args.from.toLowerCase(),
        to: args.to.toLowerCase(),
        tokenId: args.tokenId.toString(),
        logIndex: Number(log.logIndex),
        blockNumber: Number(log.blockNumber),
        transactionHash: log.transactionHash!.toLowerCase(),
      });
    } catch {
      // another event with the same shape of topics
    }
  }
  return transfers;
}

export const isMint = (transfer: Erc721Transfer) => transfer.from === ZERO;
export const isBurn = (transfer: Erc721Transfer) => transfer.to === ZERO;
