import type { BaseMessage } from "@langchain/core/messages";
import { provenanceIndex, type Evidence, type ProvenanceIndex } from "./index-builder.js";
import type { Principal } from "../principal/principal.js";

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
  /** Tools whose outputs are as good as what the user wrote (`trusted` in a `from` list). */
  trusted?: readonly string[];
  /** Tools whose outputs carry text from outside (web pages, inboxes, files): `untrusted` in an `after` list. */
  untrusted?: readonly string[];
  /** Fewest letters and digits a value needs to be traced (default 3). */
  minLength?: number;
}

const untrustedSets = new WeakMap<ProvenanceSettings, ReadonlySet<string>>();

/** Per-decision evaluation state: the lazily built index and the evidence gathered. */
export class Evaluation {
  readonly context: DecisionContext | undefined;
  readonly settings: ProvenanceSettings;
  evidence: Evidence[] = [];
  private index: ProvenanceIndex | undefined;
  /** `settings.trusted` as a set, shared by every evaluation of one policy. */
  readonly trusted: ReadonlySet<string>;
  /** Who runs the call (`sameAs` and `principal` conditions); undefined when the caller gave none. */
  readonly principal: Principal | undefined;

  constructor(context: DecisionContext | undefined, settings: ProvenanceSettings, trusted?: ReadonlySet<string>, principal?: Principal) {
    this.context = context;
    this.principal = principal;
    this.settings = settings;
    this.trusted = trusted ?? new Set(settings.trusted ?? []);
  }

  /** `settings.untrusted` as a set (`from: [untrusted]`), made once per settings object. */
  get untrusted(): ReadonlySet<string> {
    let set = untrustedSets.get(this.settings);
    if (set === undefined) {
      set = new Set(this.settings.untrusted ?? []);
      untrustedSets.set(this.settings, set);
    }
    return set;
  }

  /** The thread's provenance index, or undefined when the caller gave no messages (the guard cannot tell). */
  provenance(): ProvenanceIndex | undefined {
    if (this.context === undefined) return undefined;
    this.index ??= provenanceIndex(this.context.messages, this.context.threadId);
    return this.index;
  }
}
