import type { BaseMessage } from "@langchain/core/messages";
import { provenanceIndex, type Evidence, type ProvenanceIndex } from "./index-builder.js";
import type { Principal } from "../principal/principal.js";
import type { TrustEntry } from "./schema.js";
import { trustTableOf, type TrustTable } from "./trust.js";

/** A call of the current turn reviewed before this one and not refused (it counts for budgets). */
export interface TurnCall {
  name: string;
  args: Record<string, unknown>;
}

/**
 * What a decision may know about the thread besides the call: the checkpointed messages (the only
 * source of truth; the provenance index is recomputed from them) and the calls of the same turn
 * reviewed before this one.
 */
export interface DecisionContext {
  readonly messages: readonly BaseMessage[];
  /** Keys the incremental index (the thread id). Without it the index is rebuilt each turn. */
  readonly threadId?: string | undefined;
  readonly turnCalls?: readonly TurnCall[] | undefined;
}

/** The decision context of a turn: its messages and thread (undefined when the caller has no messages). */
export function decisionContextOf(turn: { messages?: readonly BaseMessage[] | undefined; threadId?: string }): Omit<DecisionContext, "turnCalls"> | undefined {
  if (turn.messages === undefined) return undefined;
  return { messages: turn.messages, threadId: turn.threadId === "" ? undefined : turn.threadId };
}

/** The provenance settings of a policy: which tools' outputs are trusted, which are untrusted. */
export interface ProvenanceSettings {
  /**
   * Tools whose outputs are as good as what the user wrote (`trusted` in a `from` list): a name (the
   * whole output), or `{ tool, fields, argsFromUser }` (some fields of it, or only the outputs of calls
   * whose arguments the user typed).
   */
  trusted?: readonly TrustEntry[];
  /** Tools whose outputs carry text from outside (web pages, inboxes, files): `untrusted` in an `after` list. */
  untrusted?: readonly string[];
  /** Fewest letters and digits a value needs to be traced (default 3). */
  minLength?: number;
}

/** Per-decision evaluation state: the lazily built index and the evidence gathered. */
export class Evaluation {
  readonly context: DecisionContext | undefined;
  readonly settings: ProvenanceSettings;
  evidence: Evidence[] = [];
  private index: ProvenanceIndex | undefined;
  /** Which parts of which outputs are trusted or untrusted, made once per settings object. */
  readonly trust: TrustTable;
  /** The tools whose whole output is trusted, shared by every evaluation of one policy. */
  readonly trusted: ReadonlySet<string>;
  /** Who runs the call (`sameAs` and `principal` conditions); undefined when the caller gave none. */
  readonly principal: Principal | undefined;

  constructor(context: DecisionContext | undefined, settings: ProvenanceSettings, trusted?: ReadonlySet<string>, principal?: Principal) {
    this.context = context;
    this.principal = principal;
    this.settings = settings;
    this.trust = trustTableOf(settings);
    this.trusted = trusted ?? this.trust.whole;
  }

  /** `settings.untrusted` as a set (`from: [untrusted]`), made once per settings object. */
  get untrusted(): ReadonlySet<string> {
    return this.trust.untrusted;
  }

  /** The thread's provenance index, or undefined when the caller gave no messages (the guard cannot tell). */
  provenance(): ProvenanceIndex | undefined {
    if (this.context === undefined) return undefined;
    this.index ??= provenanceIndex(this.context.messages, this.context.threadId);
    return this.index;
  }
}
