// POST /v1/orders/listings: Seaport orders ready to sign (Reservoir-style steps), with the
// drop's creator fee as a consideration item. Nothing is listed until the signed order comes back.
import { and, eq } from "drizzle-orm";
import { erc20PaymentToken } from "../../chain/erc20";
import { canOperate, erc1155BalanceOf, erc721OwnerOf } from "../../chain/nft-reads";
import { encodeSetApprovalForAll, ITEM_TYPE, orderHashOf, orderTypedData, seaportCounter, ZERO_BYTES32, type OrderComponentsJson } from "../../chain/seaport";
import { checksumAddress } from "../../chain/address";
import { collections, drops } from "../../db/schema";
import { getChain } from "../../lib/chains";
import { AppError, validationError } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { saveDraft } from "./drafts";
import { checksummedOrder } from "./order-view";
import { isSoulbound, SOULBOUND_REFUSAL } from "./soulbound";
import { MAX_UINT256 } from "../../lib/uint256";

export interface ListingItemInput {
  contractAddress: string;
  tokenId: string;
  quantity: string;
  unitPrice: string;
  currencyAddress?: string;
}

export interface PrepareListingsInput {
  chainId: number;
  offerer: string;
  items: ListingItemInput[];
  startTime?: string;
  endTime?: string;
}

const ZERO = "0x0000000000000000000000000000000000000000";
const DEFAULT_DURATION_SECONDS = 30 * 24 * 3600;

const randomUint256 = () => BigInt(`0x${[...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("")}`).toString();

/** Seconds since the epoch; Seaport times are uint256, so none before 1970. */
function secondsOf(iso: string, path: string): bigint {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw validationError(path, "must be an ISO 8601 date-time");
  if (ms < 0) throw validationError(path, "must not be before 1970");
  return BigInt(Math.floor(ms / 1000));
}

function listingWindow(input: PrepareListingsInput): { start: bigint; end: bigint } {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const start = input.startTime ? secondsOf(input.startTime, "body.startTime") : now;
  const end = input.endTime ? secondsOf(input.endTime, "body.endTime") : start + BigInt(DEFAULT_DURATION_SECONDS);
  if (end <= start) throw validationError("body.endTime", "must be after startTime");
  if (end <= now) throw validationError("body.endTime", "must be in the future");
  return { start, end };
}

