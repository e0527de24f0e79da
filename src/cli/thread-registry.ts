import { z } from "zod";
import { GRAPH_NAMES } from "../../graphs/shared.js";
import { ensureSqliteDirectory, parseStorageSpec } from "../storage/spec.js";
import { loadBetterSqlite3, loadPg } from "../optional/index.js";
import { prepareSqliteFile } from "../storage/sqlite-file.js";

/** Which graph (and policy) a CLI thread runs, so `approve` in a new process resumes the same graph. */
export interface ThreadEntry {
  threadId: string;
  graph: (typeof GRAPH_NAMES)[number];
  policy: string | null;
  /** The scenario file the offline model played when the thread started (GUARDED_GRAPH_SCENARIO), else null. */
  scenario: string | null;
  createdAt: string;
}

const entrySchema = z.object({
  thread_id: z.string(),
  graph: z.enum(GRAPH_NAMES),
  policy: z.string().nullable(),
  // Absent in tables created before the column existed.
  scenario: z.string().nullable().optional(),
  created_at: z.string(),
});

export interface ThreadRegistry {
  register(entry: Omit<ThreadEntry, "createdAt">): Promise<void>;
  get(threadId: string): Promise<ThreadEntry | undefined>;
  list(): Promise<ThreadEntry[]>;
  close(): Promise<void>;
}

const TABLE = "guarded_graph_cli_threads";
const toEntry = (row: unknown): ThreadEntry => {
  const r = entrySchema.parse(row);
  return { threadId: r.thread_id, graph: r.graph, policy: r.policy, scenario: r.scenario ?? null, createdAt: r.created_at };
};
const memoryRegistries = new Map<string, Map<string, ThreadEntry>>();

/** Opens the registry in the same database as the checkpoints (a table next to them). */
export async function openThreadRegistry(spec: string): Promise<ThreadRegistry> {
  const parsed = parseStorageSpec(spec);
  if (parsed.kind === "memory") {
    const rows = memoryRegistries.get(parsed.name) ?? new Map<string, ThreadEntry>();
    memoryRegistries.set(parsed.name, rows);
    return {
      register: async (e) => void (rows.has(e.threadId) || rows.set(e.threadId, { ...e, createdAt: new Date().toISOString() })),
      get: async (id) => rows.get(id),
      list: async () => [...rows.values()],
      close: async () => undefined,
    };
  }
  const ddl = `CREATE TABLE IF NOT EXISTS ${TABLE} (thread_id TEXT PRIMARY KEY, graph TEXT NOT NULL, policy TEXT, created_at TEXT NOT NULL, scenario TEXT)`;
  if (parsed.kind === "sqlite") {
    ensureSqliteDirectory(parsed.path);
    const db = new (loadBetterSqlite3("SQLite storage (sqlite:PATH)"))(parsed.path);
    prepareSqliteFile(db, { wal: false, schema: () => db.exec(ddl) });
    // Tables made before the scenario column: add it (a racing process may have added it first).
    const columns = db.prepare(`PRAGMA table_info(${TABLE})`).all() as { name: string }[];
    if (!columns.some((c) => c.name === "scenario")) {
      try {
        db.exec(`ALTER TABLE ${TABLE} ADD COLUMN scenario TEXT`);
      } catch (error) {
        if (!/duplicate column/i.test((error as Error).message)) throw error;
      }
    }
    return {
      register: async (e) =>
        void db
          .prepare(`INSERT OR IGNORE INTO ${TABLE} (thread_id, graph, policy, scenario, created_at) VALUES (?, ?, ?, ?, ?)`)
          .run(e.threadId, e.graph, e.policy, e.scenario, new Date().toISOString()),
      get: async (id) => {
        const row: unknown = db.prepare(`SELECT * FROM ${TABLE} WHERE thread_id = ?`).get(id);
        return row === undefined ? undefined : toEntry(row);
      },
      list: async () => db.prepare(`SELECT * FROM ${TABLE}`).all().map(toEntry),
      close: async () => void (db.open && db.close()),
    };
  }
  const pool = new (loadPg("PostgreSQL storage (postgres://URL)")).Pool({ connectionString: parsed.url, max: 2 });
  pool.on("error", () => undefined);
  try {
    await pool.query(ddl);
    await pool.query(`ALTER TABLE ${TABLE} ADD COLUMN IF NOT EXISTS scenario TEXT`);
  } catch (error) {
    // Two processes creating the table at once: the loser sees a unique violation; the table exists.
    if ((error as { code?: string }).code !== "23505") {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }
  return {
    register: async (e) =>
      void (await pool.query(
        `INSERT INTO ${TABLE} (thread_id, graph, policy, scenario, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (thread_id) DO NOTHING`,
        [e.threadId, e.graph, e.policy, e.scenario, new Date().toISOString()],
      )),
    get: async (id) => {
      const result = await pool.query(`SELECT * FROM ${TABLE} WHERE thread_id = $1`, [id]);
      return result.rows[0] === undefined ? undefined : toEntry(result.rows[0]);
    },
    list: async () => (await pool.query(`SELECT * FROM ${TABLE}`)).rows.map(toEntry),
    close: () => pool.end(),
  };
}
