import type { Dispatcher } from "undici";
import type { AuditSink } from "../audit/types.js";
import type { RiskLevel } from "../tools/types.js";
import { CompiledRemotePolicy, type KillswitchDecision } from "./compiled-policy.js";
import { fetchRemotePolicy, type FetchOutcome } from "./fetch-policy.js";
import { resolveHeaders } from "./headers.js";
import { restrictedDecisions, type RestrictedDecisions } from "./restricted.js";
import { transitionRecord, type KillswitchTransition } from "./transition-record.js";
import {
  KillswitchConfigSchema,
  type KillswitchConfig,
  type KillswitchConfigInput,
  type KillswitchSnapshot,
  type KillswitchStatus,
} from "./types.js";

/** Options of a `Killswitch` besides its config: clock, audit sink, HTTP dispatcher and the environment header values come from. */
export interface KillswitchOptions {
  /** Clock for freshness and staleness (epoch ms). Timers still run on real time. */
  now?: () => number;
  /** Every transition is written here (`event: "killswitch"`). */
  audit?: AuditSink;
  /** undici dispatcher (an Agent with custom TLS, a proxy, ...). */
  dispatcher?: Dispatcher;
  /** Source of `${ENV}` header values; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Called when the audit sink rejects a write; defaults to a process warning. */
  onAuditError?: (error: unknown) => void;
}

type TransitionListener = (transition: KillswitchTransition) => void;

const NO_FETCH_YET = "no successful fetch of the remote policy yet";
const FIRST_RETRY_MS = 1_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Remote killswitch, fail-safe. `decide`, `snapshot` and `bypassAllowed` are
 * synchronous and never wait on the network: they read the cached policy and, when a refresh is
 * due, start one in the background. Until a fetch succeeds, and whenever the last fetch failed
 * or the policy is older than `maxAgeMs`, the guard is restricted.
 */
export class Killswitch {
  readonly config: KillswitchConfig;
  private readonly now: () => number;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly abort = new AbortController();
  private readonly listeners = new Set<TransitionListener>();
  private readonly pendingAudit = new Set<Promise<void>>();

