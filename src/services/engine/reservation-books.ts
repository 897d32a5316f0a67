// A WalletSequencer's reservation books (services/engine/token-reservations.ts), one per drop
// contract. Storage: `reservation:<lower-case contract>` = the book. Each book lives in memory
// once loaded and is written through on every change, so every request of the object works on
// the same copy: a request that read storage, awaited, and wrote back could otherwise overwrite
// a reservation another request made in between (decision 25 met that with the holds).
import { openBook, upgradeBook, type ReservationBook, type StoredBook } from "./token-reservations";

const reservationKey = (contract: string) => `reservation:${contract.toLowerCase()}`;

export class ReservationBooks {
  private readonly books = new Map<string, ReservationBook>();

  constructor(private readonly storage: DurableObjectStorage) {}

  /** The contract's book, opened at the drop's next id when the wallet never minted on it. */
  async forMint(contract: string, initialNextTokenId: number): Promise<ReservationBook> {
    return (await this.load(contract)) ?? this.adopt(contract, openBook(initialNextTokenId));
  }

  /** Synchronous on purpose: the change and its write happen with no request in between. */
  change<T>(contract: string, book: ReservationBook, apply: (book: ReservationBook) => T): T {
    const result = apply(book);
    this.storage.put(reservationKey(contract), book);
    return result;
  }

  /** Changes an existing book (settlement, a released nonce); nothing if the wallet never minted there. */
  async update(contract: string, apply: (book: ReservationBook) => void): Promise<void> {
    const book = await this.load(contract);
    if (book) this.change(contract, book, apply);
  }

  private async load(contract: string): Promise<ReservationBook | undefined> {
    const key = contract.toLowerCase();
    const known = this.books.get(key);
    if (known) return known;
    const stored = await this.storage.get<StoredBook>(reservationKey(contract));
    // Another request may have loaded or opened it while this read was in flight: keep theirs.
    const loadedMeanwhile = this.books.get(key);
    if (loadedMeanwhile) return loadedMeanwhile;
    return stored ? this.adopt(contract, upgradeBook(stored)) : undefined;
  }

  private adopt(contract: string, book: ReservationBook): ReservationBook {
    const key = contract.toLowerCase();
    const existing = this.books.get(key);
    if (existing) return existing;
    this.books.set(key, book);
    return book;
  }
}
