import type { Evidence, SourceText } from "../provenance/index-builder.js";

/** Sentences about where argument values came from (read by the model, the human asked, the audit). */

export function describeSource(source: SourceText): string {
  if (source.kind === "user") return `the user's message (message ${source.index})`;
  if (source.kind === "system") return `the system prompt (message ${source.index})`;
  if (source.kind === "call") return `the arguments of an earlier ${source.tool ?? "tool"} call (${source.toolCallId ?? "?"}, message ${source.index})`;
  return `the output of ${source.tool ?? "a tool"} (call ${source.toolCallId ?? "?"}, message ${source.index})`;
}

/** One clause per value that was not found where the rule wanted it. */
export function provenanceReason(evidence: readonly Evidence[]): string {
  return evidence
    .filter((item) => !item.found || item.field === "after")
    .map((item) => {
      if (item.field === "after" && item.source !== undefined) return `after ${describeSource(item.source)}`;
      const value = JSON.stringify(item.value.length > 80 ? `${item.value.slice(0, 77)}...` : item.value);
      if (item.note !== undefined) return `${item.field} ${value}: ${item.note}`;
      if (item.seenIn !== undefined) return `${item.field} ${value} is not from an allowed source; it appears first in ${describeSource(item.seenIn)}`;
      return `${item.field} ${value} appears nowhere in the conversation`;
    })
    .join("; ");
}
