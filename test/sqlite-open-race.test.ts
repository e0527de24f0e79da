/**
 * Opening one SQLite file from several processes at once, right after a writer was killed mid-write
 * (what a restarted worker meets): switching to WAL must not fail with "database is locked". SQLite
 * answers SQLITE_BUSY at once, without waiting out the busy timeout, when waiting could deadlock or
 * while another opener recovers the killed writer's log; `prepareSqliteFile` reads the mode first and
 * tries a refused switch (and the opener's table creation) again until the busy timeout would have
 * ended. The openers are the package's own: checkpointer, thread lock, ledger, audit sink.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { prepareSqliteFile } from "../src/storage/sqlite-file.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const CHILD = join(import.meta.dirname, "fixtures", "sqlite", "open-race-child.ts");
const dir = mkdtempSync(join(tmpdir(), "gg-sqlite-open-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(role: "writer" | "opener", startAt: number, files: readonly string[]) {
  const child = spawn(process.execPath, nodeArgsFor(CHILD, role, String(startAt), ...files), { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<{ code: number | null; out: string }>((resolve) => child.on("exit", (code) => resolve({ code, out })));
  return { child, done };
}

/** Six processes open every file, all of them each file at the same moment; their failures. */
async function openTogether(files: readonly string[]): Promise<string[]> {
  // Far enough ahead for every process to have loaded the package, on a loaded machine too.
  const startAt = Date.now() + 8_000;
  const openers = await Promise.all(Array.from({ length: 6 }, () => run("opener", startAt, files).done));
  return openers.flatMap(({ code, out }, i) => (code === 0 ? [] : [`opener ${i}: exit ${code} ${out}`]));
}

/** A connection stand-in whose pragmas answer from a script. */
function scripted(answers: (string | Error)[]) {
  const calls: string[] = [];
  return {
    calls,
    db: {
      pragma(source: string): unknown {
        calls.push(source);
        if (source.startsWith("busy_timeout")) return undefined;
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next ?? "wal";
      },
    },
  };
}
const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

describe("prepareSqliteFile", () => {
  it("does not switch a file already in WAL", () => {
    const { db, calls } = scripted(["wal"]);
    prepareSqliteFile(db as never, { wal: true });
    expect(calls).toEqual(["busy_timeout = 5000", "journal_mode"]);
  });

  it("tries a switch SQLite refused at once again, and stops when it succeeds", () => {
    const { db, calls } = scripted(["delete", busy(), busy(), "delete", "wal"]);
    prepareSqliteFile(db as never, { wal: true });
    expect(calls).toEqual(["busy_timeout = 5000", "journal_mode", "journal_mode = WAL", "journal_mode", "journal_mode", "journal_mode = WAL"]);
  });

  it("tries the opener's table creation again after a refusal without waiting, after the mode", () => {
    const { db, calls } = scripted(["wal"]);
    const answers: (Error | undefined)[] = [busy(), busy(), undefined];
    prepareSqliteFile(db as never, {
      wal: true,
      schema: () => {
        calls.push("schema");
        const next = answers.shift();
        if (next) throw next;
      },
    });
    expect(calls).toEqual(["busy_timeout = 5000", "journal_mode", "schema", "schema", "schema"]);
  });

  it("passes on any other error at once", () => {
    const broken = Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" });
    const { db } = scripted([broken]);
    expect(() => prepareSqliteFile(db as never, { wal: true })).toThrow("file is not a database");
  });

  it("gives up with SQLITE_BUSY once the busy timeout would have ended", () => {
    const db = { pragma: (source: string) => { if (!source.startsWith("busy_timeout")) throw busy(); } };
    const started = Date.now();
    expect(() => prepareSqliteFile(db as never, { wal: true })).toThrow("database is locked");
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
  });
});

describe("openCheckpointer sets the file up where a refusal is tried again", () => {
  it("the file is in WAL and the saver's tables exist when openCheckpointer returns, before any read", async () => {
    const { default: Database } = await import("better-sqlite3");
    const { openCheckpointer } = await import("../src/storage/checkpointer.js");
    const file = join(dir, "checkpointer-setup.db");
    const opened = await openCheckpointer(`sqlite:${file}`);
    const probe = new Database(file, { readonly: true });
    try {
      expect(String(probe.pragma("journal_mode", { simple: true })).toLowerCase()).toBe("wal");
      const tables = (probe.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
      expect(tables).toEqual(["checkpoints", "writes"]);
    } finally {
      probe.close();
      await opened.close();
    }
  });
});

describe("several processes open a file whose writer was just killed", () => {
  it("every opener switches to WAL, sets up its tables and writes (5 files × 6 openers at once)", async () => {
    const files = Array.from({ length: 5 }, (_, k) => join(dir, `race-${k}.db`));
    const writers = files.map((file) => run("writer", 0, [file]));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const writer of writers) writer.child.kill("SIGKILL");
    await Promise.all(writers.map((w) => w.done));
    expect(await openTogether(files)).toEqual([]);
  }, 180_000);

  it("every opener of a new file sets it up and writes (5 new files × 6 openers at once)", async () => {
    const files = Array.from({ length: 5 }, (_, k) => join(dir, `new-${k}.db`));
    expect(await openTogether(files)).toEqual([]);
  }, 180_000);
});

describe("commits that must survive a power loss are synced", () => {
  it("the execution ledger's and the SQLite audit sink's connections run synchronous = FULL, after WAL", async () => {
    const { default: Database } = await import("better-sqlite3");
    const { openLedger } = await import("../src/storage/ledger.js");
    const { SqliteAuditSink } = await import("../src/audit/sqlite.js");
    const seen = new Map<object, string[]>();
    const original = Database.prototype.pragma;
    Database.prototype.pragma = function (this: object, source: string, options?: { simple?: boolean }) {
      seen.set(this, [...(seen.get(this) ?? []), source]);
      return original.call(this, source, options);
    } as typeof original;
    try {
      const ledger = await openLedger(`sqlite:${join(dir, "synced.db")}`);
      const sink = await SqliteAuditSink.open(join(dir, "synced-audit.db"));
      await ledger.close?.();
      await sink.close();
    } finally {
      Database.prototype.pragma = original;
    }
    const connections = [...seen.values()];
    expect(connections).toHaveLength(2);
    for (const sources of connections) {
      expect(sources).toContain("synchronous = FULL");
      expect(sources.indexOf("synchronous = FULL")).toBeGreaterThan(sources.findIndex((s) => s.startsWith("journal_mode")));
    }
  });
});
