// POST /v1/project-wallet/drops/deploy (DESIGN §4 "Deploy"): a DropERC721 clone through the
// DropFactory with CREATE2, so the address is known before the transaction is mined.
import { and, eq } from "drizzle-orm";
import { checksumAddress } from "../../chain/address";
import { encodeCreateDrop, MAX_UNIT_PRICE, predictDropAddress, provenanceHashOf, ZERO_ADDRESS, ZERO_BYTES32 } from "../../chain/drop-contract";
import { erc20Decimals } from "../../chain/erc20";
import { classifySimulationError } from "../../chain/rpc-errors";
import { collections, dropAllowlists, drops, tokenMetadata } from "../../db/schema";
import { getChain, type ChainConfig } from "../../lib/chains";
import { AppError, OutcomeUnknownError, validationError } from "../../lib/errors";
import type { DropView, TokenMetadata } from "../../schemas/resources";
import type { ServiceContext } from "../context";
import { metadataObjectKey, toOpenSeaMetadata } from "../metadata/token-metadata";
import { getProjectRow } from "../projects";
import { assertOwnProject, sendFromProjectWallet } from "../project-wallet/send";
import type { TransactionView } from "../engine/transaction-view";
import { dropView } from "../views";
import { tokenMetadataRow } from "./minted-metadata";
import { storeAllowlistTree } from "./allowlist";
import { buildAllowlist, parseWhitelist } from "./whitelist";

export interface DeployDropInput {
  chainId: number;
  name: string;
  mode: "standard" | "badge";
  defaultTokenMetadata?: TokenMetadata;
  description?: string;
  symbol?: string;
  totalSupply?: number;
  unitPrice?: number;
  startTime?: string;
  limitPerWallet?: number;
  whitelist?: string;
  currencyAddress?: string;
  creatorFeeAddress?: string;
  creatorFeeBps?: number;
  projectId?: string;
  metadataStorageType: "s3" | "metadata-api" | "self-hosted";
  baseUri?: string;
}

const randomHex32 = () => `0x${[...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("")}`;

/** "Genesis Pass" → "GP": the upper-cased first letter of each word (letters and digits only). */
export function defaultSymbol(name: string): string {
  const initials = name
    .split(/\s+/)
    .map((word) => word.match(/[\p{L}\p{N}]/u)?.[0] ?? "")
    .join("")
    .toUpperCase()
    .slice(0, 11);
  return initials || "DROP";
}

/** `value` smallest units as whole units in decimal, without trailing zeros. */
function wholeUnits(value: bigint, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const fraction = (value % unit).toString().padStart(decimals, "0").replace(/0+$/, "");
  return fraction ? `${value / unit}.${fraction}` : String(value / unit);
}

/**
 * A decimal amount in whole units (0.01) → smallest units, exactly, or a 400 naming the field.
 * The schema bounds the amount for 18 decimals; the bound of the currency's own decimals is here.
 */
export function toSmallestUnit(amount: number, decimals: number, field: string): bigint {
  const text = amount.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
  const [whole, fraction = ""] = text.split(".");
  if (fraction.length > decimals) throw validationError(field, `has more than ${decimals} decimal places for this currency`);
  const value = BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
  if (value > MAX_UNIT_PRICE) throw validationError(field, `is too large for this currency: at most ${wholeUnits(MAX_UNIT_PRICE, decimals)} (the contract's uint96 price, in units of 10^-${decimals})`);
  // Below about 5e-21 the number prints as "0": a price that small must not make the drop free.
  if (value === 0n && amount > 0) throw validationError(field, `has more than ${decimals} decimal places for this currency`);
  return value;
}

/** 10^77 is the largest power of ten a uint256 holds: a token with more decimals has no whole unit. */
const MAX_DECIMALS = 77;

