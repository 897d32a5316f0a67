// A WalletSequencer's reservation books (services/engine/token-reservations.ts), one per drop
// contract. Storage: `reservation:<lower-case contract>` = the book, kept in memory and written
// through (stored-map.ts), so every request of the object works on the same copy of a book.
import { StoredMap } from "./stored-map";
import { openBook, upgradeBook, type ReservationBook, type StoredBook } from "./token-reservations";

export class ReservationBooks {
  private readonly books: StoredMap<StoredBook>;

  constructor(storage: DurableObjectStorage) {
    this.books = new StoredMap(storage, "reservation:");
  }

  /** The contract's book, opened at the drop's next id when the wallet never minted on it. */
  async forMint(contract: string, initialNextTokenId: number): Promise<ReservationBook> {
    const existing = await this.existing(contract);
    if (existing) return existing;
    const opened = openBook(initialNextTokenId);
    this.books.set(contract.toLowerCase(), opened);
    return opened;
  }

  /** Synchronous on purpose: the change and its write happen with no request in between. */
  change<T>(contract: string, book: ReservationBook, apply: (book: ReservationBook) => T): T {
    const result = apply(book);
    this.books.set(contract.toLowerCase(), book);
    return result;
  }

  /** Changes an existing book (settlement, a released nonce); nothing if the wallet never minted there. */
  async update(contract: string, apply: (book: ReservationBook) => void): Promise<void> {
    const book = await this.existing(contract);
    if (book) this.change(contract, book, apply);
  }

  private async existing(contract: string): Promise<ReservationBook | undefined> {
    await this.books.load();
    const key = contract.toLowerCase();
    const stored = this.books.get(key);
    if (!stored || "anchor" in stored) return stored;
    // A book in the old counter form: upgraded once, so every request shares the new object.
    const upgraded = upgradeBook(stored);
    this.books.set(key, upgraded);
    return upgraded;
  }
}
