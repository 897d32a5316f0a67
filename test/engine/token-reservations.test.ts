// Token-id predictions for a wallet's mints follow its nonces and re-anchor on confirmed mints.
import { describe, expect, it } from "vitest";
import { anchorAt, openBook, predictFirstTokenId, release, reserve, reservedCount, upgradeBook } from "../../src/services/engine/token-reservations";

describe("token reservations", () => {
  it("predicts consecutive ids in nonce order from the drop's next id", () => {
    const book = openBook(1);
    expect([reserve(book, 10, 1), reserve(book, 11, 3), reserve(book, 12, 1)]).toEqual([1, 2, 5]);
    expect(reservedCount(book)).toBe(5);
  });

  it("gives a reused nonce the ids of its place in the nonce order, and later mints their ids unchanged", () => {
    const book = openBook(1);
    reserve(book, 10, 1);
    reserve(book, 11, 1); // never sent: its nonce is given back
    reserve(book, 12, 1);
    release(book, 11);
    expect(reserve(book, 11, 1)).toBe(2);
    expect(reserve(book, 13, 1)).toBe(4);
    expect(reservedCount(book)).toBe(4);
  });

  it("shifts later predictions down when a mint produces nothing (reverted or its nonce filled)", () => {
    const book = openBook(1);
    reserve(book, 10, 2);
    reserve(book, 11, 1);
    release(book, 10);
    expect(predictFirstTokenId(book, 11)).toBe(1);
    expect(reserve(book, 12, 1)).toBe(2);
  });

  it("re-anchors on a confirmed mint, so an outside mint is counted from then on", () => {
    const book = openBook(1);
    reserve(book, 10, 1);
    reserve(book, 11, 1);
    // Someone else minted id 1 first: nonce 10 produced 2, so 11 will produce 3.
    anchorAt(book, 10, 3);
    expect(predictFirstTokenId(book, 11)).toBe(3);
    expect(reserve(book, 12, 1)).toBe(4);
    expect(book.unconfirmed).toEqual({ 11: 1, 12: 1 });
  });

  it("ignores a confirmation read after a later one", () => {
    const book = openBook(1);
    reserve(book, 10, 1);
    reserve(book, 11, 1);
    anchorAt(book, 11, 3);
    anchorAt(book, 10, 2);
    expect(book.anchor).toEqual({ nonce: 11, nextTokenId: 3 });
    expect(reserve(book, 12, 1)).toBe(3);
  });

  it("reads a book stored as a counter", () => {
    expect(upgradeBook({ nextTokenId: 7, reserved: 6 })).toEqual(openBook(7));
  });
});
