import type { BaseMessage } from "@langchain/core/messages";
import { canonicalText, mayHold, tokenizeCanonical, withoutSeparators, type ValueQuery } from "./tokens.js";

/**
 * Where the values of a thread come from, recomputed from the checkpointed messages (they are the
 * only source of truth) and extended incrementally: a turn tokenises only the messages that are new
 * since the last turn of the same thread.
 */

/** The kind of text a value was found in. AI messages are never a source: the model may be hijacked. */
type SourceKind = "user" | "system" | "tool" | "call";

export interface SourceText {
  /** Position of the message in the thread. */
  index: number;
  kind: SourceKind;
  /** For `tool`: the tool whose output this is; for `call`: the tool whose earlier arguments these are. */
  tool?: string | undefined;
  toolCallId?: string | undefined;
  /** Id of the human message that started the run this text belongs to ("" before the first). */
  runId: string;
}

/** Where a value was found, or why not. Goes into the decision and the audit record. */
export interface Evidence {
  field: string;
  value: string;
  found: boolean;
  /** Where it was found (first acceptable source). */
  source?: SourceText;
  /** When not found: where the value does appear (e.g. only in a `read_file` output), if anywhere. */
  seenIn?: SourceText;
  note?: string;
  /** Set when no source was asked for (a deny or ask decided without a provenance condition): the item only says where the value appears. */
  located?: true;
}

/** Longest stretch of one message that is indexed; the rest of it is not a source (fail closed). */
const MAX_INDEXED_CHARS_PER_MESSAGE = 200_000;
/** Threads whose index is kept between turns (least recently used beyond this are dropped). */
const MAX_CACHED_THREADS = 64;

interface IndexedText extends SourceText {
  sequence: string;
  /** The same text without `sequence`, made once: what evidence refers to. */
  plain: SourceText;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") parts.push(part);
    else if (part !== null && typeof part === "object" && typeof (part as { text?: unknown }).text === "string") {
      parts.push((part as { text: string }).text);
    }
  }
  return parts.join("\n");
}

/** A cheap identity for a message: type, id, length, start and end of its text, tool call ids. */
function fingerprint(message: BaseMessage): string {
  const type = message.getType();
  const content = textOf(message.content);
  const calls = type === "ai" ? ((message as { tool_calls?: { id?: string | undefined }[] }).tool_calls ?? []).map((c) => c.id ?? "").join(",") : "";
  const extra = type === "tool" ? `${(message as { tool_call_id?: string }).tool_call_id ?? ""}:${(message as { status?: string }).status ?? ""}` : "";
  return `${type}|${message.id ?? ""}|${content.length}|${content.slice(0, 16)}|${content.slice(-16)}|${calls}|${extra}`;
}

interface PendingCall {
  tool: string;
  args: unknown;
}

/** The provenance index of one thread. Build it with `provenanceIndex(messages, threadKey)`. */
export class ProvenanceIndex {
  private readonly texts: IndexedText[] = [];
  /** Key → the position of the one text that holds it, or the positions (ascending) when several do: most keys are in one text only. */
  private readonly byKey = new Map<string, number | number[]>();
  private readonly fingerprints: string[] = [];
  /** The message objects indexed (or last found equal to them), position by position. */
  private readonly refs: BaseMessage[] = [];
  /** Tool calls seen in AI messages, by id, until their ToolMessage arrives. */
  private readonly pending = new Map<string, PendingCall>();
  /** Tools that returned (successfully or not), with the index and run of each output, in order. */
  readonly outputs: { tool: string; index: number; runId: string; toolCallId: string; ok: boolean }[] = [];
  /** Calls that completed without error, with their arguments (for budgets and grown allow-lists). */
  readonly completedCalls: { tool: string; args: unknown; index: number; runId: string; toolCallId: string }[] = [];
  /** The arguments of each completed call, by the message position of its output (for trust derived from a call's arguments). */
  private readonly callArgs = new Map<number, unknown>();
  /** The text of each successful tool output, by message position (for trust scoped to fields of an output). */
  private readonly outputTexts = new Map<number, string>();
  runId = "";
  /** Index of the human message that started the current run (-1 before any). */
  runStart = -1;