  private compiled: CompiledRemotePolicy | undefined;
  private etag: string | undefined;
  private fetchedAt: number | undefined;
  private staleAt = Number.POSITIVE_INFINITY;
  /** When the next refresh is due (policy expiry, or the retry after a failure). */
  private dueAt = Number.NEGATIVE_INFINITY;
  /** Earliest time at which `checkTime` has work to do. */
  private nextCheckAt = Number.NEGATIVE_INFINITY;
  /**
   * Whether `decide` must read the clock. Reading it costs more than the rest of `decide`, so with
   * the real clock a timer raises this flag at `nextCheckAt`; an injected clock is read every call.
   */
  private checkDue = true;
  private readonly injectedClock: boolean;
  private checkTimer: NodeJS.Timeout | undefined;
  private checkArmedFor = Number.NaN;
  private consecutiveFailures = 0;
  /** Why the guard is restricted; undefined when the policy is fresh and trusted. */
  private restriction: string | undefined = NO_FETCH_YET;
  private restricted: RestrictedDecisions;
  private inFlight: Promise<void> | undefined;
  private started: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    config: KillswitchConfigInput,
    private readonly options: KillswitchOptions = {},
  ) {
    this.config = KillswitchConfigSchema.parse(config);
    this.now = options.now ?? Date.now;
    this.injectedClock = options.now !== undefined;
    this.env = options.env ?? process.env;
    this.restricted = restrictedDecisions(NO_FETCH_YET, this.config.onFailure);
  }

  /** First fetch. Never throws; idempotent. The guard stays restricted until a fetch succeeds. */
  start(): Promise<void> {
    this.started ??= this.refresh().then(() => undefined);
    return this.started;
  }

  /** Clears timers, aborts the in-flight fetch and waits for pending audit writes. Final. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.checkTimer);
    this.abort.abort();
    await this.inFlight;
    await Promise.all([...this.pendingAudit]);
  }

  /** Fetches now, sharing a fetch already in flight. Never throws. */
  refresh(): Promise<KillswitchSnapshot> {
    if (!this.stopped && this.inFlight === undefined) {
      const run: Promise<void> = this.fetchAndApply().finally(() => {
        if (this.inFlight === run) this.inFlight = undefined;
      });
      this.inFlight = run;
    }
    return (this.inFlight ?? Promise.resolve()).then(() => this.snapshot());
  }

  /** The state right now, staleness included. Synchronous; never touches the network. */
  snapshot(): KillswitchSnapshot {
    this.checkTime(this.now());
    return this.currentSnapshot();
  }

  /**
   * The killswitch's opinion on one call, or null for none. Deny beats ask: stopAll, denyTools,
   * restricted-mode deny, askTools, restricted-mode ask. While restricted the last known policy
   * keeps applying, since it can only add restrictions.
   */
  decide(tool: string, risk: RiskLevel): KillswitchDecision | null {
    if (this.checkDue) this.checkTime(this.now());
    const matched = this.compiled === undefined ? null : this.compiled.match(tool);
    if (matched !== null && matched.mode === "deny") return matched;
    if (this.restriction === undefined) return matched;
    // A risk level this build does not know (from untyped callers) is treated as high.
    const restricted = risk === "low" ? this.restricted.low : (this.restricted[risk] ?? this.restricted.high);
    if (restricted !== null && restricted.mode === "deny") return restricted;
    return matched ?? restricted;
  }

  /** Bypass mode (auto-approval of asks) is allowed only with a fresh policy that does not disable it. */
  bypassAllowed(): boolean {
    this.checkTime(this.now());
    return this.restriction === undefined && this.compiled?.policy.bypassModeDisabled === false;
  }

  /** Calls `listener` on every transition; returns the unsubscribe function. */
  onTransition(listener: TransitionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private currentSnapshot(): KillswitchSnapshot {
    return {
      status: this.status(),
      reason: this.restriction,
      policy: this.compiled?.policy,
      fetchedAt: this.fetchedAt,
      restrictMode: this.config.onFailure,
    };
  }

  private status(): KillswitchStatus {
    return this.restriction === undefined ? "ok" : "restricted";
  }

  /** Notices staleness and starts a background refresh when one is due (a missed timer). */
  private checkTime(t: number): void {
    if (t >= this.nextCheckAt) {
      if (this.restriction === undefined && t >= this.staleAt) {
        this.transition(t, this.staleReason(), this.compiled);
      }
      if (t >= this.dueAt && this.inFlight === undefined && !this.stopped) void this.refresh();
      const staleCheck = this.restriction === undefined ? this.staleAt : Number.POSITIVE_INFINITY;
      // While a refresh is in flight the due time is already past; its landing re-arms the check.
      this.nextCheckAt = this.dueAt > t ? Math.min(this.dueAt, staleCheck) : staleCheck;
    }
    if (this.injectedClock) return;
    if (this.checkDue || this.checkArmedFor !== this.nextCheckAt) this.armCheckTimer(t);
  }

  private armCheckTimer(t: number): void {
    clearTimeout(this.checkTimer);
    this.checkDue = false;
    this.checkArmedFor = this.nextCheckAt;
    if (this.stopped || this.nextCheckAt === Number.POSITIVE_INFINITY) return;
    const delay = Math.min(Math.max(0, this.nextCheckAt - t), MAX_TIMER_MS);
    this.checkTimer = setTimeout(() => {
      this.checkDue = true;
    }, delay);
    this.checkTimer.unref();
  }

  private staleReason(): string {
    const at = new Date(this.fetchedAt ?? 0).toISOString();
    return `stale policy: the last successful fetch of ${this.config.url} (${at}) is older than the max age of ${this.config.maxAgeMs} ms`;
  }

  private async fetchAndApply(): Promise<void> {
    const headers = resolveHeaders(this.config.headers, this.env);
    const outcome: FetchOutcome = headers.ok
      ? await fetchRemotePolicy({
          url: this.config.url,
          headers: headers.headers,
          timeoutMs: this.config.timeoutMs,
          maxBytes: this.config.maxBytes,
          maxRedirects: this.config.maxRedirects,
          allowedRedirectOrigins: this.config.allowedRedirectOrigins,
          etag: this.compiled !== undefined ? this.etag : undefined,
          dispatcher: this.options.dispatcher,
          signal: this.abort.signal,
        })
      : { kind: "failure", reason: `cannot request ${this.config.url}: ${headers.reason}` };
    // Cleared before applying, so a transition listener that calls refresh() starts a new fetch.
    this.inFlight = undefined;
    if (this.stopped) return;
    this.apply(outcome, this.now());
  }

  private apply(outcome: FetchOutcome, t: number): void {
    let compiled = this.compiled;
    if (outcome.kind === "policy") {
      try {
        compiled = new CompiledRemotePolicy(outcome.policy, this.config.url);
      } catch (error) {
        outcome = { kind: "failure", reason: `policy from ${this.config.url} has an invalid glob: ${String(error)}` };
      }
    }
    if (outcome.kind === "failure") {
      this.consecutiveFailures += 1;
      const retryMs = Math.min(this.config.ttlMs, FIRST_RETRY_MS * 2 ** Math.min(this.consecutiveFailures - 1, 20));
      this.dueAt = t + retryMs;
      this.transition(t, outcome.reason, this.compiled);
      this.schedule(this.dueAt, t);
      return;
    }
    if (outcome.kind === "policy") this.etag = outcome.etag;
    this.consecutiveFailures = 0;
    this.fetchedAt = t;
    this.staleAt = t + this.config.maxAgeMs;
    this.dueAt = t + Math.min(this.config.ttlMs, this.config.maxAgeMs);
    this.transition(t, undefined, compiled);
    this.schedule(this.dueAt - this.config.refreshAheadMs, t);
  }

  /** Applies a new state; records a transition when the status, the reason or the policy changed. */
  private transition(t: number, restriction: string | undefined, compiled: CompiledRemotePolicy | undefined): void {
    const previous = this.compiled;
    const policyChanged = compiled !== previous && JSON.stringify(compiled?.policy) !== JSON.stringify(previous?.policy);
    const from = { status: this.status(), reason: this.restriction };
    this.compiled = policyChanged ? compiled : (previous ?? compiled);
    const reasonChanged = restriction !== this.restriction;
    this.restriction = restriction;
    if (reasonChanged && restriction !== undefined) {
      this.restricted = restrictedDecisions(restriction, this.config.onFailure);
    }
    this.nextCheckAt = Number.NEGATIVE_INFINITY;
    this.checkDue = true;
    if (!reasonChanged && !policyChanged) return;
    this.emit({ at: t, url: this.config.url, from, to: this.currentSnapshot() });
  }

  private emit(transition: KillswitchTransition): void {
    for (const listener of this.listeners) {
      try {
        listener(transition);
      } catch {
        // A listener must not break the guard.
      }
    }
    const sink = this.options.audit;
    if (sink === undefined) return;
    const onError = this.options.onAuditError ?? ((error: unknown) => process.emitWarning(`killswitch audit write failed: ${String(error)}`));
    const write = sink.write([transitionRecord(transition)]).catch(onError);
    this.pendingAudit.add(write);
    void write.finally(() => this.pendingAudit.delete(write));
  }

  private schedule(at: number, t: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const delay = Math.min(Math.max(0, at - t), MAX_TIMER_MS);
    this.timer = setTimeout(() => void this.refresh(), delay);
    this.timer.unref();
  }
}
