import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import type { AuditRecord } from "../audit/types.js";
import { REDACTED } from "../audit/redact.js";
import { permissionPolicy, type LoadedPolicy } from "../policy/file.js";
import { overriddenRisk } from "../policy/risk.js";
import { RiskLevelSchema } from "../policy/schema.js";
import type { DecisionContext, TurnCall } from "../provenance/context.js";
import { ToolRulesEngine } from "../rules/engine.js";
import type { RuleState } from "../rules/types.js";
import type { RiskLevel } from "../tools/types.js";
import { cannotRedecide } from "../messages/index.js";

/** What a recorded review decided, and what `replay` decides under the new policy. */
export type ReplayDecision = "allow" | "deny" | "ask";

/** One recorded call, decided again. */
export interface ReplayedCall {
  threadId: string;
  toolCallId: string;
  tool: string;
  recorded: { decision: ReplayDecision; ruleId: string };
  /** Under the new policy; absent when the call could not be decided again (`cannot` says why). */
  replayed?: { decision: ReplayDecision; ruleId: string; reason: string } | undefined;
  cannot?: string | undefined;
}

export interface ReplayOptions {
  /** The thread's checkpointed messages, or undefined when its checkpoint is gone. Read only for policies whose conditions need them. */
  messages?: ((threadId: string) => Promise<readonly BaseMessage[] | undefined>) | undefined;
  /**
   * How a call the new policy asks about, and that no human answered when it was recorded, counts for
   * the tool rules of later calls (MaxCalls, MustFollow…): as approved (it ran) or rejected. Default approved.
   */
  assumeAsks?: "approved" | "rejected" | undefined;
}

/** The replay data a decision record carries (see the guard's audit trail). */
const ReplayDataSchema = z.lazy(() =>
  z.object({
    messageId: z.string(),
    toolRisk: RiskLevelSchema.nullable().optional(),
    tool: z.literal("unknown").optional(),
    edited: z.boolean().optional(),
  }),
);

const DECISIONS: ReadonlySet<string> = new Set(["allow", "deny", "ask"]);
/** Refusals review makes before any policy rule reads the call: the same under every policy. */
const BEFORE_POLICY: ReadonlySet<string> = new Set(["schema", "oversized-arguments", "unknown-tool"]);

interface Pending {
  record: AuditRecord;
  data: z.output<typeof ReplayDataSchema> | undefined;
  order: number;
}

/** The dotted paths of the values the audit log replaced with "[REDACTED]". */
function redactedPaths(value: unknown, path = "", out: string[] = []): string[] {
  if (value === REDACTED) out.push(path === "" ? "(arguments)" : path);
  else if (Array.isArray(value)) value.forEach((item, i) => redactedPaths(item, `${path}[${i}]`, out));
  else if (value !== null && typeof value === "object") for (const [key, item] of Object.entries(value)) redactedPaths(item, path === "" ? key : `${path}.${key}`, out);
  return out;
}

/**
 * The tools whose calls the policy's context conditions read (their outputs through `from` and
 * `after`, their arguments through `from: ["args:TOOL"]`); `all` when a `budget` counts completed calls.
 * When one of their calls runs under the new policy where it did not (or the reverse), the thread's
 * recorded messages are no longer the ones those conditions would have read.
 */
function contextTools(policy: LoadedPolicy): { all: boolean; names: ReadonlySet<string> } {
  // A trusted entry is a tool name, or `{ tool, fields, argsFromUser }` (trust in some fields of its output).
  const trusted = (policy.provenance?.trusted ?? []).map((entry) => (typeof entry === "string" ? entry : entry.tool));
  const names = new Set<string>([...trusted, ...(policy.provenance?.untrusted ?? [])]);
  let all = false;
  const source = (name: string) => {
    if (name.startsWith("args:")) names.add(name.slice("args:".length));
    else if (name !== "user" && name !== "trusted" && name !== "untrusted") names.add(name);
  };
  const walk = (condition: unknown): void => {
    if (condition === null || typeof condition !== "object") return;
    const c = condition as Record<string, unknown>;
    if (Array.isArray(c.from)) for (const name of c.from) if (typeof name === "string") source(name);
    if (c.not !== undefined) walk(c.not);
    for (const key of ["anyOf", "allOf"]) if (Array.isArray(c[key])) for (const inner of c[key] as unknown[]) walk(inner);
  };
  for (const rule of policy.permissions) {
    for (const condition of Object.values(rule.where ?? {})) walk(condition);
    for (const name of rule.after ?? []) source(name);
    if (rule.budget !== undefined) all = true;
  }
  return { all, names };
}

