// Seaport 1.6 events the marketplace reacts to, decoded into plain data (lower-case addresses and
// hashes, decimal-string amounts) so services never touch viem types. Shared by the indexer and
// the receipt handlers of buys.
import { decodeEventLog, getAbiItem, toEventSelector, type Log } from "viem";
import { seaportAbi } from "./artifacts/seaport";
import { logRef, type LogRef } from "./log-ref";

export type SpentItem = { itemType: number; token: string; identifier: string; amount: string };
export type ReceivedItem = SpentItem & { recipient: string };
export type SeaportEvent =
  | ({
      kind: "OrderFulfilled";
      orderHash: string;
      offerer: string;
      zone: string;
      recipient: string;
      offer: SpentItem[];
      consideration: ReceivedItem[];
    } & LogRef)
  | ({ kind: "OrderCancelled"; orderHash: string; offerer: string; zone: string } & LogRef)
  | ({ kind: "CounterIncremented"; newCounter: string; offerer: string } & LogRef);

const orderFulfilled = getAbiItem({ abi: seaportAbi, name: "OrderFulfilled" });
const orderCancelled = getAbiItem({ abi: seaportAbi, name: "OrderCancelled" });
const counterIncremented = getAbiItem({ abi: seaportAbi, name: "CounterIncremented" });
const events = [orderFulfilled, orderCancelled, counterIncremented];

export const ORDER_FULFILLED_TOPIC = toEventSelector(orderFulfilled);
export const ORDER_CANCELLED_TOPIC = toEventSelector(orderCancelled);
export const COUNTER_INCREMENTED_TOPIC = toEventSelector(counterIncremented);
/** topic0 values for an eth_getLogs filter on the Seaport contract. */
export const SEAPORT_EVENT_TOPICS = [ORDER_FULFILLED_TOPIC, ORDER_CANCELLED_TOPIC, COUNTER_INCREMENTED_TOPIC] as const;
/** The ABI items themselves, for viem's getLogs `events` filter. */
export const seaportEventAbis = events;

const TOPICS = new Set<string>(SEAPORT_EVENT_TOPICS);

const spent = (item: { itemType: number; token: string; identifier: bigint; amount: bigint }): SpentItem => ({
  itemType: item.itemType,
  token: item.token.toLowerCase(),
  identifier: item.identifier.toString(),
  amount: item.amount.toString(),
});

/** Seaport events emitted by `seaportAddress`, in the order given; other logs are ignored. */
export function decodeSeaportLogs(logs: readonly Log[], seaportAddress: string): SeaportEvent[] {
  const seaport = seaportAddress.toLowerCase();
  const decoded: SeaportEvent[] = [];
  for (const log of logs) {
    if (log.removed || log.address.toLowerCase() !== seaport || !log.topics[0] || !TOPICS.has(log.topics[0])) continue;
    let event;
    try {
      event = decodeEventLog({ abi: events, data: log.data, topics: log.topics });
    } catch {
      continue; // malformed data under a known topic: nothing we can apply
    }
    const ref = logRef(log);
    switch (event.eventName) {
      case "OrderFulfilled":
        decoded.push({
          kind: "OrderFulfilled",
          orderHash: event.args.orderHash.toLowerCase(),
          offerer: event.args.offerer.toLowerCase(),
          zone: event.args.zone.toLowerCase(),
          recipient: event.args.recipient.toLowerCase(),
          offer: event.args.offer.map(spent),
          consideration: event.args.consideration.map((item) => ({ ...spent(item), recipient: item.recipient.toLowerCase() })),
          ...ref,
        });
        break;
      case "OrderCancelled":
        decoded.push({
          kind: "OrderCancelled",
          orderHash: event.args.orderHash.toLowerCase(),
          offerer: event.args.offerer.toLowerCase(),
          zone: event.args.zone.toLowerCase(),
          ...ref,
        });
        break;
      case "CounterIncremented":
        decoded.push({ kind: "CounterIncremented", newCounter: event.args.newCounter.toString(), offerer: event.args.offerer.toLowerCase(), ...ref });
        break;
    }
  }
  return decoded;
}
