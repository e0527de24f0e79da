import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { ToolRulesEngine, type CallInfo, type RuleState, type ToolRule } from "../src/rules/index.js";

const TOOL_COUNT = 100;
const OPS = ["read", "write", "list", "delete"];

/** 1,000 rules over 100 tools, a mix like a real agent configuration (10 rules per tool on average). */
export function realisticRules(): { rules: ToolRule[]; tools: Map<string, readonly string[]> } {
  const tools = new Map<string, readonly string[]>();
  const rules: ToolRule[] = [];
  const name = (i: number) => `tool_${i % TOOL_COUNT}`;
  for (let i = 0; i < TOOL_COUNT; i++) {
    const t = name(i);
    tools.set(t, i % 3 === 0 ? OPS : []);
    rules.push({ type: "MaxCalls", tool: t, max: 50, priority: 5 });
    rules.push({ type: "MaxCalls", tool: t, max: 500, scope: "thread", priority: 5 });
    rules.push({ type: "Cooldown", tool: t, durationMs: 10 + (i % 5), priority: 5 });
    rules.push({ type: i % 2 === 0 ? "NoHeartbeat" : "ContinueLoop", tool: t, priority: 1 });
    rules.push({ type: "MustFollow", tool: t, conditions: [name(i + 1 < TOOL_COUNT ? 0 : 1)], priority: 5 });
    rules.push({ type: "ExclusiveGroup", tool: t, conditions: [`rare_${i}`], priority: 5 });
    rules.push({ type: "MustPrecede", tool: `setup_${i}`, conditions: [`never_${i}`], priority: 5 });
    rules.push({ type: "Periodic", tool: t, durationMs: 60_000, priority: 1 });
    rules.push({ type: "RequiredForExitIf", tool: `close_${i}`, conditions: [t], priority: 9 });
    if (i % 3 === 0) rules.push({ type: "AllowedOperations", tool: t, operations: ["read", "list", "write"], priority: 0 });
    else rules.push({ type: "TerminalIf", tool: `finish_${i}`, conditions: [t, `rare_${i}`], priority: 8 });
  }
  return { rules, tools };
}

export async function benchRules(opts: { quick: boolean }): Promise<{ name: string; checksPerSecond: number; rules: number }> {
  const { rules, tools } = realisticRules();
  const engine = new ToolRulesEngine(rules, { tools });
  let state: RuleState = engine.initialState(0);
  // A run in progress: tool_0 (everyone's prerequisite) and a handful of tools already succeeded.
  for (let i = 0; i < 20; i++) state = engine.record(state, { tool: `tool_${i * 5}`, callId: `w${i}`, success: true, at: i });
  const calls: CallInfo[] = [];
  for (let i = 0; i < TOOL_COUNT; i++) {
    const op = tools.get(`tool_${i}`)!.length > 0 ? OPS[i % OPS.length] : undefined;
    calls.push({ tool: `tool_${i}`, operation: op });
  }
  const now = 1_000_000;
  const iterations = opts.quick ? 50_000 : 1_000_000;
  let refused = 0;
  for (let i = 0; i < 10_000; i++) engine.checkCall(state, calls[i % calls.length]!, now); // warm-up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) if (engine.checkCall(state, calls[i % calls.length]!, now)) refused++;
  const seconds = (performance.now() - start) / 1000;
  if (refused === 0) throw new Error("benchmark mix should include refused calls");
  return { name: `rules.checkCall (${Math.round((refused / iterations) * 100)}% refused)`, checksPerSecond: Math.round(iterations / seconds), rules: rules.length };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchRules({ quick: process.argv.includes("--quick") });
  console.log(`${result.name}: ${result.checksPerSecond.toLocaleString("en")} checks/s over ${result.rules} rules`);
}
