import { selectRecords } from "./select.js";
import { isBuiltRecord, validateQuery, validateRecords } from "./schema.js";
import type { AuditQuery, AuditRecord, AuditSink } from "./types.js";
import { AuditError, ErrorCode } from "../errors/index.js";

/** In-process audit log for tests and benchmarks; not durable. Dedupes by id like the others. */
export class MemoryAuditSink implements AuditSink {
  readonly #records: AuditRecord[] = [];
  readonly #ids = new Set<string>();
  #closed = false;

  async write(records: readonly AuditRecord[]): Promise<void> {
    if (this.#closed) throw new AuditError(ErrorCode.AUDIT_WRITE, "audit write refused: the memory sink is closed");
    for (const record of validateRecords(records)) {
      if (this.#ids.has(record.id)) continue;
      this.#ids.add(record.id);
      // A caller's record is copied (it may change it later); one the guard built is its own and
      // never changed after the write. Queries hand out copies either way.
      this.#records.push(isBuiltRecord(record) ? record : structuredClone(record));
    }
  }

  async query(query?: AuditQuery): Promise<AuditRecord[]> {
    return selectRecords(this.#records, validateQuery(query)).map((record) => structuredClone(record));
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}
