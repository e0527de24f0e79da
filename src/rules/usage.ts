import type { NormalisedRule } from "./normalize.js";
import { WILDCARD } from "./normalize.js";
import { usage } from "../messages/index.js";


/** The sentence the model reads for one rule (seed 000's `to_usage_description`); the text lives in src/messages. */
export function usageSentence(rule: NormalisedRule): string {
  const sentence = ruleSentence(rule);
  return rule.onViolation === "ask" ? usage.asksInstead(sentence) : sentence;
}

function ruleSentence(rule: NormalisedRule): string {
  const subject = rule.tool === WILDCARD ? "every tool" : `\`${rule.tool}\``;
  const others = rule.conditions;
  switch (rule.type) {
    case "NoHeartbeat":
      return usage.noHeartbeat(subject);
    case "ContinueLoop":
      return usage.continueLoop(subject);
    case "Terminal":
      return usage.terminal(subject);
    case "TerminalIf":
      return usage.terminalIf(subject, others);
    case "MustFollow":
      return usage.mustFollow(subject, others, rule.scope ?? "run");
    case "MustPrecede":
      return usage.mustPrecede(subject, others, rule.scope ?? "run");
    case "ExclusiveGroup":
      return usage.exclusiveGroup([rule.tool, ...rule.conditions], rule.scope ?? "run");
    case "InitialCall":
      return usage.initialCall([rule.tool, ...(rule.alternatives ?? [])]);
    case "RequiredForExit":
      return usage.requiredForExit(subject);
    case "RequiredForExitIf":
      return usage.requiredForExitIf(subject, others);
    case "MaxCalls":
      return usage.maxCalls(subject, rule.max, rule.scope ?? "run");
    case "Cooldown":
      return usage.cooldown(subject, rule.durationMs);
    case "Periodic":
      return usage.periodic(subject, rule.durationMs);
    case "AllowedOperations":
      return usage.allowedOperations(subject, rule.operations);
    case "MaxTotalCalls":
      return usage.totalCalls(rule.max, rule.scope ?? "run");
    case "ChildTools":
      return usage.child(subject, rule.children);
    case "ParentTools":
      return usage.parent(subject, rule.children);
    case "ConditionalNext":
      return usage.conditional(
        subject,
        Object.entries(rule.outputMapping).map(([output, tool]) => ({ output, tool })),
        rule.defaultChild,
        rule.requireOutputMapping === true,
      );
  }
}
