/**
 * W2h under the profiler, after warm-up: the heterogeneous guard's `reviewTurn` (or
 * `PermissionPolicy.decide` alone) on the 1,000-rule workload; writes DIR/w2h.cpuprofile.
 *   npx tsx bench/lib/profile-w2h.ts DIR [calls] [--decide] [--first-seen]
 * `--first-seen`: no call is decided twice (the calls are made from their JSON text before the run,
 * as a model's arrive), instead of the workload's 1,000 calls over and over.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { RunnableLambda } from "@langchain/core/runnables";
import { heteroGuard, HETERO_SEED } from "../w2-hetero.js";
import { heteroWorkload } from "./hetero.js";
import { PermissionPolicy } from "../../src/policy/index.js";

await RunnableLambda.from((x: number) => x + 1).invoke(1);
const dir = process.argv[2] ?? "";
if (dir === "") throw new Error("usage: profile-w2h.ts DIR [calls] [--decide]");
const n = Number(process.argv[3] ?? "600000");
const decideOnly = process.argv.includes("--decide");
const firstSeen = process.argv.includes("--first-seen");
const WARM = 50_000;
const workload = heteroWorkload({ seed: HETERO_SEED, rules: 1_000, tools: 100, calls: firstSeen ? WARM + n : 1_000 });
const calls = firstSeen ? workload.calls.map((call) => JSON.parse(JSON.stringify(call)) as typeof call) : workload.calls;
let next = 0;
const { guard, state } = heteroGuard(workload);
const policy = new PermissionPolicy(workload.permissions, { mainArguments: workload.mainArguments });
const risk = new Map(workload.tools.map((t) => [t.name, t.risk]));
const run = async (count: number) => {
  for (let i = 0; i < count; i++) {
    const call = calls[next++ % calls.length]!;
    if (decideOnly) policy.decide(call.name, call.args, risk.get(call.name));
    else await guard.reviewTurn(state, [call]);
  }
};
await run(WARM);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.setSamplingInterval", { interval: 100 });
await session.post("Profiler.start");
const cpu0 = process.cpuUsage();
await run(n);
const cpu = process.cpuUsage(cpu0);
const { profile } = await session.post("Profiler.stop");
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}/w2h.cpuprofile`, JSON.stringify(profile));
console.log(`${n} calls, ${Math.round(n / ((cpu.user + cpu.system) / 1e6)).toLocaleString("en-US")} /CPU-s`);
