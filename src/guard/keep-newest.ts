/**
 * Sets `key` in `map` as its newest entry (a key set again moves to the end) and drops the oldest
 * entries beyond `cap`: the bounded, most-recent-first memory the in-process ledger and the noted
 * running turns keep.
 */
export function keepNewest<K, V>(map: Map<K, V>, key: K, value: V, cap: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > cap) {
    const oldest = map.keys().next();
    if (oldest.done === true) return;
    map.delete(oldest.value);
  }
}
