import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { interruptOnReason } from "../../messages/approval.js";
import type { TurnContext } from "../audit-trail.js";
import type { Guard } from "../guard.js";
import type { HumanDecisionType, InterruptOnConfig, InterruptRequest, InterruptRuntime, InterruptToolCall } from "../options.js";
import type { ReviewedCall } from "../state.js";
import { writerOf } from "./events.js";

// ─── per-tool approval config (LangChain's `interruptOn`) ──────────────────────────────────────

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
