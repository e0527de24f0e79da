import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { MemoryAuditSink } from "../src/audit/index.js";
import { GuardAnnotation, GuardedToolNode, Guard, type GuardState } from "../src/guard/index.js";
import { PermissionPolicy } from "../src/policy/index.js";
import { permissionRules, toolRules } from "./lib/guard-rules.js";
import { NOOP_ARGS, NOOP_TOOL_NAMES, noopTools } from "./lib/noop-tools.js";
import { atMost, type BenchRow } from "./lib/result.js";
import { fullGc, round } from "./lib/stats.js";

/** The first message (the user's) and the last few: the conversation is windowed so only the guard's state can grow. */
const WINDOW = 10;
function windowed(current: BaseMessage[], update: BaseMessage[]): BaseMessage[] {
  const all = current.concat(update);
  return all.length <= WINDOW + 1 ? all : [all[0]!, ...all.slice(all.length - WINDOW)];
}

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: windowed, default: () => [] }),
  turn: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
  ...GuardAnnotation.spec,
});
type StateType = typeof State.State;

/**
 * W5: one thread of many turns through GuardedToolNode (200 permission + 20 tool rules, audit to
 * a sink that keeps nothing), each turn one call. Reports the guard state's JSON size and the
 * process RSS at checkpoints along the thread: both must stay flat.
 */
export async function benchW5(opts: { quick: boolean }): Promise<BenchRow[]> {
  const totalTurns = opts.quick ? 300 : 10_000;
  const chunk = totalTurns / 10;
  const audit = new MemoryAuditSink();
  const discard = { write: async () => undefined, query: () => audit.query(), close: () => audit.close() };
  const guard = new Guard({
    tools: noopTools(),
    rules: toolRules(20),
    permissions: new PermissionPolicy(permissionRules(200)),
    audit: discard,
  });
  let stopAt = 0;
  const graph = new StateGraph(State)
    .addNode("agent", (state: StateType) => {
      const n = state.turn + 1;
      const name = NOOP_TOOL_NAMES[n % NOOP_TOOL_NAMES.length]!;
      return { turn: n, messages: [new AIMessage({ id: `ai${n}`, content: "", tool_calls: [{ id: `call${n}`, name, args: { ...NOOP_ARGS }, type: "tool_call" }] })] };
    })
    .addNode("tools", new GuardedToolNode(guard))
    .addEdge(START, "agent")
    .addEdge("agent", "tools")
    .addConditionalEdges("tools", (state: StateType) => (state.turn >= stopAt ? END : "agent"), ["agent", END])
    .compile();

  let state: { messages: BaseMessage[]; turn: number; guard?: GuardState } = { messages: [new HumanMessage({ id: "h0", content: "go" })], turn: 0 };
  const sizes: number[] = [];
  const rss: number[] = [];
  const heap: number[] = [];
  for (let done = 0; done < totalTurns; done += chunk) {
    stopAt = done + chunk;
    const out = await graph.invoke(state, { recursionLimit: chunk * 2 + 10 });
    state = { messages: out.messages, turn: out.turn, guard: out.guard };
    await fullGc();
    sizes.push(JSON.stringify(out.guard).length);
    const usage = process.memoryUsage();
    rss.push(usage.rss / 2 ** 20);
    heap.push(usage.heapUsed / 2 ** 20);
  }
  if (state.turn !== totalTurns) throw new Error(`W5 ran ${state.turn} turns, expected ${totalTurns}`);
  // The end against the second tenth (history ring filled, allocator settled).
  const growth = (values: number[]) => values[values.length - 1]! / values[1]!;
  const sizeGrowth = growth(sizes);
  const rssGrowth = growth(rss);
  const heapGrowth = growth(heap);
  return [
    { workload: "W5", contender: `guard state after ${totalTurns.toLocaleString("en-US")} turns`, metric: "JSON size", value: sizes[sizes.length - 1]!, unit: "bytes", ratio: round(sizeGrowth), ratioOf: `/ at turn ${chunk * 2}`, ...atMost(round(sizeGrowth, 2), 1.05), note: `at each tenth: ${sizes.join(", ")}` },
    { workload: "W5", contender: `process RSS after ${totalTurns.toLocaleString("en-US")} turns`, metric: "RSS", value: round(rss[rss.length - 1]!, 1), unit: "MiB", ratio: round(rssGrowth), ratioOf: `/ at turn ${chunk * 2}`, ...atMost(round(rssGrowth, 2), 1.1), note: `at each tenth: ${rss.map((v) => v.toFixed(0)).join(", ")}` },
    { workload: "W5", contender: `JS heap after ${totalTurns.toLocaleString("en-US")} turns (after GC)`, metric: "heap used", value: round(heap[heap.length - 1]!, 1), unit: "MiB", ratio: round(heapGrowth), ratioOf: `/ at turn ${chunk * 2}`, ...atMost(round(heapGrowth, 2), 1.1), note: `at each tenth: ${heap.map((v) => v.toFixed(1)).join(", ")}` },
  ];
}
