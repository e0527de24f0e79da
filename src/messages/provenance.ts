import type { Evidence, SourceText } from "../provenance/index-builder.js";

/** Sentences about where argument values came from (read by the model, the human asked, the audit). */

function describeSource(source: SourceText): string {
  if (source.kind === "user") return `the user's message (message ${source.index})`;
  if (source.kind === "system") return `the system prompt (message ${source.index})`;
  if (source.kind === "call") return `the arguments of an earlier ${source.tool ?? "tool"} call (${source.toolCallId ?? "?"}, message ${source.index})`;
  return `the output of ${source.tool ?? "a tool"} (call ${source.toolCallId ?? "?"}, message ${source.index})`;
}

/**
 * One clause per value that was not found where the rule wanted it. When every value was found
 * (a rule that stops values found in some output: `from` without `not`), one clause per value
 * naming where it was found.
 */
export function provenanceReason(evidence: readonly Evidence[]): string {
  const shown = evidence.filter((item) => !item.found || item.field === "after");
  if (shown.length === 0) {
    return evidence
      .filter((item) => item.source !== undefined)
      .map((item) => `${item.field} ${JSON.stringify(item.value.length > 80 ? `${item.value.slice(0, 77)}...` : item.value)} appears in ${describeSource(item.source!)}`)
      .join("; ");
  }
  return shown
    .map((item) => {
      if (item.field === "after" && item.source !== undefined) return `after ${describeSource(item.source)}`;
      const value = JSON.stringify(item.value.length > 80 ? `${item.value.slice(0, 77)}...` : item.value);
      const where = item.seenIn === undefined ? "it appears nowhere in the conversation" : `it appears first in ${describeSource(item.seenIn)}`;
      if (item.note !== undefined) return `${item.field} ${value}: ${item.note}; ${where}`;
      // "it appears first in ..." → "appears first in ...": the value is the subject.
      if (item.located === true) return `${item.field} ${value} ${where.slice("it ".length)}`;
      if (item.seenIn !== undefined) return `${item.field} ${value} is not from an allowed source; ${where}`;
      return `${item.field} ${value} appears nowhere in the conversation`;
    })
    .join("; ");
}

/** `policy explain --thread`: the heading of the evidence section. */
export function threadHeader(threadId: string, messages: number): string {
  return `Provenance against thread ${threadId} (${messages} checkpointed message${messages === 1 ? "" : "s"}):`;
}

/** `policy explain --thread`: one evidence item, as a line. */
export function evidenceLine(item: Evidence): string {
  const value = JSON.stringify(item.value.length > 80 ? `${item.value.slice(0, 77)}...` : item.value);
  if (item.field === "after" && item.source !== undefined) return `after: ${describeSource(item.source)} came before`;
  const where =
    item.found && item.source !== undefined
      ? `found in ${describeSource(item.source)}`
      : item.seenIn !== undefined
        ? `${item.located === true ? "" : "not from an accepted source; "}appears first in ${describeSource(item.seenIn)}`
        : "appears nowhere in the conversation";
  return `${item.field} ${value}: ${where}${item.note === undefined ? "" : ` (${item.note})`}`;
}

/** The tools `trusted` and `untrusted` name in a policy. */
interface SourceLists {
  trusted: readonly string[];
  untrusted: readonly string[];
}

function sourceList(sources: readonly string[], lists: SourceLists): string {
  const names = sources.flatMap((source) => {
    if (source === "user") return ["what the user wrote"];
    if (source === "trusted" || source === "untrusted") {
      const tools = lists[source];
      return tools.length === 0 ? [] : [`the output of ${tools.map((t) => `\`${t}\``).join(", ")}`];
    }
    if (source.startsWith("args:")) return [`an earlier \`${source.slice(5)}\` call`];
    return [`the output of \`${source}\``];
  });
  return names.join(" or ");
}

/** Why a value of a call decided without a provenance condition is named in the evidence. */
export const evidenceNote = {
  condition: (description: string) => `the rule's condition ${description} holds`,
  budget: (total: number, max: number, scope: "run" | "thread") =>
    `with the earlier calls of this ${scope === "run" ? "request" : "conversation"} the total would be ${total}, over the budget of ${max}`,
};

const consequence = (mode: "deny" | "ask") => (mode === "deny" ? "it is refused" : "a human is asked first");

/** Usage sentences for the system prompt: what a provenance, context or budget rule asks of the model. */
export const provenanceUsage = {
  from: (tools: string, field: string, sources: readonly string[], lists: SourceLists, mode: "deny" | "ask", only?: readonly string[], otherwise: readonly string[] = []) =>
    `${tools}: ${only === undefined ? `\`${field}\` must come from` : `${only.join(" and ")} in \`${field}\` must come from`} ${sourceList(sources, lists)}${otherwise.length === 0 ? "" : ` (or match ${otherwise.join(" or ")})`}; otherwise ${consequence(mode)}`,
  foundIn: (tools: string, field: string, sources: readonly string[], lists: SourceLists, mode: "deny" | "ask") =>
    `${tools}: when \`${field}\` also appears in ${sourceList(sources, lists)}, ${consequence(mode)}`,
  after: (tools: string, after: readonly string[], untrusted: readonly string[], scope: "run" | "thread", mode: "deny" | "ask") => {
    const names = after.flatMap((name) => (name === "untrusted" ? untrusted : [name])).map((name) => `\`${name}\``);
    return `${tools}: once ${names.join(", ")} returned in this ${scope === "run" ? "request" : "conversation"}, ${mode === "deny" ? "it is refused" : "a human is asked first"}`;
  },
  callBudget: (tools: string, max: number, scope: "run" | "thread", mode: "deny" | "ask") =>
    `${tools}: at most ${max} call${max === 1 ? "" : "s"} per ${scope === "run" ? "request" : "conversation"}; beyond that ${consequence(mode)}`,
  budget: (tools: string, field: string, max: number, scope: "run" | "thread", mode: "deny" | "ask") =>
    `${tools}: \`${field}\` may add up to at most ${max} per ${scope === "run" ? "request" : "conversation"}; beyond that ${consequence(mode)}`,
};
