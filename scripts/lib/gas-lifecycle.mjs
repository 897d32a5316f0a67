// The part of bench:gas that measures a drop after deploy: mintToMany airdrops to distinct new
// recipients, and each owner call the API sends (sale, royalty, base URI, withdrawals,
// ownership, ERC-4906 announcements, reveal). Runs after the deploy/mint/claim figures, so
// their drops, salts and wallets stay exactly what they were.
import { getAddress, keccak256, parseEther, toHex, zeroAddress, zeroHash } from "viem";

/** Sizes of the mintToMany series; 1,000 needs a block gas limit above 30M (the bench sets one). */
export const AIRDROP_SIZES = [1, 10, 100, 1000];

/** Two fresh storage words (ownership and balance: 20,000 + a 2,100 cold access each) and one log4. */
export const RECIPIENT_FLOOR = 2 * (20_000 + 2_100) + 375 + 4 * 375;

const recipients = (tag, count) =>
  Array.from({ length: count }, (_, i) => getAddress(`0x${keccak256(toHex(`bench ${tag} recipient ${i}`)).slice(-40)}`));

/**
 * ctx: { project, createDrop(overrides) -> {address}, call(from, address, contract, fn, args, value) -> gas,
 * deploy(contract) -> {address}, newAccount() -> account, price }
 */
export async function measureLifecycle(ctx) {
  return { airdrop: await measureAirdrops(ctx), owner: await measureOwnerCalls(ctx) };
}

async function measureAirdrops({ project, createDrop, call }) {
  const gas = {};
  for (const n of AIRDROP_SIZES) {
    const { address } = await createDrop();
    gas[n] = await call(project, address, "DropERC721", "mintToMany", [recipients(`airdrop ${n}`, n), Array(n).fill(1n)]);
  }
  return gas;
}

async function measureOwnerCalls({ project, createDrop, call, deploy, newAccount, price }) {
  const out = {};
  const drop = (await createDrop()).address;
  const conditions = { unitPrice: parseEther("0.02"), currency: zeroAddress, startTime: 1_900_000_000, limitPerWallet: 5, maxSupply: 20_000, merkleRoot: zeroHash };
  out.setClaimConditions = await call(project, drop, "DropERC721", "setClaimConditions", [conditions]);
  out.setClaimConditionsAllowlist = await call(project, drop, "DropERC721", "setClaimConditions", [{ ...conditions, merkleRoot: keccak256(toHex("bench allowlist root")) }]);
  out.setRoyalty = await call(project, drop, "DropERC721", "setRoyalty", [(await newAccount()).address, 750]);
  const uri = `https://api.mintyard.xyz/metadata/1868/${drop.toLowerCase()}/v2/`;
  out.setBaseURI = await call(project, drop, "DropERC721", "setBaseURI", [uri]);
  out.baseURIBytes = uri.length;
  out.announceOne = await call(project, drop, "DropERC721", "announceMetadataUpdate", [7n, 7n]);
  out.announceAll = await call(project, drop, "DropERC721", "announceMetadataUpdate", [1n, 2n ** 256n - 1n]);

  const key = keccak256(toHex("bench blind box key"));
  const blindBox = (await createDrop({ provenanceHash: keccak256(key) })).address;
  out.reveal = await call(project, blindBox, "DropERC721", "reveal", [key]);

  // Proceeds: one public claim in each currency, then the owner takes the whole balance.
  const nativeDrop = (await createDrop()).address;
  const claimer = await newAccount();
  await call(claimer, nativeDrop, "DropERC721", "claim", [claimer.address, 1n, [], 0n, 0n], price);
  out.withdrawNative = await call(project, nativeDrop, "DropERC721", "withdraw", [zeroAddress, project.address]);

  const token = (await deploy("TestERC20")).address;
  const erc20Drop = (await createDrop({ currency: token, unitPrice: 5_000_000n })).address;
  await call(claimer, token, "TestERC20", "mint", [claimer.address, 5_000_000n]);
  await call(claimer, token, "TestERC20", "approve", [erc20Drop, 5_000_000n]);
  await call(claimer, erc20Drop, "DropERC721", "claim", [claimer.address, 1n, [], 0n, 0n]);
  out.withdrawErc20 = await call(project, erc20Drop, "DropERC721", "withdraw", [token, project.address]);

  out.transferOwnership = await call(project, drop, "DropERC721", "transferOwnership", [(await newAccount()).address]);
  return out;
}

/** Table rows for the figures above; `row` is bench-gas's row builder, `singleMint` the mintTo q=1 to a new wallet. */
export function lifecycleRows({ airdrop, owner }, row, singleMint) {
  const perExtra = (n) => Math.round(((airdrop[n] - airdrop[1]) / (n - 1)) * 10) / 10;
  const single = "mintTo q=1 to a new wallet, this run";
  const target = `<= 50000 (floor ${RECIPIENT_FLOOR.toLocaleString("en-US")}: 2 fresh slots + Transfer log)`;
  return [
    ...AIRDROP_SIZES.map((n) =>
      row(`mintToMany, ${n.toLocaleString("en-US")} new recipient${n > 1 ? "s" : ""} (q=1 each), fresh drop`, airdrop[n], "gas", n === 1 ? singleMint : null, null, null, n === 1 ? single : undefined),
    ),
    ...AIRDROP_SIZES.slice(1).map((n) => {
      const v = perExtra(n);
      const last = n === AIRDROP_SIZES.at(-1);
      return row(`mintToMany per extra new recipient ((${n} recipients - 1) / ${n - 1})`, v, "gas/recipient", singleMint, last ? target : null, last ? v <= 50_000 : null, single);
    }),
    row("mintToMany storage floor per new recipient", RECIPIENT_FLOOR, "gas/recipient", null, null, null),
    row("setClaimConditions, first change (no allowlist)", owner.setClaimConditions, "gas", null, null, null),
    row("setClaimConditions, again, adding an allowlist root", owner.setClaimConditionsAllowlist, "gas", null, null, null),
    row("setRoyalty, first change", owner.setRoyalty, "gas", null, null, null),
    row(`setBaseURI, first change (${owner.baseURIBytes}-byte URI)`, owner.setBaseURI, "gas", null, null, null),
    row("announceMetadataUpdate, one token (MetadataUpdate)", owner.announceOne, "gas", null, null, null),
    row("announceMetadataUpdate, all tokens (BatchMetadataUpdate)", owner.announceAll, "gas", null, null, null),
    row("reveal (key checked against provenanceHash)", owner.reveal, "gas", null, null, null),
    row("withdraw, native proceeds to the owner", owner.withdrawNative, "gas", null, null, null),
    row("withdraw, ERC-20 proceeds to an owner holding none", owner.withdrawErc20, "gas", null, null, null),
    row("transferOwnership", owner.transferOwnership, "gas", null, null, null),
  ];
}
