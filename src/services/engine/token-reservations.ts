// Which token ids a wallet's mints on one drop will produce. The chain mints in nonce order, so
// a mint's first id is the id after the last mint the chain has confirmed (the anchor) plus the
// quantities of the wallet's unconfirmed mints with lower nonces. Predicting from nonces rather
// than from a running counter keeps predictions right when a nonce is given back and reused by
// a later request, and every confirmed mint re-anchors the book on the chain's own ids, so a
// drift (a mint from outside the service, a restart between reserving and sending) heals at the
// next confirmation.

export interface ReservationBook {
  /** After the wallet's transaction with nonce `nonce`, the chain mints `nextTokenId` next (nonce -1: when the book was opened). */
  anchor: { nonce: number; nextTokenId: number };
  /** Quantities of the wallet's mints above the anchor that have not confirmed, by nonce. */
  unconfirmed: Record<string, number>;
}

/** The book as stored before predictions followed nonces: `{nextTokenId, reserved}`. */
interface CounterBook {
  nextTokenId: number;
  reserved: number;
}

/** What `reservation:<contract>` may hold: the current book or the older counter. */
export type StoredBook = ReservationBook | CounterBook;

export function openBook(chainNextTokenId: number): ReservationBook {
  return { anchor: { nonce: -1, nextTokenId: chainNextTokenId }, unconfirmed: {} };
}

export function upgradeBook(stored: StoredBook): ReservationBook {
  if ("anchor" in stored) return stored;
  return { anchor: { nonce: -1, nextTokenId: stored.nextTokenId }, unconfirmed: {} };
}

/** Tokens minted or on their way, for the supply check (drop ids start at 1). */
export function reservedCount(book: ReservationBook): number {
  return book.anchor.nextTokenId - 1 + Object.values(book.unconfirmed).reduce((sum, quantity) => sum + quantity, 0);
}

export function predictFirstTokenId(book: ReservationBook, nonce: number): number {
  let first = book.anchor.nextTokenId;
  for (const [key, quantity] of Object.entries(book.unconfirmed)) {
    if (Number(key) < nonce) first += quantity;
  }
  return first;
}

/** Books `quantity` tokens for the mint sent with `nonce`; returns the first id it should produce. */
export function reserve(book: ReservationBook, nonce: number, quantity: number): number {
  const first = predictFirstTokenId(book, nonce);
  book.unconfirmed[nonce] = quantity;
  return first;
}

/** The mint with `nonce` was never sent, reverted or lost its nonce to a filler: it produces no ids. */
export function release(book: ReservationBook, nonce: number): void {
  delete book.unconfirmed[nonce];
}

/** The mint with `nonce` confirmed and the chain's next id after it is `nextTokenId`. */
export function anchorAt(book: ReservationBook, nonce: number, nextTokenId: number): void {
  // A receipt read late (an earlier nonce after a later one) knows less than the anchor already does.
  if (nonce <= book.anchor.nonce) return;
  book.anchor = { nonce, nextTokenId };
  for (const key of Object.keys(book.unconfirmed)) {
    if (Number(key) <= nonce) delete book.unconfirmed[key];
  }
}
