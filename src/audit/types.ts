/** One audited guard decision (or its outcome). Records are idempotent by `id`. */
export interface AuditRecord {
  /** Deterministic: the same decision re-computed on resume has the same id, so sinks drop duplicates. */
  id: string;
  /** Epoch ms. */
  at: number;
  threadId: string;
  runId: string;
  toolCallId: string;
  tool: string;
  operation?: string | undefined;
  /** Canonical JSON of the arguments, with redacted fields replaced by "[REDACTED]". */
  args: string;
  /** `allow`/`deny`/`ask` from review; `approve`/`edit`/`reject` from a human; `executed`/`failed`/`cancelled` after running. */
  event: "decision" | "human" | "outcome" | "killswitch" | "policy";
  decision: string;
  ruleId: string;
  reason: string;
  risk?: string | undefined;
  /** Who answered an approval, when known. */
  actor?: string | undefined;
  /** On a human answer: the authenticated user of the run that made the call (approver rules), when known. */
  requester?: string | undefined;
  detail?: Record<string, unknown> | undefined;
}

export interface AuditQuery {
  threadId?: string;
  /** Only records with `at` greater than this (for --follow). */
  after?: number;
  limit?: number;
}

/**
 * Where a SQL sink keeps its records. An execution ledger on the same database (`openLedger` with
 * the same SQLite file or PostgreSQL URL) writes a batch's records in the transaction of its claims
 * or completions: one commit for both.
 */
export type AuditStore = { kind: "sqlite"; path: string; table: string } | { kind: "postgres"; url: string; table: string };

export interface AuditSink {
  /** The database and table of a SQL sink (absent for any other sink). */
  readonly store?: AuditStore | undefined;
  /** Writes records; a record whose id was already written is ignored. */
  write(records: readonly AuditRecord[]): Promise<void>;
  query(query?: AuditQuery): Promise<AuditRecord[]>;
  close(): Promise<void>;
}
