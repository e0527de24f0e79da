import { namespaceKey, newArchivalEntry, searchLimit, tokenize } from "./archival.js";
import type { ArchivalIndex, ArchivalInsert, ArchivalSearchOptions } from "./archival.js";
import type { ArchivalEntry, ArchivalSearchResult } from "./types.js";

const K1 = 1.2;
const B = 0.75;

/** The `k` best (score, then newest) without sorting every match: a sorted window of k. */
function topK(scores: Map<string, number>, k: number, createdAt: (id: string) => number): [string, number][] {
  const better = (a: [string, number], b: [string, number]) => a[1] > b[1] || (a[1] === b[1] && createdAt(a[0]) > createdAt(b[0]));
  const best: [string, number][] = [];
  for (const entry of scores) {
    const last = best[best.length - 1];
    if (best.length >= k && last && !better(entry, last)) continue;
    let i = best.length;
    while (i > 0 && better(entry, best[i - 1] as [string, number])) i -= 1;
    best.splice(i, 0, entry);
    if (best.length > k) best.pop();
  }
  return best;
}

/** One namespace's inverted index: term → (entry → term frequency). */
class Collection {
  readonly entries = new Map<string, ArchivalEntry>();
  readonly lengths = new Map<string, number>();
  readonly postings = new Map<string, Map<string, number>>();
  totalLength = 0;

  add(entry: ArchivalEntry): void {
    const tokens = tokenize(`${entry.label ?? ""} ${entry.content}`);
    this.entries.set(entry.id, entry);
    this.lengths.set(entry.id, tokens.length);
    this.totalLength += tokens.length;
    for (const token of tokens) {
      let posting = this.postings.get(token);
      if (!posting) this.postings.set(token, (posting = new Map()));
      posting.set(entry.id, (posting.get(entry.id) ?? 0) + 1);
    }
  }

  /** BM25 over the postings of the query terms only: cost grows with matches, not with the collection. */
  search(query: string, limit: number): ArchivalSearchResult[] {
    const n = this.entries.size;
    if (n === 0) return [];
    const averageLength = this.totalLength / n || 1;
    const scores = new Map<string, number>();
    for (const term of new Set(tokenize(query))) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = Math.log(1 + (n - posting.size + 0.5) / (posting.size + 0.5));
      for (const [id, tf] of posting) {
        const length = this.lengths.get(id) ?? 0;
        const score = (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / averageLength));
        scores.set(id, (scores.get(id) ?? 0) + score);
      }
    }
    return topK(scores, limit, (id) => this.entries.get(id)?.createdAt ?? 0).map(([id, score]) => ({
      ...(this.entries.get(id) as ArchivalEntry),
      score,
    }));
  }
}

/** Archival index held in process memory (tests, demos, InMemoryStore): an inverted index with BM25 scoring. */
export class InMemoryArchivalIndex implements ArchivalIndex {
  readonly #collections = new Map<string, Collection>();

  #collection(namespace: readonly string[]): Collection {
    const key = namespaceKey(namespace);
    let collection = this.#collections.get(key);
    if (!collection) this.#collections.set(key, (collection = new Collection()));
    return collection;
  }

  async insert(namespace: readonly string[], input: ArchivalInsert): Promise<ArchivalEntry> {
    const entry = newArchivalEntry(input);
    this.#collection(namespace).add(entry);
    return structuredClone(entry);
  }

  async search(namespace: readonly string[], query: string, options?: ArchivalSearchOptions): Promise<ArchivalSearchResult[]> {
    return structuredClone(this.#collection(namespace).search(query, searchLimit(options)));
  }

  async get(namespace: readonly string[], id: string): Promise<ArchivalEntry | undefined> {
    const entry = this.#collection(namespace).entries.get(id);
    return entry ? structuredClone(entry) : undefined;
  }

  async count(namespace: readonly string[]): Promise<number> {
    return this.#collection(namespace).entries.size;
  }

  async close(): Promise<void> {}
}
