import { MemorySaver, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { importOptional, loadAllOptional, loadBetterSqlite3, loadPg } from "../optional/index.js";
import { registerThreadSource } from "./thread-source.js";
import { ensureSqliteDirectory, parseStorageSpec, resolveStorageSpec, sqlIdentifier } from "./spec.js";
import { ErrorCode, StorageError } from "../errors/index.js";
import { withDdlLock } from "./ddl-lock.js";
import { prepareSqliteFile } from "./sqlite-file.js";

export type CheckpointerKind = "sqlite" | "postgres" | "memory";

export interface OpenedCheckpointer {
  checkpointer: BaseCheckpointSaver;
  kind: CheckpointerKind;
  /** The spec that was opened (after the environment/default fallback). */
  spec: string;
  close(): Promise<void>;
}

/** Options of `openCheckpointer`. */
export interface OpenCheckpointerOptions {
  /** PostgreSQL schema for the checkpoint tables (default "public"); created when missing. */
  schema?: string;
}

/**
 * Opens the checkpointer named by `spec`, else `GUARDED_GRAPH_DB`, else the embedded default
 * `sqlite:.guarded-graph/checkpoints.db`. Forms: `sqlite:PATH`, `postgres://…`, `memory:`.
 */
export async function openCheckpointer(spec?: string, options: OpenCheckpointerOptions = {}): Promise<OpenedCheckpointer> {
  const parsed = parseStorageSpec(resolveStorageSpec(spec));
  switch (parsed.kind) {
    case "memory":
      return { checkpointer: new MemorySaver(), kind: "memory", spec: parsed.spec, close: async () => undefined };
    case "sqlite": {
      ensureSqliteDirectory(parsed.path);
      const feature = "the SQLite checkpointer (sqlite:PATH)";
      // Both packages are checked before failing, so a missing pair is named in one message.
      const [Database, { SqliteSaver }] = await loadAllOptional(feature, [
        () => loadBetterSqlite3(feature),
        () => importOptional("@langchain/langgraph-checkpoint-sqlite", feature, () => import("@langchain/langgraph-checkpoint-sqlite")),
      ] as const);
      const db = new Database(parsed.path);
      const checkpointer = new SqliteSaver(db);
      // Several processes may share the file: WAL and the saver's tables are set up here, where a
      // refusal SQLite gives without waiting is tried again, not on the saver's first read (its own
      // setup switches to WAL and fails at once with "database is locked" in those cases).
      try {
        prepareSqliteFile(db, { wal: true, schema: () => setUpSaver(checkpointer) });
      } catch (error) {
        db.close();
        throw error;
      }
      registerThreadSource(checkpointer, { kind: "sqlite", db });
      return {
        checkpointer,
        kind: "sqlite",
        spec: parsed.spec,
        close: async () => {
          if (db.open) db.close();
        },
      };
    }
    case "postgres": {
      const schema = sqlIdentifier(options.schema ?? "public", "PostgreSQL schema");
      const pool = new (loadPg("the PostgreSQL checkpointer (postgres://URL)")).Pool({ connectionString: parsed.url, max: 10 });
      // An idle client that loses its connection must not crash the process.
      pool.on("error", () => undefined);
      try {
        // Loaded only for PostgreSQL: importing it costs about 2 s of start-up, paid by every CLI command.
        const { PostgresSaver } = await importOptional(
          "@langchain/langgraph-checkpoint-postgres",
          "the PostgreSQL checkpointer (postgres://URL)",
          () => import("@langchain/langgraph-checkpoint-postgres"),
        );
        const checkpointer = new PostgresSaver(pool, undefined, { schema });
        // Two openers of a fresh schema would both create it and both run the saver's migrations
        // (unique violations on pg_namespace, pg_type and checkpoint_migrations): serialised.
        await withDdlLock(pool, async () => {
          await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
          await checkpointer.setup();
        });
        registerThreadSource(checkpointer, { kind: "postgres", pool, schema });
        return { checkpointer, kind: "postgres", spec: parsed.spec, close: () => pool.end() };
      } catch (error) {
        await pool.end().catch(() => undefined);
        throw new StorageError(ErrorCode.STORAGE_OPEN, `cannot open PostgreSQL checkpointer at ${redactUrl(parsed.url)}: ${(error as Error).message}`, {
          cause: error,
        });
      }
    }
  }
}

/** The URL without its password, for error messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "<invalid url>";
  }
}

/** The SQLite saver's table creation (run once; later calls return at once). */
function setUpSaver(saver: object): void {
  const setup = (saver as { setup?: unknown }).setup;
  if (typeof setup !== "function") return; // a saver without it sets itself up on first use
  const done: unknown = setup.call(saver);
  if (done instanceof Promise) throw new StorageError(ErrorCode.STORAGE_OPEN, "cannot open the SQLite checkpointer: its setup is asynchronous in this version of @langchain/langgraph-checkpoint-sqlite, which this version of guarded-graph does not support");
}
