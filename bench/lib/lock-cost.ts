/**
 * What one PostgreSQL thread-lock attempt (acquire + release) costs this process in CPU: with a new
 * connection per attempt (as `acquireThreadLock` did before its pool of sessions) and through
 * `acquireThreadLock` now. 6 interleaved blocks of 100 attempts (not part of `npm run bench`).
 *   POSTGRES_URL=… npx tsx bench/lib/lock-cost.ts
 */
import pg from "pg";
import { acquireThreadLock } from "../../src/storage/lock.js";
import { median } from "./stats.js";

const url = process.env.POSTGRES_URL;
if (!url) throw new Error("lock-cost: set POSTGRES_URL");
const PER_BLOCK = 100;
const lockArgs = ["guarded-graph:thread", "lock-cost-thread"];
const fresh = async () => {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  await client.query("SELECT pg_try_advisory_lock(hashtext($1), hashtext($2))", lockArgs);
  await client.query("SELECT pg_advisory_unlock(hashtext($1), hashtext($2))", lockArgs);
  await client.end();
};
const pooled = async () => {
  const lock = await acquireThreadLock(url, "lock-cost-thread");
  await lock?.release();
};
const modes = { "new connection": fresh, "acquireThreadLock (pool)": pooled };
for (const attempt of Object.values(modes)) for (let i = 0; i < 20; i++) await attempt();
const us: Record<string, number[]> = {};
for (let block = 0; block < 6; block++) {
  const order = Object.entries(modes);
  for (const [name, attempt] of block % 2 === 0 ? order : order.reverse()) {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < PER_BLOCK; i++) await attempt();
    const cpu = process.cpuUsage(cpu0);
    (us[name] ??= []).push((cpu.user + cpu.system) / PER_BLOCK);
  }
}
for (const [name, values] of Object.entries(us)) console.log(`${name.padEnd(26)} ${median(values).toFixed(0)} µs CPU per acquire + release (blocks: ${values.map((v) => v.toFixed(0)).join(" ")})`);
process.exit(0);
