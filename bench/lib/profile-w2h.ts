/**
 * W2h under the profiler, after warm-up: the heterogeneous guard's `reviewTurn` (or
 * `PermissionPolicy.decide` alone) on the 1,000-rule workload; writes DIR/w2h.cpuprofile.
 *   npx tsx bench/lib/profile-w2h.ts DIR [calls] [--decide]
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
const workload = heteroWorkload({ seed: HETERO_SEED, rules: 1_000, tools: 100, calls: 1_000 });
const calls = workload.calls;
const { guard, state } = heteroGuard(workload);
const policy = new PermissionPolicy(workload.permissions, { mainArguments: workload.mainArguments });
const risk = new Map(workload.tools.map((t) => [t.name, t.risk]));
const run = async (count: number) => {
  for (let i = 0; i < count; i++) {
    const call = calls[i % calls.length]!;
    if (decideOnly) policy.decide(call.name, call.args, risk.get(call.name));
    else await guard.reviewTurn(state, [call]);
  }
};
await run(50_000);
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
