import type { ClientTool, ServerTool } from "@langchain/core/tools";
import type { Guard } from "../guard/guard.js";
import type { BaseMessage } from "@langchain/core/messages";
import { forcedToolFor as guardForcedToolFor, systemPromptFor } from "../guard/model-step.js";
import type { GuardState } from "../guard/state.js";
import type { RuleState } from "../rules/types.js";

type AgentTool = ClientTool | ServerTool;

export function toolName(tool: AgentTool): string | undefined {
  const record = tool as { name?: unknown; function?: { name?: unknown } };
  if (typeof record.name === "string") return record.name;
  return typeof record.function?.name === "string" ? record.function.name : undefined;
}

/**
 * The tools the model may see now, in the agent's order: only tools the guard reviews (its own and
 * those it was given or met as the agent's, `Guard.delegate`) that the rules allow. A tool whose operations are narrowed, or that
 * gets the heartbeat argument, is replaced by its filtered definition; the others stay as they are.
 * With `strict` (the guard's `strictTools` for the request's model), every guard tool is replaced by
 * its strict-mode definition.
 */
export function allowedToolsFor(guard: Guard, rules: RuleState, tools: readonly AgentTool[], options: { strict?: boolean } = {}): AgentTool[] {
  const strict = options.strict === true;
  const definitions = new Map(guard.definitions(rules, { strict }).map((d) => [d.function.name, d]));
  const narrowed = new Set(
    guard
      .allowances(rules)
      .filter((a) => a.operations !== undefined || guard.usesHeartbeat(a.name))
      .map((a) => a.name),
  );
  const seen = new Set<string>();
  const out: AgentTool[] = [];
  for (const tool of tools) {
    const name = toolName(tool);
    if (name === undefined || seen.has(name)) continue;
    const definition = definitions.get(name);
    if (!definition) continue;
    seen.add(name);
    // In strict mode every guard tool goes as its strict definition (or with strict: false when it cannot be strict).
    out.push(strict || narrowed.has(name) ? { ...definition } : tool);
  }
  return out;
}

/** The tool the next model call must call (see the guard's forcedToolFor: one rule, three entry points). */
export function forcedToolFor(guard: Guard, state: GuardState, rules: RuleState, messages: readonly BaseMessage[]): string | null {
  return guardForcedToolFor(guard, rules, messages, state.forcedTool);
}

export function promptFor(guard: Guard, rules: RuleState, base: string): string {
  return systemPromptFor(guard, rules, base || undefined);
}