async function currencyDecimals(chain: ChainConfig, currencyAddress: string | undefined): Promise<number> {
  if (!currencyAddress) return 18;
  let decimals: number;
  try {
    decimals = await erc20Decimals(chain.rpcUrl, currencyAddress);
  } catch (error) {
    if (classifySimulationError(error).kind === "unavailable") throw new AppError("chain_unavailable", `chain ${chain.chainId} RPC did not answer decimals()`);
    throw validationError("body.currencyAddress", "is not an ERC20 token on this chain (decimals() failed)");
  }
  if (decimals > MAX_DECIMALS) throw validationError("body.currencyAddress", `reports ${decimals} decimals; at most ${MAX_DECIMALS} fit a uint256 price`);
  return decimals;
}

/**
 * The baseURI the contract is deployed with, pointing at the metadata route. It is written on chain
 * for good, so a PUBLIC_URL written with a trailing slash must not make it `…//v1/…`, which no route matches.
 */
export function metadataBaseUri(publicUrl: string, chainId: number, contractAddress: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/v1/metadata/${chainId}/${checksumAddress(contractAddress)}/`;
}

export async function deployDrop(
  ctx: ServiceContext,
  keyProjectId: string,
  input: DeployDropInput,
): Promise<{ drop: DropView; transactions: TransactionView[] }> {
  assertOwnProject(input.projectId, keyProjectId);
  const chain = getChain(ctx.env, input.chainId);
  if (/^0x0{40}$/i.test(chain.dropFactoryAddress)) {
    throw new AppError("unsupported_chain", `no DropFactory is configured for chain ${chain.chainId}`);
  }
  const project = await getProjectRow(ctx, keyProjectId);

  // Everything a client can get wrong is checked before anything is written or signed.
  // An empty whitelist is a 400 from the parser, never a drop open to everyone (decision 10).
  const allowlist = input.whitelist !== undefined ? buildAllowlist(parseWhitelist(input.whitelist)) : null;
  const decimals = await currencyDecimals(chain, input.currencyAddress);
  const unitPrice = toSmallestUnit(input.unitPrice ?? 0, decimals, "body.unitPrice");
  const startTime = input.startTime ? new Date(input.startTime) : null;

  const dropId = crypto.randomUUID();
  const salt = randomHex32();
  const blindboxKey = randomHex32();
  const provenanceHash = provenanceHashOf(blindboxKey);
  let contractAddress: string;
  try {
    contractAddress = await predictDropAddress(chain.rpcUrl, chain.dropFactoryAddress, project.walletAddress, salt);
  } catch {
    throw new AppError("chain_unavailable", `chain ${chain.chainId} RPC did not answer`);
  }
  const selfHosted = input.metadataStorageType === "self-hosted";
  const baseUri = selfHosted ? input.baseUri! : metadataBaseUri(ctx.env.PUBLIC_URL, chain.chainId, contractAddress);
  const creatorFeeAddress = (input.creatorFeeAddress ?? project.walletAddress).toLowerCase();
  const symbol = input.symbol ?? defaultSymbol(input.name);
  const now = new Date();

  const dropRow: typeof drops.$inferInsert = {
    id: dropId,
    projectId: project.id,
    chainId: chain.chainId,
    contractAddress,
    salt,
    name: input.name,
    symbol,
    description: input.description ?? "",
    ownerAddress: project.walletAddress.toLowerCase(),
    blindboxKey,
    provenanceHash,
    imageUrl: input.defaultTokenMetadata?.image ?? "",
    baseUri,
    mode: input.mode,
    metadataStorageType: input.metadataStorageType,
    metadataRepoId: selfHosted ? null : input.metadataStorageType === "s3" ? `r2:drops/${dropId}` : `d1:${dropId}`,
    creatorFeeAddress,
    creatorFeeBps: input.creatorFeeBps ?? 0,
    totalSupply: input.totalSupply ?? null,
    unitPrice: unitPrice.toString(),
    currencyAddress: input.currencyAddress ?? null,
    startTime,
    limitPerWallet: input.limitPerWallet ?? null,
    merkleRoot: allowlist?.merkleRoot ?? null,
    nextTokenId: 1,
    status: "pending",
    createdAt: now,
    updatedAt: now,
  };
  const createDropCall = encodeCreateDrop(salt, {
    owner: project.walletAddress,
    minter: project.walletAddress,
    name: input.name,
    symbol,
    baseURI: baseUri,
    mode: input.mode,
    maxSupply: input.totalSupply ?? 0,
    unitPrice,
    currency: input.currencyAddress ?? ZERO_ADDRESS,
    startTime: startTime ? Math.floor(startTime.getTime() / 1000) : 0,
    limitPerWallet: input.limitPerWallet ?? 0,
    merkleRoot: allowlist?.merkleRoot ?? ZERO_BYTES32,
    royaltyRecipient: creatorFeeAddress,
    royaltyBps: input.creatorFeeBps ?? 0,
    provenanceHash,
  });

  // Objects before rows: an object left by a failure is never read, a row without its object would be.
  if (input.metadataStorageType === "s3" && input.defaultTokenMetadata) {
    await ctx.env.METADATA.put(metadataObjectKey(dropId, "default"), JSON.stringify(toOpenSeaMetadata(input.defaultTokenMetadata)), {
      httpMetadata: { contentType: "application/json" },
    });
  }
  // Large trees live in R2; the others get their own row (decision 23).
  const inlineTree = allowlist ? await storeAllowlistTree(ctx, dropId, allowlist.tree) : null;
  // Rows first, so the watcher always finds the drop it marks deployed; removed if the send fails.
  await ctx.db.batch([
    ctx.db.insert(drops).values(dropRow),
    ...(inlineTree ? [ctx.db.insert(dropAllowlists).values({ dropId, tree: inlineTree, createdAt: now })] : []),
    ctx.db.insert(collections).values({
      id: crypto.randomUUID(),
      slug: `${chain.name}:${contractAddress}`,
      chainId: chain.chainId,
      contractAddress,
      schema: "ERC721",
      name: input.name,
      imageUrl: input.defaultTokenMetadata?.image ?? null,
      description: input.description ?? null,
      isVerified: false,
      dropId,
      tracked: true,
      createdAt: now,
      updatedAt: now,
    }),
    ...(input.defaultTokenMetadata && !selfHosted
      ? [ctx.db.insert(tokenMetadata).values(tokenMetadataRow(chain.chainId, contractAddress, "default", input.defaultTokenMetadata, now))]
      : []),
  ]);

  let transaction: TransactionView;
  try {
    ({ transaction } = await sendFromProjectWallet(ctx, project, {
      chainId: chain.chainId,
      kind: "deploy",
      subjectId: dropId,
      to: chain.dropFactoryAddress,
      data: createDropCall,
      value: "0",
      metadata: null,
      payload: null,
    }));
  } catch (error) {
    // The deploy may be on its way: its drop must be there for the watcher to mark.
    if (error instanceof OutcomeUnknownError) throw error;
    // Refused before anything was sent (sendFromProjectWallet answers a sent transaction even
    // when its own bookkeeping after the send fails), so the drop never existed.
    await ctx.db.batch([
      ctx.db.delete(tokenMetadata).where(and(eq(tokenMetadata.chainId, chain.chainId), eq(tokenMetadata.contractAddress, contractAddress))),
      ctx.db.delete(collections).where(eq(collections.dropId, dropId)),
      ctx.db.delete(dropAllowlists).where(eq(dropAllowlists.dropId, dropId)),
      ctx.db.delete(drops).where(eq(drops.id, dropId)),
    ]);
    throw error;
  }
  // The row as written: reading it back could fail after the send, and the watcher only ever changes its status.
  return { drop: dropView({ ...dropRow, deployTransactionId: null } as typeof drops.$inferSelect, project.id), transactions: [transaction] };
}
