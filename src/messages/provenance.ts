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

/** An entry of `provenance.trusted`: a tool, or a tool trusted in some fields or for arguments the user typed. */
type TrustEntry = string | { tool: string; fields?: readonly string[] | undefined; argsFromUser?: boolean | undefined };

/** The tools `trusted` and `untrusted` name in a policy. */
export interface SourceLists {
  trusted: readonly TrustEntry[];
  untrusted: readonly string[];
  /** Name the trusted (untrusted) outputs once, in a line of their own, and refer to them in each sentence (long lists). */
  legend?: { trusted: boolean; untrusted: boolean } | undefined;
}

/** Longest list of trusted (or untrusted) outputs said inside each sentence; a longer one is said once, in a line of its own. */
export const MAX_INLINE_SOURCES_CHARS = 160;

/** Most tools one source list names in a usage sentence; the rest are counted (the usage text stays bounded as a policy trusts more tools). */
const MAX_NAMED_TOOLS = 5;

function toolNames(tools: readonly string[], what: string): string {
  const named = tools.slice(0, MAX_NAMED_TOOLS).map((t) => `\`${t}\``);
  const more = tools.length - named.length;
  return more === 0 ? named.join(", ") : `${named.join(", ")} or ${more} other ${what} tool${more === 1 ? "" : "s"}`;
}

const fieldList = (fields: readonly string[]) => `${fields.length === 1 ? "field" : "fields"} ${fields.map((f) => `\`${f}\``).join(", ")}`;
const USER_ARGS = "called with arguments the user typed";

/** Scoped trust entries grouped by what they trust (the same fields, the same condition on arguments), each with its tools. */
function scopedGroups(entries: readonly TrustEntry[], tools?: ReadonlySet<string>): { fields: readonly string[]; byUser: boolean; tools: string[] }[] {
  const groups = new Map<string, { fields: readonly string[]; byUser: boolean; tools: string[] }>();
  for (const entry of entries) {
    if (typeof entry === "string" || (entry.fields === undefined && entry.argsFromUser !== true)) continue;
    if (tools !== undefined && !tools.has(entry.tool)) continue;
    const fields = entry.fields ?? [];
    const byUser = entry.argsFromUser === true;
    const key = JSON.stringify([fields, byUser]);
    const group = groups.get(key) ?? { fields, byUser, tools: [] };
    if (!group.tools.includes(entry.tool)) group.tools.push(entry.tool);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** At most {@link MAX_NAMED_TOOLS} groups are named; the rest are counted. */
function boundedGroups(parts: string[], what: string): string[] {
  if (parts.length <= MAX_NAMED_TOOLS) return parts;
  const more = parts.length - MAX_NAMED_TOOLS;
  return [...parts.slice(0, MAX_NAMED_TOOLS), `${more} other ${what} output${more === 1 ? "" : "s"}`];
}

/** The parts of outputs `trusted` names: whole outputs, some fields of an output, outputs of calls whose arguments the user typed. */
function trustedNames(entries: readonly TrustEntry[]): string[] {
  const whole = entries.filter((e): e is string => typeof e === "string").concat(entries.flatMap((e) => (typeof e !== "string" && e.fields === undefined && e.argsFromUser !== true ? [e.tool] : [])));
  const out = whole.length === 0 ? [] : [`the output of ${toolNames(whole, "trusted")}`];
  const parts = scopedGroups(entries).map(({ fields, byUser, tools }) => {
    const user = byUser ? ` ${USER_ARGS}` : "";
    const of = `the output of ${toolNames(tools, "such")}${user}`;
    return fields.length === 0 ? of : `the ${fieldList(fields)} of ${of}`;
  });
  return [...out, ...boundedGroups(parts, "partly trusted")];
}

/** The untrusted outputs: a tool trusted in part is untrusted outside that part; a tool trusted whole is not untrusted. */
function untrustedNames(lists: SourceLists): string[] {
  const whole = new Set(lists.trusted.filter((e): e is string => typeof e === "string"));
  const scopedTools = new Set(lists.trusted.flatMap((e) => (typeof e !== "string" && (e.fields !== undefined || e.argsFromUser === true) ? [e.tool] : [])));
  const plain = lists.untrusted.filter((t) => !whole.has(t) && !scopedTools.has(t));
  const out = plain.length === 0 ? [] : [`the output of ${toolNames(plain, "untrusted")}`];
  // Several entries for one tool add up: its untrusted part is what none of them trusts.
  const untrustedScoped = new Set(lists.untrusted.filter((t) => scopedTools.has(t) && !whole.has(t)));
  const parts = scopedGroups(lists.trusted, untrustedScoped).map(({ fields, byUser, tools }) => {
    const conditions = [fields.length > 0 ? `outside the trusted ${fieldList(fields)}` : "", byUser ? `when not ${USER_ARGS}` : ""].filter((x) => x !== "");
    return `the output of ${toolNames(tools, "such")} ${conditions.join(", or ")}`;
  });
  return [...out, ...boundedGroups(parts, "partly untrusted")];
}

function sourceList(sources: readonly string[], lists: SourceLists): string {
  const names = sources.flatMap((source) => {
    if (source === "user") return ["what the user wrote"];
    if (source === "trusted") return lists.legend?.trusted === true ? ["a trusted output (listed above)"] : trustedNames(lists.trusted);
    if (source === "untrusted") return lists.legend?.untrusted === true ? ["an untrusted output (listed above)"] : untrustedNames(lists);
    if (source.startsWith("args:")) return [`an earlier \`${source.slice(5)}\` call`];
    return [`the output of \`${source}\``];
  });
  return names.length === 0 ? "no source" : names.join(" or ");
}

