// Keys under one prefix of a Durable Object's storage, held in memory after one list() and
// written through. Requests of the object then check and change the same copy with nothing in
// between: two storage reads of a key nobody has written yet can both be in flight at once, so
// reading storage, awaiting and writing back can let two requests act on the same old value
// (decision 25). Used for the sequencer's holds and reservation books.
export class StoredMap<V> {
  private entries: Map<string, V> | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly prefix: string,
  ) {}

  /** Await once before `get`/`set`; cheap once loaded. A failed read is tried again by the next caller. */
  load(): Promise<void> {
    if (this.entries) return Promise.resolve();
    this.loading ??= this.storage.list<V>({ prefix: this.prefix }).then(
      (stored) => {
        this.entries ??= new Map([...stored].map(([key, value]) => [key.slice(this.prefix.length), value]));
      },
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  /** Synchronous, after `load`. */
  get(key: string): V | undefined {
    return this.loaded().get(key);
  }

  /** Synchronous, after `load`: the memory copy changes at once, storage with the next commit. */
  set(key: string, value: V): void {
    this.loaded().set(key, value);
    this.storage.put(this.prefix + key, value);
  }

  async delete(key: string): Promise<void> {
    this.loaded().delete(key);
    await this.storage.delete(this.prefix + key);
  }

  /** Deletes every entry `expired` picks; synchronous in memory, then in storage. */
  async deleteWhere(expired: (value: V, key: string) => boolean): Promise<void> {
    const keys = [...this.loaded()].filter(([key, value]) => expired(value, key)).map(([key]) => key);
    for (const key of keys) this.loaded().delete(key);
    await deleteKeys(this.storage, keys.map((key) => this.prefix + key));
  }

  private loaded(): Map<string, V> {
    if (!this.entries) throw new Error(`StoredMap(${this.prefix}) used before load()`);
    return this.entries;
  }
}

/** Deletes `keys` from storage in calls of 128 keys (the most one delete takes). */
export async function deleteKeys(storage: Pick<DurableObjectStorage, "delete">, keys: readonly string[]): Promise<void> {
  for (let start = 0; start < keys.length; start += 128) await storage.delete(keys.slice(start, start + 128));
}