  /** Texts appended but not yet tokenised: a lookup tokenises them first (decisions that need no new lookup never pay for it). */
  private readonly unindexed: { source: SourceText; canonical: string; compact?: string }[] = [];

  /** How many texts the index holds, tokenised or waiting (grows with every message or call argument). */
  get size(): number {
    return this.texts.length + this.unindexed.length;
  }

  /** How many messages are indexed. */
  get length(): number {
    return this.fingerprints.length;
  }

  /**
   * True when `messages` extends what is indexed: every indexed message is still there, unchanged
   * (type, id, length, start and end of its text, tool call ids). A history that was rewritten anywhere
   * (messages removed, replaced or summarised) is indexed again, so a removed message never stays
   * a source. One pass of cheap comparisons per turn.
   */
  extends(messages: readonly BaseMessage[]): boolean {
    if (messages.length < this.fingerprints.length) return false;
    for (let i = this.fingerprints.length - 1; i >= 0; i--) {
      const message = messages[i]!;
      // The same message object as indexed (the common case in one process) needs no fingerprint.
      if (message === this.refs[i]) continue;
      if (fingerprint(message) !== this.fingerprints[i]) return false;
      this.refs[i] = message;
    }
    return true;
  }

  /** Indexes the messages after those already indexed. */
  append(messages: readonly BaseMessage[]): void {
    for (let index = this.fingerprints.length; index < messages.length; index++) {
      const message = messages[index]!;
      this.fingerprints.push(fingerprint(message));
      this.refs.push(message);
      const type = message.getType();
      if (type === "human") {
        this.runId = message.id ?? `human@${index}`;
        this.runStart = index;
        this.add({ index, kind: "user", runId: this.runId }, textOf(message.content));
      } else if (type === "system") {
        this.add({ index, kind: "system", runId: this.runId }, textOf(message.content));
      } else if (type === "ai") {
        for (const call of (message as { tool_calls?: { id?: string | undefined; name: string; args: unknown }[] }).tool_calls ?? []) {
          if (call.id !== undefined) this.pending.set(call.id, { tool: call.name, args: call.args });
        }
      } else if (type === "tool") {
        const tool = message as BaseMessage & { tool_call_id: string; status?: string; name?: string };
        const call = this.pending.get(tool.tool_call_id);
        this.pending.delete(tool.tool_call_id);
        const name = call?.tool ?? tool.name ?? "";
        const ok = tool.status !== "error";
        this.outputs.push({ tool: name, index, runId: this.runId, toolCallId: tool.tool_call_id, ok });
        // A refusal or a failure is the guard's or the tool's own text: it may quote the arguments, so it is never a source.
        if (!ok) continue;
        const text = textOf(tool.content);
        this.add({ index, kind: "tool", tool: name, toolCallId: tool.tool_call_id, runId: this.runId }, text);
        this.outputTexts.set(index, text.length > MAX_INDEXED_CHARS_PER_MESSAGE ? text.slice(0, MAX_INDEXED_CHARS_PER_MESSAGE) : text);
        if (call !== undefined) {
          this.completedCalls.push({ tool: name, args: call.args, index, runId: this.runId, toolCallId: tool.tool_call_id });
          this.callArgs.set(index, call.args);
          this.addArgs({ index, kind: "call", tool: name, toolCallId: tool.tool_call_id, runId: this.runId }, call.args);
        }
      }
    }
  }

  /** The text of the successful tool output at message position `index` (as indexed: at most 200,000 characters). */
  outputText(index: number): string | undefined {
    return this.outputTexts.get(index);
  }

  /** The arguments of the call whose successful output is at message position `index` (undefined: no such call is known). */
  argsOfOutput(index: number): { args: unknown } | undefined {
    return this.callArgs.has(index) ? { args: this.callArgs.get(index) } : undefined;
  }

  private addArgs(source: SourceText, args: unknown): void {
    const strings: string[] = [];
    const walk = (value: unknown, depth: number) => {
      if (depth > 32) return;
      if (typeof value === "string" || typeof value === "number") strings.push(String(value));
      else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
      else if (value !== null && typeof value === "object") for (const item of Object.values(value)) walk(item, depth + 1);
    };
    walk(args, 0);
    // Each argument value is its own text: a run of tokens never spans two arguments.
    for (const text of strings) this.add(source, text);
  }

