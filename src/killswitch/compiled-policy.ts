import { picomatchLibrary } from "../deps/on-demand.js";
import type { RemotePolicy } from "./types.js";

/** What the killswitch says about one call; `null` from `decide` means no opinion. */
export interface KillswitchDecision {
  readonly mode: "deny" | "ask";
  /** `killswitch:stop-all`, `killswitch:deny-tools`, `killswitch:ask-tools` or `killswitch:restricted`. */
  readonly ruleId: string;
  readonly reason: string;
}

/** Tool names come from the model, so the per-name cache is bounded. */
const MAX_CACHED_TOOLS = 1024;

interface CompiledPattern {
  pattern: string;
  test: (tool: string) => boolean;
}

/**
 * A remote policy with its globs compiled once. Globs are case-insensitive: a killswitch should
 * rather deny too much than let `Deploy` past a `deploy*` deny.
 */
export class CompiledRemotePolicy {
  private readonly deny: CompiledPattern[];
  private readonly ask: CompiledPattern[];
  private readonly stopAll: KillswitchDecision | null;
  private readonly cache = new Map<string, KillswitchDecision | null>();
  private readonly suffix: string;

  /** Throws when a glob cannot be compiled. */
  constructor(
    readonly policy: RemotePolicy,
    private readonly url: string,
  ) {
    this.deny = policy.denyTools.map(compile);
    this.ask = policy.askTools.map(compile);
    this.suffix = policy.reason ? ` (${policy.reason})` : "";
    this.stopAll = policy.stopAll
      ? Object.freeze({
          mode: "deny",
          ruleId: "killswitch:stop-all",
          reason: `killswitch: every tool call is stopped by the remote policy at ${url}${this.suffix}; no tool may run until the policy lifts stopAll`,
        })
      : null;
  }

  /** stopAll, then denyTools, then askTools. */
  match(tool: string): KillswitchDecision | null {
    if (this.stopAll !== null) return this.stopAll;
    const cached = this.cache.get(tool);
    if (cached !== undefined) return cached;
    const decision = this.evaluate(tool);
    if (this.cache.size >= MAX_CACHED_TOOLS) this.cache.clear();
    this.cache.set(tool, decision);
    return decision;
  }

  private evaluate(tool: string): KillswitchDecision | null {
    const denied = this.deny.find((p) => p.test(tool));
    if (denied) {
      return Object.freeze({
        mode: "deny",
        ruleId: "killswitch:deny-tools",
        reason: `killswitch: tool "${tool}" is denied by the remote policy at ${this.url} (denyTools "${denied.pattern}")${this.suffix}; tools not matching denyTools are not affected`,
      });
    }
    const asked = this.ask.find((p) => p.test(tool));
    if (asked) {
      return Object.freeze({
        mode: "ask",
        ruleId: "killswitch:ask-tools",
        reason: `killswitch: tool "${tool}" needs human approval under the remote policy at ${this.url} (askTools "${asked.pattern}")${this.suffix}`,
      });
    }
    return null;
  }
}

function compile(pattern: string): CompiledPattern {
  return { pattern, test: picomatchLibrary()(pattern, { dot: true, nocase: true }) };
}
