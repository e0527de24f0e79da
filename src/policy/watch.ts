import { createHash } from "node:crypto";
import { watch as watchFs, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { AuditRecord, AuditSink } from "../audit/types.js";
import type { DecisionContext } from "../provenance/context.js";
import type { Principal } from "../principal/principal.js";
import type { ApproverRule } from "../principal/schema.js";
import type { RiskLevel } from "../tools/types.js";
import type { ToolRule } from "../rules/types.js";
import { assertPolicyFits, type DeclaredRisks, type ToolArguments, type ToolCatalog } from "./check.js";
import { loadPolicyFile, permissionPolicy, type LoadedPolicy } from "./file.js";
import type { PermissionPolicy } from "./permissions.js";
import type { PolicyDecision } from "./types.js";
import type { ArgumentKind } from "./kinds/readings.js";
import { policyWatchMessages } from "../messages/index.js";

/**
 * A permission decider whose policy can be replaced while the guard runs. The swap is one
 * assignment: a decision sees the old policy or the new one, never a mix.
 */
export class SwappablePermissions {
  #policy: PermissionPolicy;
  #loaded: LoadedPolicy;

  constructor(loaded: LoadedPolicy) {
    this.#loaded = loaded;
    this.#policy = permissionPolicy(loaded);
  }

  get loaded(): LoadedPolicy {
    return this.#loaded;
  }

  #toolKinds = new Map<string, Readonly<Record<string, ArgumentKind>>>();

  /** Argument kinds the tools declare: given to the policy in force and to every one swapped in. */
  declareToolKinds(kinds: ReadonlyMap<string, Readonly<Record<string, ArgumentKind>>>): void {
    for (const [tool, fields] of kinds) this.#toolKinds.set(tool, { ...this.#toolKinds.get(tool), ...fields });
    this.#policy.declareToolKinds(kinds);
  }

  #toolArguments = new Map<string, readonly string[]>();

  /** The tools' top-level argument names: given to the policy in force and to every one swapped in. */
  declareToolArguments(names: ReadonlyMap<string, readonly string[]>): void {
    for (const [tool, fields] of names) this.#toolArguments.set(tool, fields);
    this.#policy.declareToolArguments(names);
  }

  swap(loaded: LoadedPolicy): void {
    this.prepare(loaded)();
  }

  /** Compiles `loaded` (a bad pattern throws here) and returns the assignment that puts it in force. */
  prepare(loaded: LoadedPolicy): () => void {
    const next = permissionPolicy(loaded);
    if (this.#toolKinds.size > 0) next.declareToolKinds(this.#toolKinds);
    if (this.#toolArguments.size > 0) next.declareToolArguments(this.#toolArguments);
    return () => {
      this.#loaded = loaded;
      this.#policy = next;
    };
  }

  decide(tool: string, args: unknown, declaredRisk?: RiskLevel, context?: DecisionContext, principal?: Principal): PolicyDecision {
    return this.#policy.decide(tool, args, declaredRisk, context, principal);
  }

  /** Whether the policy in force reads the principal. */
  get readsPrincipal(): boolean {
    return this.#policy.readsPrincipal;
  }

  approverRules(): readonly ApproverRule[] {
    return this.#policy.approverRules();
  }

  usageLines(): string[] {
    return this.#policy.usageLines();
  }

  /** The policy in force's shadow rules, enforced (see PermissionPolicy.shadow). */
  get shadow(): PermissionPolicy | undefined {
    return this.#policy.shadow;
  }

  shadowCovers(tool: string): boolean {
    return this.#policy.shadowCovers(tool);
  }
}

export interface PolicyWatchEvent {
  kind: "applied" | "rejected";
  path: string;
  /** sha256 of the file text the event is about. */
  digest: string;
  /** Why a file was rejected (the old policy stays), or what changed. */
  message: string;
}

export interface WatchPolicyOptions {
  /** Checked against these tools (unknown tools/operations, lowered risk are errors). */
  tools?: ToolCatalog | undefined;
  declared?: DeclaredRisks | undefined;
  /** The tools' argument names: a compact rule reading an argument its tool lacks is an error. */
  toolArguments?: ToolArguments | undefined;
  /** Every applied or rejected file is written here as an audit record (event "policy"). */
  audit?: AuditSink | undefined;
  /** Log line per event (default console.warn for rejections, nothing for applied files). */
  log?: ((event: PolicyWatchEvent) => void) | undefined;
  /** Wait this long after the last change before reading (editors write in several steps). Default 100 ms. */
  debounceMs?: number | undefined;
  /** Called after every handled change (tests wait on it). */
  onEvent?: ((event: PolicyWatchEvent) => void) | undefined;
  /** The decider to swap (default: a new one for `initial`). */
  permissions?: SwappablePermissions | undefined;
  /**
   * The tool rules to swap with the permissions (a guard's `prepareRules`): validates and compiles a
   * file's `tool_rules` (throwing rejects the file) and returns the assignment that puts them in force.
   */
  rules?: ((toolRules: readonly ToolRule[]) => () => void) | undefined;
  /**
   * The risk levels to swap with the permissions (a guard's `prepareRisks`): receives the checked
   * file and returns the assignment that puts its `tools.X.risk`, `tools.X.operations`, `lowerRisk`
   * and `defaultRisk` in force for the guard's own risk lookup.
   */
  risks?: ((next: LoadedPolicy) => () => void) | undefined;
}

export interface PolicyWatcher {
  readonly permissions: SwappablePermissions;
  /** Reads the file now (as a change would), resolving once it is applied or rejected. */
  reload(): Promise<PolicyWatchEvent>;
  close(): void;
}

function watchRecord(event: PolicyWatchEvent, at: number): AuditRecord {
  return {
    id: `policy:${createHash("sha256").update(`${event.path}\n${event.digest}\n${event.kind}\n${at}`).digest("hex").slice(0, 32)}`,
    at,
    threadId: "*",
    runId: "*",
    toolCallId: "*",
    tool: "*",
    args: "{}",
    event: "policy",
    decision: event.kind,
    ruleId: event.kind === "applied" ? "policy:applied" : "policy:rejected",
    reason: event.message,
    detail: { path: event.path, digest: event.digest },
  };
}

/**
 * Watches a policy file and swaps the permission policy, (with `rules`) the tool rules and (with
 * `risks`) the guard's risk levels after the
 * new file has been parsed, compiled and checked against the tools. Both are compiled first and put
 * in force together, with no await between: a decision sees the old policy or the new one, never a
 * mix. A file that fails any step keeps the old policy; the rejection is written to the audit sink
 * and logged.
 */
export function watchPolicyFile(path: string, initial: LoadedPolicy, options: WatchPolicyOptions = {}): PolicyWatcher {
  const permissions = options.permissions ?? new SwappablePermissions(initial);
  const log = options.log ?? ((event: PolicyWatchEvent) => (event.kind === "rejected" ? console.warn(`guarded-graph: ${event.message}`) : undefined));
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<unknown> = Promise.resolve();
  let lastDigest: string | undefined;

  const handle = async (): Promise<PolicyWatchEvent> => {
    let text = "";
    try {
      text = await readFile(path, "utf8");
    } catch {
      // reported below by loadPolicyFile with its own message
    }
    const digest = createHash("sha256").update(text).digest("hex");
    let event: PolicyWatchEvent;
    try {
      const next = await loadPolicyFile(path);
      if (options.tools !== undefined) assertPolicyFits(next, options.tools, options.declared ?? new Map(), options.toolArguments);
      const toolRulesChanged = JSON.stringify(next.toolRules) !== JSON.stringify(permissions.loaded.toolRules);
      const commitPermissions = permissions.prepare(next);
      const commitRules = options.rules?.(next.toolRules);
      const commitRisks = options.risks?.(next);
      commitPermissions();
      commitRules?.();
      commitRisks?.();
      event = { kind: "applied", path, digest, message: policyWatchMessages.applied(path, next.permissions.length, next.toolRules.length, toolRulesChanged && commitRules === undefined) };
    } catch (error) {
      event = { kind: "rejected", path, digest, message: policyWatchMessages.rejected(path, (error as Error).message.slice(0, 2_000)) };
    }
    lastDigest = digest;
    log(event);
    await options.audit?.write([watchRecord(event, Date.now())]);
    options.onEvent?.(event);
    return event;
  };

  const reload = (): Promise<PolicyWatchEvent> => {
    const next = chain.then(handle, handle);
    chain = next.catch(() => undefined);
    return next;
  };

  // Watch the directory: editors replace the file (rename), which a watch on the file itself loses.
  const watcher: FSWatcher = watchFs(dirname(path), (_type, name) => {
    if (name !== null && name !== basename(path)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      void readFile(path, "utf8")
        .then((text) => createHash("sha256").update(text).digest("hex"))
        .catch(() => "")
        .then((digest) => (digest !== lastDigest ? reload() : undefined));
    }, options.debounceMs ?? 100);
  });
  watcher.unref();

  return {
    permissions,
    reload,
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
