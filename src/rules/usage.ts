import type { NormalisedRule } from "./normalize.js";
import { WILDCARD } from "./normalize.js";

/** "1500 ms", "30 s", "5 min", "2 h" — readable in a system prompt. */
export function formatDuration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

function list(tools: readonly string[]): string {
  return tools.map((t) => `\`${t}\``).join(", ");
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The sentence the model reads for one rule (seed 000's `to_usage_description`). */
export function usageSentence(rule: NormalisedRule): string {
  const subject = rule.tool === WILDCARD ? "every tool" : `\`${rule.tool}\``;
  const others = list(rule.conditions);
  switch (rule.type) {
    case "NoHeartbeat":
      return capitalise(`${subject} does not need a heartbeat request`);
    case "ContinueLoop":
      return capitalise(`after ${subject} you continue working: its result comes back to you`);
    case "Terminal":
      return capitalise(`${subject} ends your response when it succeeds`);
    case "TerminalIf":
      return capitalise(`${subject} ends your response when it succeeds after ${others} succeeded`);
    case "MustFollow":
      return capitalise(`${subject} can only be used after ${others} succeeded in this response`);
    case "MustPrecede":
      return `${others} can only be used after ${subject} succeeded in this response`;
    case "ExclusiveGroup":
      return `Use only one of ${list([rule.tool, ...rule.conditions])} per response`;
    case "InitialCall":
      return `Call ${subject} first, before any other tool`;
    case "RequiredForExit":
      return capitalise(`${subject} must succeed before you finish your response`);
    case "RequiredForExitIf":
      return capitalise(`${subject} must succeed before you finish if ${others} succeeded`);
    case "MaxCalls": {
      const per = (rule.scope ?? "run") === "run" ? "per response" : "in this conversation";
      if (rule.max === 0) return capitalise(`${subject} is disabled`);
      return capitalise(`${subject} can be called at most ${rule.max} time${rule.max === 1 ? "" : "s"} ${per}`);
    }
    case "Cooldown":
      return capitalise(`${subject} needs at least ${formatDuration(rule.durationMs)} between calls`);
    case "Periodic":
      return capitalise(`${subject} should be called every ${formatDuration(rule.durationMs)}`);
    case "AllowedOperations":
      return capitalise(`${subject} is limited to these operations: ${rule.operations.join(", ")}`);
  }
}
