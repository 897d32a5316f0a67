// Request bodies of the project-wallet endpoints (DESIGN §4), strict: unknown fields are 400.
import { z } from "@hono/zod-openapi";
import { AddressInput, LinkUrl, PositiveUintString, Uuid } from "./common";
import { jsonByteSize } from "./json-bounds";
import { TokenMetadataSchema } from "./resources";

const DEFAULT_CHAIN = 1868;
/**
 * The claim's overrides ride in its transaction's D1 row (payload), and D1 refuses a row over
 * 2,000,000 bytes; a 1 MiB body can decode to about 3 MB (each invalid UTF-8 byte becomes U+FFFD).
 */
const MAX_OVERRIDE_METADATA_BYTES = 1_000_000;
/**
 * The largest `unitPrice` (whole units) the native currency's 18 decimals fit into the contract's
 * uint96 price: (2^96 − 1) / 10^18 = 79228162514.264337593543950335, down to the largest JSON
 * number whose decimal form converts to at most that (the next one up, 79228162514.26434, is over
 * it). Stated for 18 decimals, the native currency's; a currency with more decimals has a lower
 * bound, which deploy checks against its decimals() (decision 122).
 */
export const MAX_NATIVE_UNIT_PRICE = 79228162514.26433;
const ChainIdWithDefault = z.number().int("must be an integer").positive("must be positive").default(DEFAULT_CHAIN).openapi({ example: 1868 });
const ProjectIdBody = Uuid.optional().openapi({ description: "Must be the key's own project when given (403 otherwise)" });

export const DeployDropBody = z
  .strictObject({
    chainId: ChainIdWithDefault,
    name: z.string().trim().min(1).max(100),
    mode: z.enum(["standard", "badge"]).default("standard").openapi({ description: "badge = soulbound: transfers revert; mint and burn work" }),
    defaultTokenMetadata: TokenMetadataSchema.optional().openapi({ description: "Required when metadataStorageType is s3 or metadata-api" }),
    description: z.string().max(5000).optional(),
    symbol: z.string().trim().min(1).max(16).optional().openapi({ description: "Defaults to the upper-cased leading letters of the name's words" }),
    totalSupply: z.number().int().min(1).max(1_000_000_000).optional().openapi({ description: "Omitted = unlimited" }),
    unitPrice: z
      .number()
      .min(0)
      .max(MAX_NATIVE_UNIT_PRICE, `must be at most ${MAX_NATIVE_UNIT_PRICE} (the contract's uint96 price at 18 decimals)`)
      .optional()
      .openapi({
        description: `Public claim price in whole currency units (0.01 = 0.01 ETH); default 0. The contract keeps it as a uint96 in the currency's smallest unit: at most ${MAX_NATIVE_UNIT_PRICE} for 18 decimals (the native currency); a currency with more decimals allows less, and a price over its bound is a 400 on body.unitPrice naming it`,
      }),
    startTime: z.iso
      .datetime({ offset: true })
      .refine((value) => Date.parse(value) >= 0, "must be 1970-01-01T00:00:00Z or later")
      .optional()
      .openapi({ description: "ISO 8601, 1970 or later; public claims open then" }),
    limitPerWallet: z.number().int().min(1).max(1_000_000).optional().openapi({ description: "Omitted = unlimited" }),
    whitelist: z
      .string()
      .max(2_000_000)
      .optional()
      .openapi({ description: "Newline-separated `<address>,<maxClaimable>,<price in smallest unit>` lines; a bad line is a 400 naming its line number" }),
    currencyAddress: AddressInput.optional().openapi({ description: "ERC20 currency; omitted = native currency" }),
    creatorFeeAddress: AddressInput.optional().openapi({ description: "Royalty recipient; defaults to the project wallet" }),
    creatorFeeBps: z.number().int().min(0).max(10_000).optional().openapi({ description: "0..10000; default 0" }),
    projectId: ProjectIdBody,
    metadataStorageType: z.enum(["s3", "metadata-api", "self-hosted"]).default("s3"),
    baseUri: LinkUrl.optional()
      .openapi({ description: "An http(s), ipfs://, ipns:// or ar:// URL. Required when metadataStorageType is self-hosted, and only then: s3 and metadata-api drops get the service's own metadata URL, so a baseUri beside them is a 400 rather than silently ignored" }),
  })
  .superRefine((body, ctx) => {
    if (body.metadataStorageType === "self-hosted" && !body.baseUri) {
      ctx.addIssue({ code: "custom", path: ["baseUri"], message: "required when metadataStorageType is self-hosted" });
    }
    if (body.metadataStorageType !== "self-hosted" && !body.defaultTokenMetadata) {
      ctx.addIssue({ code: "custom", path: ["defaultTokenMetadata"], message: `required when metadataStorageType is ${body.metadataStorageType}` });
    }
    if (body.metadataStorageType !== "self-hosted" && body.baseUri) {
      ctx.addIssue({ code: "custom", path: ["baseUri"], message: "only allowed when metadataStorageType is self-hosted" });
    }
  })
  .openapi("DeployDropRequest", {
    example: {
      chainId: 1868,
      name: "Genesis Pass",
      metadataStorageType: "metadata-api",
      defaultTokenMetadata: { name: "Genesis Pass", image: "https://example.com/pass.png" },
      totalSupply: 1000,
      unitPrice: 0.01,
      creatorFeeBps: 500,
    },
  });

