import { Killswitch, type KillswitchOptions } from "./killswitch.js";
import { KillswitchConfigSchema, type KillswitchConfigInput } from "./types.js";

/** A reference to the process-wide killswitch for one (url, headers, allowed redirect origins). */
export interface KillswitchLease {
  readonly killswitch: Killswitch;
  /** Drops this reference (idempotent); the last one stops the killswitch. */
  release(): Promise<void>;
}

interface Entry {
  killswitch: Killswitch;
  refs: number;
}

const registry = new Map<string, Entry>();

/**
 * The killswitch shared by every graph in this process for the same URL, header templates and
 * allowed redirect origins, so they share one cache and one refresh. The first caller's config and options win for the
 * other fields (TTL, timeouts, restrict mode). Started on first use; `await lease.killswitch.start()`
 * to wait for the first fetch. Each worker process holds its own cache and fails safe on its own.
 */
export function sharedKillswitch(config: KillswitchConfigInput, options?: KillswitchOptions): KillswitchLease {
  const parsed = KillswitchConfigSchema.parse(config);
  const key = sharedKey(parsed.url, parsed.headers, parsed.allowedRedirectOrigins);
  let entry = registry.get(key);
  if (entry === undefined) {
    entry = { killswitch: new Killswitch(parsed, options), refs: 0 };
    registry.set(key, entry);
    void entry.killswitch.start();
  }
  entry.refs += 1;
  const held = entry;
  let released = false;
  return {
    killswitch: held.killswitch,
    async release() {
      if (released) return;
      released = true;
      held.refs -= 1;
      if (held.refs > 0) return;
      if (registry.get(key) === held) registry.delete(key);
      await held.killswitch.stop();
    },
  };
}

function sharedKey(url: string, headers: Readonly<Record<string, string>>, redirectOrigins: readonly string[]): string {
  const sorted = Object.entries(headers)
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([url, sorted, [...new Set(redirectOrigins)].sort()]);
}
