import type { BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interruptOnReason } from "../../messages/approval.js";
import type { TurnContext } from "../audit-trail.js";
import type { Guard } from "../guard.js";
import type { HumanDecisionType } from "../options.js";
import type { ReviewedCall } from "../state.js";
import { writerOf } from "./events.js";

// ─── per-tool approval config (LangChain's `interruptOn`) ──────────────────────────────────────

/** The call as LangChain's HITL middleware hands it to `description` and `when`. */
interface InterruptToolCall {
  type: "tool_call";
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** What the guard can show of the graph state: the thread's messages as checkpointed. */
interface InterruptState {
  messages: readonly BaseMessage[];
}

/** The run's runtime, as LangChain's middleware Runtime names it. */
interface InterruptRuntime {
  configurable: Record<string, unknown> | undefined;
  context: unknown;
  store: unknown;
  writer: ((chunk: unknown) => void) | undefined;
  signal: AbortSignal | undefined;
}

export interface InterruptRequest {
  toolCall: InterruptToolCall;
  /** Always undefined, as in LangChain: the predicate runs at review, before any tool is chosen to run. */
  tool: undefined;
  state: InterruptState;
  runtime: InterruptRuntime;
}

/**
 * Per-tool approval settings, with the names and meaning of LangChain's `interruptOn` where that is
 * safe. Unlike LangChain, this can only make the guard stricter: a policy "ask" is never turned
 * into "allow", and a deny is never touched.
 */
export interface InterruptOnConfig {
  /** Decisions a reviewer may take on this tool's calls (default: the guard's `allowedDecisions`). */
  allowedDecisions?: readonly HumanDecisionType[];
  /** Shown to the reviewer instead of the guard's description. */
  description?: string | ((toolCall: InterruptToolCall, state: InterruptState, runtime: InterruptRuntime) => string | Promise<string>);
  /** JSON schema of the arguments shown for edits (default: the tool's own schema). */
  argsSchema?: Record<string, unknown>;
  /** Whether a call the policy allows asks anyway (default: always). A policy "ask" asks regardless. */
  when?: (request: InterruptRequest) => boolean | Promise<boolean>;
}

/**
 * Tool name → `true` (calls the policy allows ask too, every decision allowed), `false` (nothing
 * added: the policy decides; LangChain would auto-approve, which could weaken a policy "ask"), or a
 * config.
 */
export type InterruptOn = Readonly<Record<string, boolean | InterruptOnConfig>>;

function interruptConfigOf(guard: Guard, tool: string): InterruptOnConfig | undefined {
  const entry = guard.options.interruptOn?.[tool];
  if (entry === undefined || entry === false) return undefined;
  return entry === true ? {} : entry;
}

function runtimeOf(config: LangGraphRunnableConfig | undefined): InterruptRuntime {
  const c = config as (LangGraphRunnableConfig & { context?: unknown }) | undefined;
  return { configurable: c?.configurable, context: c?.context, store: c?.store, writer: writerOf(config), signal: c?.signal };
}

function toolCallOf(call: Pick<ReviewedCall, "id" | "name" | "args">): InterruptToolCall {
  return { type: "tool_call", id: call.id, name: call.name, args: call.args };
}

/**
 * `interruptOn` applied to a reviewed turn, before it is audited: a call the policy allows asks when
 * its tool is listed (and `when` says so). Deny and ask are left as they are.
 */
export async function applyInterruptOn(
  guard: Guard,
  reviewed: readonly ReviewedCall[],
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewedCall[]> {
  const out: ReviewedCall[] = [];
  for (const call of reviewed) {
    // A shadow decision that allows is held to interruptOn too: it says what the call would have got.
    const shadowAllows = call.shadow?.decision === "allow";
    const settings = call.outcome === "run" || shadowAllows ? interruptConfigOf(guard, call.name) : undefined;
    if (!settings) {
      out.push(call);
      continue;
    }
    const request: InterruptRequest = { toolCall: toolCallOf(call), tool: undefined, state: { messages: ctx.messages ?? [] }, runtime: runtimeOf(config) };
    const asks = settings.when === undefined ? true : await settings.when(request);
    if (asks !== true) {
      out.push(call);
      continue;
    }
    const ruleId = `interruptOn:${call.name}`;
    const asked = call.outcome === "run" ? { ...call, outcome: "ask" as const, ruleId, reason: interruptOnReason() } : call;
    out.push(shadowAllows ? { ...asked, shadow: { decision: "ask", ruleId, reason: interruptOnReason() } } : asked);
  }
  return out;
}

export interface ReviewSettings {
  allowed: readonly HumanDecisionType[];
  description: string | undefined;
  argsSchema: Record<string, unknown> | undefined;
}

export async function reviewSettingsOf(
  guard: Guard,
  call: ReviewedCall,
  ctx: TurnContext,
  config: LangGraphRunnableConfig | undefined,
): Promise<ReviewSettings> {
  const settings = interruptConfigOf(guard, call.name);
  const describe = settings?.description;
  const description =
    typeof describe === "function" ? await describe(toolCallOf(call), { messages: ctx.messages ?? [] }, runtimeOf(config)) : describe;
  return {
    allowed: settings?.allowedDecisions ?? guard.allowedDecisions,
    description,
    argsSchema: settings?.argsSchema ?? guard.spec(call.name)?.jsonSchema,
  };
}
