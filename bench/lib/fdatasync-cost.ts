/**
 * What one JSONL audit append costs on this machine's disk, with and without the `fdatasync` the
 * sink makes before a call may start (not part of `npm run bench`; BENCHMARKS.md, "Session 7").
 * Appends a 300-byte line N times per mode, modes interleaved in blocks; prints per append the
 * median over blocks of wall time and of this process's user and system CPU time. A third mode
 * commits one 300-byte row per transaction to a SQLite file (WAL, synchronous=FULL, as the
 * execution ledger and the SQLite audit sink do): the cost of one commit per batch.
 *   npx tsx bench/lib/fdatasync-cost.ts [blocks] [appendsPerBlock]
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { median } from "./stats.js";

const blocks = Number(process.argv[2] ?? 10);
const perBlock = Number(process.argv[3] ?? 200);
const dir = mkdtempSync(join(tmpdir(), "gg-fdatasync-"));
const fd = openSync(join(dir, "audit.jsonl"), "a+");
const line = `${JSON.stringify({ id: "x".repeat(32), event: "decision", args: "y".repeat(220) })}\n`;
const modes = ["append", "append + fdatasync", "sqlite commit"] as const;
const results: Record<(typeof modes)[number], { wall: number[]; user: number[]; system: number[] }> = {
  append: { wall: [], user: [], system: [] },
  "append + fdatasync": { wall: [], user: [], system: [] },
  "sqlite commit": { wall: [], user: [], system: [] },
};
const db = new Database(join(dir, "commit.db"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = FULL");
db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
const commit = db.transaction((v: string) => insert.run(v));
try {
  for (let b = 0; b < blocks; b++) {
    for (const mode of b % 2 === 0 ? modes : [...modes].reverse()) {
      if (mode === "sqlite commit") {
        const cpu0 = process.cpuUsage();
        const wall0 = performance.now();
        for (let i = 0; i < perBlock; i++) commit.immediate(line);
        const cpu = process.cpuUsage(cpu0);
        results[mode].wall.push(((performance.now() - wall0) * 1000) / perBlock);
        results[mode].user.push(cpu.user / perBlock);
        results[mode].system.push(cpu.system / perBlock);
        continue;
      }
      const cpu0 = process.cpuUsage();
      const wall0 = performance.now();
      for (let i = 0; i < perBlock; i++) {
        writeSync(fd, line);
        if (mode !== "append") fdatasyncSync(fd);
      }
      const cpu = process.cpuUsage(cpu0);
      results[mode].wall.push(((performance.now() - wall0) * 1000) / perBlock);
      results[mode].user.push(cpu.user / perBlock);
      results[mode].system.push(cpu.system / perBlock);
    }
  }
} finally {
  closeSync(fd);
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${blocks} blocks of ${perBlock} appends (or commits) per mode; µs per append (or commit), median of blocks`);
for (const mode of modes) {
  const r = results[mode];
  console.log(`${mode.padEnd(20)} wall ${median(r.wall).toFixed(1).padStart(7)}  user ${median(r.user).toFixed(1).padStart(6)}  system ${median(r.system).toFixed(1).padStart(6)}  CPU ${(median(r.user) + median(r.system)).toFixed(1).padStart(6)}`);
}