export async function prepareListings(ctx: ServiceContext, projectId: string, input: PrepareListingsInput) {
  const chain = getChain(ctx.env, input.chainId);
  const { start, end } = listingWindow(input);
  const offerer = input.offerer;
  const counter = await seaportCounter(chain.rpcUrl, chain.seaportAddress, offerer).catch(() => {
    throw new AppError("chain_unavailable", `chain ${chain.chainId} RPC did not answer`);
  });

  const prepared: { orderHash: string; typedData: ReturnType<typeof orderTypedData> }[] = [];
  const needsApproval = new Set<string>();
  // Items of one request usually share a currency: it is asked once.
  const paymentTokens = new Map<string, ReturnType<typeof erc20PaymentToken>>();
  const paymentToken = (token: string) => {
    if (!paymentTokens.has(token)) paymentTokens.set(token, erc20PaymentToken(chain.rpcUrl, token, offerer));
    return paymentTokens.get(token)!;
  };
  for (const [index, item] of input.items.entries()) {
    const at = `body.items.${index}`;
    const collection = await ctx.db
      .select()
      .from(collections)
      .where(and(eq(collections.chainId, chain.chainId), eq(collections.contractAddress, item.contractAddress)))
      .get();
    if (!collection) throw new AppError("not_found", `${at}.contractAddress: collection not found`, [{ path: `${at}.contractAddress`, message: "not a known collection" }]);
    const drop = collection.dropId ? await ctx.db.select().from(drops).where(eq(drops.id, collection.dropId)).get() : undefined;
    if (isSoulbound(drop?.mode)) throw validationError(`${at}.contractAddress`, SOULBOUND_REFUSAL);
    const quantity = BigInt(item.quantity);
    if (collection.schema === "ERC721" && quantity !== 1n) throw validationError(`${at}.quantity`, "must be 1 for an ERC721 token");
    if (quantity === 0n) throw validationError(`${at}.quantity`, "must be at least 1");
    const total = BigInt(item.unitPrice) * quantity;
    if (total > MAX_UINT256) throw validationError(`${at}.unitPrice`, "unitPrice × quantity must fit in uint256");

    // A read no node answered throws ChainUnavailableError: the error handler's 502.
    const owns =
      collection.schema === "ERC721"
        ? (await erc721OwnerOf(chain.rpcUrl, item.contractAddress, item.tokenId)) === offerer
        : (await erc1155BalanceOf(chain.rpcUrl, item.contractAddress, offerer, item.tokenId)) >= quantity;
    if (!owns) throw new AppError("not_token_owner", `${at}: the offerer does not own token ${item.tokenId}`, [{ path: `${at}.tokenId`, message: "not owned by the offerer" }]);
    // An ERC721 token approved to Seaport on its own needs no blanket approval (submit accepts either).
    const tokenForApproval = collection.schema === "ERC721" ? item.tokenId : undefined;
    if (!(await canOperate(chain.rpcUrl, item.contractAddress, offerer, chain.seaportAddress, tokenForApproval))) needsApproval.add(item.contractAddress);

    const fee = drop ? (total * BigInt(drop.creatorFeeBps)) / 10_000n : 0n;
    // Seaport refuses a payment of 0 (MissingItemAmount): a 100 % fee leaves the seller's item empty.
    if (fee === total) throw validationError(`${at}.contractAddress`, "the drop's creator fee is 100 %: the seller's payment would be 0, which Seaport cannot fill");
    // The zero address is how Seaport (and most marketplace APIs) name the native currency.
    const currency = item.currencyAddress ?? ZERO;
    const itemType = currency === ZERO ? ITEM_TYPE.NATIVE : ITEM_TYPE.ERC20;
    if (itemType === ITEM_TYPE.ERC20) {
      const check = await paymentToken(currency);
      if (!check.payable) throw validationError(`${at}.currencyAddress`, check.reason);
      if (fee > 0n && drop?.creatorFeeAddress === ZERO) throw validationError(`${at}.currencyAddress`, "the drop's creator fee goes to the zero address, which an ERC20 cannot pay");
    }
    const payment = (amount: bigint, recipient: string) => ({
      itemType,
      token: currency,
      identifierOrCriteria: "0",
      startAmount: amount.toString(),
      endAmount: amount.toString(),
      recipient,
    });
    const order: OrderComponentsJson = {
      offerer,
      zone: ZERO,
      offer: [
        {
          itemType: collection.schema === "ERC721" ? ITEM_TYPE.ERC721 : ITEM_TYPE.ERC1155,
          token: item.contractAddress,
          identifierOrCriteria: item.tokenId,
          startAmount: quantity.toString(),
          endAmount: quantity.toString(),
        },
      ],
      consideration: [payment(total - fee, offerer), ...(fee > 0n && drop ? [payment(fee, drop.creatorFeeAddress)] : [])],
      orderType: 0,
      startTime: start.toString(),
      endTime: end.toString(),
      zoneHash: ZERO_BYTES32,
      salt: randomUint256(),
      conduitKey: ZERO_BYTES32,
      counter: counter.toString(),
    };
    const orderHash = orderHashOf(order);
    await saveDraft(ctx, orderHash, { chainId: chain.chainId, parameters: order, projectId });
    prepared.push({ orderHash, typedData: orderTypedData(chain.chainId, chain.seaportAddress, checksummedOrder(order)) });
  }

  const approve = [...needsApproval].map((contract) => ({
    status: "incomplete" as const,
    data: { from: checksumAddress(offerer), to: checksumAddress(contract), data: encodeSetApprovalForAll(chain.seaportAddress), value: "0" },
  }));
  const steps = [
    ...(approve.length
      ? [{ id: "approve" as const, action: "Approve Seaport", description: "Let Seaport transfer the listed tokens (once per collection)", kind: "transaction" as const, items: approve }]
      : []),
    {
      id: "sign" as const,
      action: "Sign the listings",
      description: "Sign each order's EIP-712 typed data, then POST {signature, orderHash} to /v1/orders",
      kind: "signature" as const,
      items: prepared.map(({ orderHash, typedData }) => ({
        status: "incomplete" as const,
        orderHash,
        data: { sign: typedData, post: { endpoint: "/v1/orders", method: "POST", body: { orderHash } } },
      })),
    },
  ];
  return { orders: prepared, steps };
}