/** The trusted and the untrusted outputs of a policy, each said whole, for the legend lines and to measure them. */
export function sourceNames(lists: SourceLists): { trusted: string; untrusted: string } {
  return { trusted: trustedNames(lists.trusted).join(" or "), untrusted: untrustedNames(lists).join(" or ") };
}

/** The legend lines: what "a trusted output" and "an untrusted output" mean in the sentences below them. */
export const sourceLegend = {
  trusted: (names: string) => `Trusted outputs: ${names}`,
  untrusted: (names: string) => `Untrusted outputs: ${names}`,
};

/** A condition in words, for a sentence about the value ("appears in …", "does not match …"), with the connective joining its parts. */
export interface Words {
  text: string;
  joint?: "and" | "or";
}

const COMPARISONS = { lt: "<", lte: "<=", gt: ">", gte: ">=" } as const;

function wordsOf(condition: unknown, negated: boolean, lists: SourceLists, describeLeaf: (leaf: never) => string): Words {
  const c = (typeof condition === "object" && condition !== null ? condition : {}) as Record<string, unknown>;
  if ("not" in c) return wordsOf(c.not, !negated, lists, describeLeaf);
  for (const key of ["anyOf", "allOf"] as const) {
    if (!Array.isArray(c[key])) continue;
    // De Morgan: not (A or B) is (not A) and (not B).
    const joint = (key === "anyOf") !== negated ? "or" : "and";
    const parts = (c[key] as unknown[]).map((inner) => wordsOf(inner, negated, lists, describeLeaf));
    if (parts.length === 1) return parts[0]!;
    return { text: parts.map((w) => (w.joint !== undefined && w.joint !== joint ? `(${w.text})` : w.text)).join(` ${joint} `), joint };
  }
  if (Array.isArray(c.from)) {
    const sources = sourceList(c.from as string[], lists);
    if (c.only !== undefined) {
      const kinds = (c.only as string[]).map((k) => (k === "links" ? "link" : "email address")).join(" or ");
      return { text: negated ? `holds a ${kinds} that does not appear in ${sources}` : `holds no ${kinds} except ones that appear in ${sources}` };
    }
    return { text: `${negated ? "does not appear" : "appears"} in ${sources}` };
  }
  if (Array.isArray(c.between)) return { text: `is ${negated ? "not " : ""}a number between ${(c.between as number[]).join(" and ")}` };
  const op = (Object.keys(COMPARISONS) as (keyof typeof COMPARISONS)[]).find((k) => k in c);
  if (op !== undefined) return { text: `is ${negated ? "not " : ""}a number ${COMPARISONS[op]} ${String(c[op])}` };
  return { text: `${negated ? "does not match" : "matches"} ${describeLeaf(condition as never)}` };
}