/** Tool rule types whose state is the calls of the tools they name (`tool`, `conditions`), not the run's call order. */
const NAMED_STATE_TYPES: ReadonlySet<string> = new Set(["MaxCalls", "Cooldown", "AllowedOperations", "MustFollow", "MustPrecede", "ExclusiveGroup", "NoHeartbeat", "ContinueLoop"]);

/**
 * The tools whose calls the tool rules count: those they name, or `all` when a rule reads the run's
 * call order or every call (MaxTotalCalls, InitialCall, ChildTools, ParentTools, ConditionalNext, a "*" rule, …).
 * A call of another tool that could not be decided again leaves the rules' state known.
 */
function stateTools(policy: LoadedPolicy): { all: boolean; names: ReadonlySet<string> } {
  const names = new Set<string>();
  for (const rule of policy.toolRules) {
    if (!NAMED_STATE_TYPES.has(rule.type) || rule.tool === "*" || (rule.conditions ?? []).includes("*")) return { all: true, names };
    names.add(rule.tool);
    for (const name of rule.conditions ?? []) names.add(name);
  }
  return { all: false, names };
}

/** The recorded arguments, or why they cannot be read. */
function recordedArgs(record: AuditRecord): { args: Record<string, unknown> } | { cannot: string } {
  let value: unknown;
  try {
    value = JSON.parse(record.args);
  } catch {
    return { cannot: cannotRedecide.unrecordedArgs };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { cannot: cannotRedecide.unrecordedArgs };
  if ("$summary" in value) return { cannot: cannotRedecide.unrecordedArgs };
  const redacted = redactedPaths(value);
  if (redacted.length > 0) return { cannot: cannotRedecide.redacted(redacted.slice(0, 5)) };
  return { args: value as Record<string, unknown> };
}

/**
 * Decides every recorded review of an audit log again under `policy`, thread by thread in recorded
 * order, as the guard would have: the permission rules (with the thread's messages, read from the
 * checkpoint, where provenance, `after` or `budget` conditions need them), then the tool rules
 * against the state the earlier calls of the thread leave under the new policy (a call it denies did
 * not run; one it asks about ran if a human approved it then, else as `assumeAsks` says). A call
 * whose context cannot be read (checkpoint gone, arguments redacted or not recorded, tool unknown,
 * decided by the killswitch) is reported with the reason, never guessed; when the tool rules count
 * its tool, so are the later calls of the tools they count in its thread.
 */
export async function replayAudit(records: readonly AuditRecord[], policy: LoadedPolicy, options: ReplayOptions = {}): Promise<ReplayedCall[]> {
  const permissions = permissionPolicy(policy);
  const engine = new ToolRulesEngine([...policy.toolRules]);
  const hasToolRules = policy.toolRules.length > 0;
  const counted = stateTools(policy);
  const needsMessages = permissions.needsThread;
  const assumeApproved = (options.assumeAsks ?? "approved") === "approved";
  const watched = needsMessages ? contextTools(policy) : { all: false, names: new Set<string>() };
  const overrides = { toolRisk: policy.toolRisk, operationRisk: policy.operationRisk, lowerRisk: policy.lowerRisk };

  // Human answers and outcomes per call: whether a recorded ask was approved, whether a call ran well.
  const answers = new Map<string, string>();
  const outcomes = new Map<string, string>();
  const threads = new Map<string, Pending[]>();
  const seen = new Set<string>();
  records.forEach((record, order) => {
    const key = `${record.threadId}\u0000${record.toolCallId}`;
    if (record.event === "human") answers.set(key, record.decision);
    else if (record.event === "outcome") outcomes.set(key, record.decision);
    if (record.event !== "decision" || !DECISIONS.has(record.decision)) return;
    const detail = record.detail ?? {};
    if (detail.recheck !== undefined) return; // the check at a call's start, not a review
    const parsed = ReplayDataSchema.safeParse(detail.replay);
    const data = parsed.success ? parsed.data : undefined;
    if (data?.edited === true) return; // a human's edit: the model's own call is the one decided again
    // The review is the call's first decision record; later ones (superseded, aborted) answer the same call.
    const call = `${record.threadId}\u0000${data?.messageId ?? ""}\u0000${record.toolCallId}`;
    if (seen.has(record.id) || seen.has(call)) return;
    seen.add(record.id);
    seen.add(call);
    const list = threads.get(record.threadId) ?? [];
    list.push({ record, data, order });
    threads.set(record.threadId, list);
  });

  const out: ReplayedCall[] = [];
  for (const [threadId, pending] of threads) {
    pending.sort((a, b) => a.record.at - b.record.at || a.order - b.order);
    let messages: readonly BaseMessage[] | undefined | null = null; // null: not read yet
    let state: RuleState | undefined;
    let runId: string | undefined;
    /** Why the thread's rule state is no longer known (with tool rules, later calls cannot be decided). */
    let stateLost: string | undefined;
    /** Why the thread's recorded messages are not those the new policy's context conditions would read. */
    let historyChanged: string | undefined;
    const watches = (tool: string) => watched.all || watched.names.has(tool);
    // One turn (model message) at a time: its calls are reviewed against the state at its start plus its earlier calls.
    let index = 0;
    while (index < pending.length) {
      const messageId = pending[index]!.data?.messageId;
      const turn: Pending[] = [];
      do turn.push(pending[index++]!);
      while (index < pending.length && messageId !== undefined && pending[index]!.data?.messageId === messageId);
      const first = turn[0]!.record;
      if (state === undefined) state = engine.initialState(first.at);
      if (first.runId !== runId) {
        runId = first.runId;
        state = engine.startRun(state, first.at);
      }
      let context: DecisionContext | undefined;
      let contextProblem: string | undefined;
      if (needsMessages && messageId !== undefined) {
        if (messages === null) messages = (await options.messages?.(threadId)) ?? undefined;
        if (messages === undefined) contextProblem = cannotRedecide.checkpointGone(threadId);
        else {
          const at = messages.findIndex((m) => AIMessage.isInstance(m) && m.id === messageId);
          if (at < 0) contextProblem = cannotRedecide.messageGone(threadId);
          else context = { messages: messages.slice(0, at + 1), threadId: `replay\u0000${threadId}` };
        }
      }
      let provisional = state;
      const turnCalls: TurnCall[] = [];
      const ran: { tool: string; operation: string | undefined; callId: string; at: number; success: boolean }[] = [];
      for (const { record, data } of turn) {
        const recorded = { decision: record.decision as ReplayDecision, ruleId: record.ruleId };
        const base = { threadId, toolCallId: record.toolCallId, tool: record.tool, recorded };
        const key = `${threadId}\u0000${record.toolCallId}`;
        if (BEFORE_POLICY.has(record.ruleId)) {
          out.push({ ...base, replayed: { decision: recorded.decision, ruleId: record.ruleId, reason: record.reason } });
          continue;
        }
        const argsRead = recordedArgs(record);
        const cannot =
          data === undefined
            ? cannotRedecide.noReplayData
            : data.tool === "unknown"
              ? cannotRedecide.toolUnknown(record.tool)
              : record.ruleId.startsWith("killswitch:")
                ? cannotRedecide.killswitch(record.ruleId)
                : "cannot" in argsRead
                  ? argsRead.cannot
                  : stateLost !== undefined && (counted.all || counted.names.has(record.tool))
                    ? stateLost
                    : (contextProblem ?? historyChanged) !== undefined && permissions.needsThreadFor(record.tool)
                      ? (contextProblem ?? historyChanged)
                      : undefined;
        const recordedRan = outcomes.has(key) && outcomes.get(key) !== "cancelled";
        if (cannot !== undefined || !("args" in argsRead)) {
          out.push({ ...base, cannot: cannot ?? cannotRedecide.unrecordedArgs });
          if (hasToolRules && (counted.all || counted.names.has(record.tool))) stateLost ??= cannotRedecide.afterUndecided(threadId, record.tool);
          if (watches(record.tool)) historyChanged ??= cannotRedecide.historyUnknown(record.tool, record.toolCallId);
          continue;
        }
        const own = data?.toolRisk ?? undefined;
        const declared: RiskLevel | undefined = overriddenRisk(overrides, record.tool, record.operation, own) ?? policy.defaultRisk;
        const callContext = context === undefined ? undefined : { ...context, turnCalls: [...turnCalls] };
        const permission = permissions.decide(record.tool, argsRead.args, declared, callContext);
        let replayed: { decision: ReplayDecision; ruleId: string; reason: string };
        if (permission.mode === "deny") replayed = { decision: "deny", ruleId: permission.ruleId, reason: permission.reason };
        else {
          const violation = hasToolRules ? engine.checkCall(provisional, { tool: record.tool, operation: record.operation }, record.at) : null;
          if (violation !== null && violation.onViolation !== "ask") replayed = { decision: "deny", ruleId: `rule:${violation.ruleId}`, reason: violation.reason };
          else if (permission.mode === "ask") replayed = { decision: "ask", ruleId: permission.ruleId, reason: permission.reason };
          else if (violation !== null) replayed = { decision: "ask", ruleId: `rule:${violation.ruleId}`, reason: violation.reason };
          // Asks the guard adds on top of any policy (the tool's own consent check, `interruptOn`) stay asks where the call would run.
          else if ((record.ruleId.startsWith("tool:") && record.ruleId.endsWith(":consent")) || record.ruleId.startsWith("interruptOn:")) replayed = { decision: "ask", ruleId: record.ruleId, reason: record.reason };
          else replayed = { decision: "allow", ruleId: permission.ruleId, reason: permission.reason };
        }
        out.push({ ...base, replayed });
        const answer = answers.get(key);
        const approved = replayed.decision === "allow" || (replayed.decision === "ask" && (answer === undefined ? assumeApproved : answer === "approve" || answer === "edit"));
        if (approved !== recordedRan && watches(record.tool)) historyChanged ??= cannotRedecide.historyChanged(record.tool, record.toolCallId, approved);
        if (replayed.decision === "deny") continue;
        turnCalls.push({ name: record.tool, args: argsRead.args });
        provisional = engine.record(provisional, { tool: record.tool, operation: record.operation, callId: record.toolCallId, success: true, at: record.at });
        if (!approved) continue;
        const outcome = outcomes.get(key);
        ran.push({ tool: record.tool, operation: record.operation, callId: record.toolCallId, at: record.at, success: outcome === undefined || outcome === "executed" });
        if (hasToolRules && engine.needsOutput(record.tool)) stateLost ??= cannotRedecide.outputsNeeded(record.tool);
      }
      for (const call of ran) state = engine.record(state, call);
    }
  }
  return out;
}

/** Counts of a replay: changes by transition, by the rule that decides the call under the new policy, by thread; and the calls not re-decided, by reason. */
export interface ReplaySummary {
  calls: number;
  redecided: number;
  changed: number;
  byChange: Map<string, number>;
  byRule: Map<string, number>;
  byThread: Map<string, number>;
  cannot: Map<string, number>;
}

/** Counts what `replayAudit` returned: the calls re-decided and changed, changes by transition, rule and thread, and the calls not re-decided by reason. */
export function summariseReplay(calls: readonly ReplayedCall[]): ReplaySummary {
  const summary: ReplaySummary = { calls: calls.length, redecided: 0, changed: 0, byChange: new Map(), byRule: new Map(), byThread: new Map(), cannot: new Map() };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  for (const call of calls) {
    if (call.replayed === undefined) {
      bump(summary.cannot, call.cannot ?? "");
      continue;
    }
    summary.redecided++;
    if (call.replayed.decision === call.recorded.decision) continue;
    summary.changed++;
    bump(summary.byChange, `${call.recorded.decision} → ${call.replayed.decision}`);
    bump(summary.byRule, call.replayed.ruleId);
    bump(summary.byThread, call.threadId);
  }
  return summary;
}