  private add(source: SourceText, text: string): void {
    if (text.length > 0) this.unindexed.push({ source, canonical: canonicalText(text.length > MAX_INDEXED_CHARS_PER_MESSAGE ? text.slice(0, MAX_INDEXED_CHARS_PER_MESSAGE) : text) });
  }

  /** Tokenises the texts appended since the last lookup, in thread order. */
  private flush(): void {
    for (const { source, canonical } of this.unindexed) this.tokenise(source, canonical);
    this.unindexed.length = 0;
  }

  /**
   * False when none of the texts added since the index held `since` texts can hold the value (all of
   * them still waiting to be tokenised, checked with {@link mayHold}); true when one may, or when
   * some were tokenised already (then ask `find`). Lets a value found nowhere stay "nowhere" as the
   * thread grows without tokenising every new text.
   */
  mayHoldSince(query: ValueQuery, since: number): boolean {
    if (since < this.texts.length) return true;
    for (let i = since - this.texts.length; i < this.unindexed.length; i++) {
      const entry = this.unindexed[i]!;
      if (mayHold(entry.canonical, query, () => (entry.compact ??= withoutSeparators(entry.canonical)))) return true;
    }
    return false;
  }

  private tokenise(source: SourceText, canonical: string): void {
    const { keys, sequence } = tokenizeCanonical(canonical);
    const position = this.texts.length;
    this.texts.push({ ...source, sequence, plain: source });
    for (const key of keys) {
      const held = this.byKey.get(key);
      if (held === undefined) this.byKey.set(key, position);
      else if (typeof held === "number") {
        if (held !== position) this.byKey.set(key, [held, position]);
      } else if (held[held.length - 1] !== position) held.push(position);
    }
  }

  /**
   * The first text (in thread order) that contains the value and that `accept` admits, else the first
   * text that contains it at all (as `seenIn`), else nothing.
   */
  find(query: ValueQuery, accept: (source: SourceText) => boolean): { source?: SourceText; seenIn?: SourceText } {
    if (this.unindexed.length > 0) this.flush();
    let seenIn: IndexedText | undefined;
    let best: IndexedText | undefined;
    for (const alternative of query.alternatives) {
      const held = this.byKey.get(alternative.key);
      if (held === undefined) continue;
      const positions = typeof held === "number" ? [held] : held;
      for (const position of positions) {
        const text = this.texts[position]!;
        if (best !== undefined && text.index >= best.index) break;
        if (alternative.sequence !== undefined && !text.sequence.includes(alternative.sequence)) continue;
        if (accept(text)) {
          best = text;
          break;
        }
        if (seenIn === undefined || text.index < seenIn.index) seenIn = text;
      }
    }
    if (best !== undefined) return { source: best.plain };
    return seenIn === undefined ? {} : { seenIn: seenIn.plain };
  }
}


const cache = new Map<string, ProvenanceIndex>();
/** The same messages array (one turn's calls) at the same length: the index as it was, without checks. */
const byArray = new WeakMap<readonly BaseMessage[], { length: number; index: ProvenanceIndex }>();

/**
 * The index of a thread's messages. With a `threadKey` (the thread id), the index of the previous turn
 * is extended when the messages still start with what it indexed; otherwise it is rebuilt.
 */
export function provenanceIndex(messages: readonly BaseMessage[], threadKey?: string): ProvenanceIndex {
  const same = byArray.get(messages);
  if (same !== undefined && same.length === messages.length && same.index.length === messages.length) return same.index;
  const index = indexFor(messages, threadKey);
  byArray.set(messages, { length: messages.length, index });
  return index;
}

function indexFor(messages: readonly BaseMessage[], threadKey: string | undefined): ProvenanceIndex {
  if (threadKey !== undefined) {
    const cached = cache.get(threadKey);
    if (cached !== undefined && cached.extends(messages)) {
      cache.delete(threadKey);
      cache.set(threadKey, cached);
      cached.append(messages);
      return cached;
    }
  }
  const index = new ProvenanceIndex();
  index.append(messages);
  if (threadKey !== undefined) {
    cache.delete(threadKey);
    cache.set(threadKey, index);
    if (cache.size > MAX_CACHED_THREADS) cache.delete(cache.keys().next().value as string);
  }
  return index;
}