export const ClaimBody = z
  .strictObject({
    projectId: ProjectIdBody,
    chainId: ChainIdWithDefault,
    contractAddress: AddressInput,
    recipientAddress: AddressInput,
    quantity: z.number().int("must be an integer").min(1).max(200).default(1),
    overrideMetadata: z
      .array(TokenMetadataSchema)
      .max(200)
      .optional()
      .openapi({ description: `Exactly \`quantity\` entries; entry i applies to the i-th minted token. At most ${MAX_OVERRIDE_METADATA_BYTES} bytes as JSON in all` }),
  })
  .superRefine((body, ctx) => {
    if (body.overrideMetadata && body.overrideMetadata.length !== body.quantity) {
      ctx.addIssue({ code: "custom", path: ["overrideMetadata"], message: `must have exactly quantity (${body.quantity}) entries` });
    }
    const bytes = body.overrideMetadata ? jsonByteSize(body.overrideMetadata, Infinity) : null;
    if (bytes !== null && bytes > MAX_OVERRIDE_METADATA_BYTES) {
      ctx.addIssue({ code: "custom", path: ["overrideMetadata"], message: `is ${bytes} bytes as JSON; at most ${MAX_OVERRIDE_METADATA_BYTES} in all` });
    }
  })
  .openapi("ClaimRequest", {
    example: { chainId: 1868, contractAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3", recipientAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", quantity: 2 },
  });

export const MintBody = z
  .strictObject({
    chainId: ChainIdWithDefault,
    contractAddress: AddressInput,
    recipientAddress: AddressInput,
    // Any whole number: a legacy client's uint256 id arrives beyond 2^53, and the value is unused.
    tokenId: z
      .number()
      .min(0)
      .refine(Number.isInteger, "must be a whole number")
      .optional()
      .openapi({ description: "Accepted for compatibility and ignored: the drop assigns sequential ids" }),
    quantity: z.number().int("must be an integer").min(1).max(200).default(1),
    metadata: TokenMetadataSchema.optional().openapi({ description: "Applies to every minted token" }),
  })
  .openapi("MintRequest");

export const TransferBody = z
  .strictObject({
    type: z.enum(["native", "erc20"]),
    chainId: ChainIdWithDefault,
    recipientAddress: AddressInput,
    amount: PositiveUintString.openapi({ description: "Integer amount in the smallest unit" }),
    tokenAddress: AddressInput.optional().openapi({ description: "ERC20 contract; required when type is erc20" }),
  })
  .superRefine((body, ctx) => {
    if (body.type === "erc20" && !body.tokenAddress) ctx.addIssue({ code: "custom", path: ["tokenAddress"], message: "required when type is erc20" });
    if (body.type === "native" && body.tokenAddress) ctx.addIssue({ code: "custom", path: ["tokenAddress"], message: "only allowed when type is erc20" });
    // As for claims: nobody holds the zero address's key, so the amount would be burned.
    if (/^0x0{40}$/i.test(body.recipientAddress)) ctx.addIssue({ code: "custom", path: ["recipientAddress"], message: "cannot be the zero address (the amount would be burned)" });
  })
  .openapi("TransferRequest", { example: { type: "native", chainId: 1868, recipientAddress: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", amount: "1000000000000000" } });

export const BuyBody = z
  .strictObject({
    chainId: ChainIdWithDefault,
    orderHashes: z
      .array(z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte hex order hash"))
      .min(1)
      .max(20)
      // Results are one per hash, in the request's order and keyed by the hash as sent: a repeat
      // could only be an error item beside the real one, so it is refused up front.
      .superRefine((hashes, ctx) => {
        const first = new Map<string, number>();
        hashes.forEach((hash, index) => {
          const earlier = first.get(hash.toLowerCase());
          if (earlier === undefined) first.set(hash.toLowerCase(), index);
          else ctx.addIssue({ code: "custom", path: [index], message: `the same order as orderHashes.${earlier}` });
        });
      })
      .openapi({ description: "1–20 distinct Seaport order hashes, any case; each result's `id` is the hash as sent" }),
  })
  .openapi("BuyRequest");
