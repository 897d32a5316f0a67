// Badge drops are soulbound: their contract reverts every transfer, so Seaport could never fill
// a listing of their tokens, whoever built it. Listing one is refused up front (decision 85).
import type { drops } from "../../db/schema";

export const SOULBOUND_REFUSAL = "the collection is a badge drop: its tokens are soulbound (every transfer reverts), so Seaport could never fill a listing of them";

/** A drop's mode (null or undefined: not one of our drops) says its tokens cannot move. */
export const isSoulbound = (mode: (typeof drops.$inferSelect)["mode"] | null | undefined) => mode === "badge";
