// Which Seaport fills are sales, and for how much. A sale is a listing-shaped fill: the offerer
// gives exactly one NFT (ERC-721 or ERC-1155, any amount) and the consideration is paid in one
// currency (native, or a single ERC-20). Bundles, swaps, mixed-currency orders and accepted
// offers (currency offered for an NFT) are not recorded: there is no single token price.
import type { SeaportEvent, SpentItem } from "../../chain/seaport-events";

export interface Sale {
  contract: string;
  tokenId: string;
  quantity: string;
  seller: string;
  buyer: string;
  /** Total the buyer paid (every consideration item: seller proceeds, creator and market fees). */
  price: string;
  /** null = native currency. */
  currency: string | null;
}

const NATIVE = 0;
const ERC20 = 1;
/** ERC721, ERC1155 and their criteria-based forms. */
const isNft = (item: SpentItem) => item.itemType >= 2 && item.itemType <= 5;

function paymentOf(items: SpentItem[]): { price: string; currency: string | null } | null {
  const first = items[0];
  if (!first || (first.itemType !== NATIVE && first.itemType !== ERC20)) return null;
  if (!items.every((item) => item.itemType === first.itemType && item.token === first.token)) return null;
  const total = items.reduce((sum, item) => sum + BigInt(item.amount), 0n);
  return { price: total.toString(), currency: first.itemType === NATIVE ? null : first.token };
}

export function saleOf(event: Extract<SeaportEvent, { kind: "OrderFulfilled" }>): Sale | null {
  const [nft, ...rest] = event.offer;
  if (!nft || rest.length || !isNft(nft)) return null;
  const payment = paymentOf(event.consideration);
  if (!payment) return null;
  return {
    contract: nft.token,
    tokenId: nft.identifier,
    quantity: nft.amount,
    seller: event.offerer,
    // Seaport names the fulfiller's chosen recipient; orders filled through match* name none
    // (zero address).
    buyer: event.recipient,
    ...payment,
  };
}
