/**
 * A bounded map in isolate memory whose entries expire, for values that change rarely or never.
 * Each instance is listed in docs/storage.md ("Isolate memory") with what it holds and why a
 * stale entry is harmless.
 */
export class IsolateCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (Date.now() - entry.at < this.ttlMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, at: Date.now() });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