/**
 * The whole of a field condition in words, as a predicate of the value: every part of `allOf`,
 * `anyOf` and `not` is said (De Morgan under `not`), so the sentence states the rule that is enforced.
 */
export function conditionWords(condition: unknown, lists: SourceLists, describeLeaf: (leaf: never) => string): Words {
  return wordsOf(condition, false, lists, describeLeaf);
}

/** Why a value of a call decided without a provenance condition is named in the evidence. */
export const evidenceNote = {
  /** A value not trusted although it appears in the output of a tool the policy trusts in part. */
  partlyTrusted: (tool: string, fields: readonly string[], argsFromUser: boolean) =>
    `the output of ${tool} is trusted only ${[fields.length > 0 ? `in its ${fieldList(fields)}` : "", argsFromUser ? `when ${USER_ARGS.replace("called with", "its call had")}` : ""].filter((x) => x !== "").join(", ")}`,
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
  /** Any other rule, every condition said (fields joined by "and", see {@link conditionWords}). */
  when: (tools: string, clauses: readonly string[], mode: "deny" | "ask") => `${tools}: when ${clauses.join(" and ")}, ${consequence(mode)}`,
  /** Clauses of {@link provenanceUsage.when}. */
  fieldClause: (field: string, words: string) => `\`${field}\` ${words}`,
  afterClause: (after: readonly string[], untrusted: readonly string[], scope: "run" | "thread") =>
    `${after.flatMap((name) => (name === "untrusted" ? untrusted : [name])).map((name) => `\`${name}\``).join(", ")} returned in this ${scope === "run" ? "request" : "conversation"}`,
  budgetClause: (field: string | undefined, max: number, scope: "run" | "thread") =>
    field === undefined
      ? `the calls per ${scope === "run" ? "request" : "conversation"} would be more than ${max}`
      : `\`${field}\` would add up to more than ${max} per ${scope === "run" ? "request" : "conversation"}`,
  argsClause: (pattern: string) => `the arguments match the pattern ${JSON.stringify(pattern)}`,
  /** The last line when the usage text is cut at its bound. */
  more: (count: number, tools: readonly string[]) => {
    const named = tools.slice(0, MAX_NAMED_TOOLS).join(", ");
    const others = tools.length - Math.min(tools.length, MAX_NAMED_TOOLS);
    return `${count} more rule${count === 1 ? "" : "s"} like these apply to ${named}${others === 0 ? "" : ` and ${others} other tool${others === 1 ? "" : "s"}`}; a call one of them stops is answered with the rule's reason and where each value came from`;
  },
  after: (tools: string, after: readonly string[], untrusted: readonly string[], scope: "run" | "thread", mode: "deny" | "ask") => {
    const names = after.flatMap((name) => (name === "untrusted" ? untrusted : [name])).map((name) => `\`${name}\``);
    return `${tools}: once ${names.join(", ")} returned in this ${scope === "run" ? "request" : "conversation"}, ${mode === "deny" ? "it is refused" : "a human is asked first"}`;
  },
  callBudget: (tools: string, max: number, scope: "run" | "thread", mode: "deny" | "ask") =>
    `${tools}: at most ${max} call${max === 1 ? "" : "s"} per ${scope === "run" ? "request" : "conversation"}; beyond that ${consequence(mode)}`,
  budget: (tools: string, field: string, max: number, scope: "run" | "thread", mode: "deny" | "ask") =>
    `${tools}: \`${field}\` may add up to at most ${max} per ${scope === "run" ? "request" : "conversation"}; beyond that ${consequence(mode)}`,
};
