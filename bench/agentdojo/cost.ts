/**
 * The guard's own cost with provenance rules: W2's review workload (100 tools, 1,000 permission
 * rules, 50 tool rules, one call per review) with the thread's messages passed to every decision,
 * with 100 provenance rules added (one per tool, `path: { not: { from: [user, trusted] } }`) against
 * the same policy without them. The user's message names every path the calls use, so both decide
 * the same (a check that the outcomes are equal is part of the run) and the difference is the cost
 * of tracing each value. The thread grows by one tool output every 10 decisions (a new turn,
 * indexed incrementally) and starts over at 400 messages (a new thread, indexed from scratch).
 *
 * Measured as decisions per CPU-second (process.cpuUsage) in interleaved blocks (A B B A ...), so
 * drift in machine load hits both alike. `npx tsx bench/agentdojo/cost.ts [--blocks 20] [--size 4000]`
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { parseArgs } from "node:util";
import { Guard, type RawToolCall } from "../../src/guard/index.js";
import { PermissionPolicy, type PermissionRule } from "../../src/policy/index.js";
import { benchmarkRules } from "../policy.bench.js";
import { w2Calls, w2ToolRules, w2Tools } from "../w2-decisions.js";
import { percentile } from "../lib/stats.js";

const TOOLS = 100;

function provenanceRules(): PermissionRule[] {
  return Array.from({ length: TOOLS }, (_, i) => ({
    id: `prov${i}`,
    tool: `tool_${i}`,
    where: { path: { not: { from: ["user", "trusted"] } } },
    mode: "ask" as const,
    reason: "a path the user did not give",
  }));
}

/** A thread in which the user named the paths the calls use (so both policies decide alike: the provenance rules are evaluated on every call and hold). */
class Thread {
  messages: BaseMessage[] = [];
  id = 0;
  private turns = 0;

  constructor() {
    this.reset();
  }

  reset(): void {
    this.id += 1;
    const paths = w2Calls().map((c) => c.args.path as string);
    this.messages = [new SystemMessage("You operate the cluster."), new HumanMessage({ content: `Work on these files: ${paths.join(", ")}`, id: `h${this.id}` })];
  }

  /** One more turn: a tool call and its output (about 300 characters). */
  grow(): void {
    const n = this.turns++;
    const id = `t${this.id}_${n}`;
    this.messages.push(new AIMessage({ content: "", id: `a${id}`, tool_calls: [{ id, name: `tool_${n % TOOLS}`, args: { path: `/workspace/2/file-${n}.txt` }, type: "tool_call" }] }));
    this.messages.push(new ToolMessage({ content: `listing ${n}: /workspace/2/file-${(n * 4) % 200}.txt size ${n * 13} owner bob ${"x".repeat(200)}`, tool_call_id: id, name: `tool_${n % TOOLS}` }));
    if (this.messages.length >= 400) this.reset();
  }
}

function guardWith(extra: readonly PermissionRule[]): Guard {
  return new Guard({ tools: w2Tools(), rules: w2ToolRules(), permissions: new PermissionPolicy([...benchmarkRules(), ...extra], { provenance: { trusted: ["tool_0"] } }) });
}

async function block(guard: Guard, thread: Thread, size: number, all: readonly RawToolCall[], outcomes: Record<string, number>): Promise<number> {
  const state = guard.initialRuleState();
  const start = process.cpuUsage();
  for (let i = 0; i < size; i++) {
    if (i % 10 === 0) thread.grow();
    const { reviewed } = await guard.reviewTurn(state, [all[i % all.length]!], undefined, { messages: thread.messages, threadId: `bench-${thread.id}` });
    outcomes[reviewed[0]!.outcome] = (outcomes[reviewed[0]!.outcome] ?? 0) + 1;
  }
  const used = process.cpuUsage(start);
  return size / ((used.user + used.system) / 1e6);
}

export async function measureCost(blocks: number, size: number) {
  const all = w2Calls();
  const contenders = { without: guardWith([]), with: guardWith(provenanceRules()) };
  const threads = { without: new Thread(), with: new Thread() };
  const outcomes = { without: {} as Record<string, number>, with: {} as Record<string, number> };
  for (const name of ["without", "with"] as const) await block(contenders[name], threads[name], size, all, {}); // warm-up
  const rates = { without: [] as number[], with: [] as number[] };
  const ratios: number[] = [];
  for (let b = 0; b < blocks; b++) {
    const order = b % 2 === 0 ? (["without", "with"] as const) : (["with", "without"] as const);
    const pair: Record<string, number> = {};
    for (const name of order) {
      pair[name] = await block(contenders[name], threads[name], size, all, outcomes[name]);
      rates[name].push(pair[name]!);
    }
    ratios.push(pair.without! / pair.with!);
  }
  if (JSON.stringify(outcomes.with) !== JSON.stringify(outcomes.without)) throw new Error(`the two policies decided differently: ${JSON.stringify(outcomes)}`);
  const summary = (values: number[]) => ({ median: percentile(values, 0.5), p25: percentile(values, 0.25), p75: percentile(values, 0.75) });
  return { without: summary(rates.without), with: summary(rates.with), ratio: summary(ratios), outcomes, blocks, size };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { blocks: { type: "string", default: "20" }, size: { type: "string", default: "4000" } } });
  const result = await measureCost(Number(values.blocks), Number(values.size));
  const f = (x: number) => Math.round(x).toLocaleString("en-US");
  console.log(`decisions per CPU-second, ${result.blocks} interleaved blocks of ${result.size} decisions each`);
  console.log(`  without provenance rules: median ${f(result.without.median)} (p25 ${f(result.without.p25)} – p75 ${f(result.without.p75)})`);
  console.log(`  with 100 provenance rules: median ${f(result.with.median)} (p25 ${f(result.with.p25)} – p75 ${f(result.with.p75)})`);
  console.log(`  cost ratio (without / with, per block pair): median ${result.ratio.median.toFixed(2)}× (p25 ${result.ratio.p25.toFixed(2)} – p75 ${result.ratio.p75.toFixed(2)})`);
  console.log(`  outcomes without: ${JSON.stringify(result.outcomes.without)}; with: ${JSON.stringify(result.outcomes.with)}`);
}
