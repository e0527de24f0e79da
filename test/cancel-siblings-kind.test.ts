// Issue 15 / seed 003: "a failing call cancels its siblings" is the batch's behaviour for command
// tools (a shell: Claude Code's choice), not for read-only tools. The default comes from the tool's
// kind (src/tools/kind.ts); `cancelSiblingsOnError` on a tool still overrides it.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { tool as lcTool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import { defineTool } from "../src/tools/define-tool.js";
import { cancelsSiblingsByDefault, toolKindOf } from "../src/tools/kind.js";
import { guardSpecOf } from "../src/tools/registry.js";
import type { ToolKind } from "../src/tools/types.js";

interface Run {
  tool: string;
  label: string;
  thread: string;
  outcome: "ok" | "failed" | "aborted";
}

const input = z.object({ label: z.string(), ms: z.number().int().nonnegative(), fail: z.boolean().default(false), safe: z.boolean().default(true) });

/** A tool whose calls wait `ms`, honour the abort signal, and fail on `fail`; `safe` calls share a batch. */
function timed(runs: Run[], name: string, options: { kind?: ToolKind; cancelSiblingsOnError?: boolean } = {}) {
  return defineTool({
    name,
    description: name,
    schema: input,
    risk: "low",
    ...(options.kind !== undefined ? { kind: options.kind } : {}),
    ...(options.cancelSiblingsOnError !== undefined ? { cancelSiblingsOnError: options.cancelSiblingsOnError } : {}),
    isConcurrencySafe: (i) => i.safe,
    execute: (i, ctx) => work(runs, name, i, ctx.signal, String(ctx.config?.configurable?.thread_id ?? "")),
  });
}

async function work(runs: Run[], name: string, i: z.output<typeof input>, signal: AbortSignal, thread: string): Promise<string> {
  const run: Run = { tool: name, label: i.label, thread, outcome: "ok" };
  runs.push(run);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, i.ms);
    const onAbort = () => {
      clearTimeout(timer);
      run.outcome = "aborted";
      reject(new Error("aborted"));
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  if (i.fail) {
    run.outcome = "failed";
    throw new Error(`${i.label} broke`);
  }
  return `${i.label} ok`;
}

const call = (name: string, label: string, args: Partial<z.input<typeof input>> = {}) => ({ name, id: label, args: { label, ms: 5, ...args } });
const answers = (messages: BaseMessage[]) =>
  new Map(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]));

function agent(tools: ReturnType<typeof timed>[] | Parameters<typeof createGuardedAgent>[0]["tools"], calls: ReturnType<typeof call>[], messageId = "m1") {
  const model = fakeModel().respond(new AIMessage({ id: messageId, content: "", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })) })).respond(new AIMessage("done"));
  return createGuardedAgent({ model, tools: tools ?? [], checkpointer: new MemorySaver() });
}
const thread = (id: string) => ({ configurable: { thread_id: id } });

describe("the kind of a tool decides whether its failure cancels its batch siblings", () => {
  it("kinds and defaults: shell names are commands; commands cancel, read-only and other tools do not; a declared flag wins", () => {
    expect(["bash", "Shell", "sh", "run_command", "execute_command", "terminal"].map((n) => toolKindOf(n))).toEqual(Array(6).fill("command"));
    expect(toolKindOf("read_file")).toBe("other");
    expect(toolKindOf("bash", "read-only")).toBe("read-only");
    expect((["command", "read-only", "other"] as const).map(cancelsSiblingsByDefault)).toEqual([true, false, false]);
    const runs: Run[] = [];
    expect(guardSpecOf(timed(runs, "bash")).cancelSiblingsOnError).toBe(true);
    expect(guardSpecOf(timed(runs, "exec_tool", { kind: "command" })).cancelSiblingsOnError).toBe(true);
    expect(guardSpecOf(timed(runs, "read_file", { kind: "read-only" })).cancelSiblingsOnError).toBe(false);
    expect(guardSpecOf(timed(runs, "deploy")).cancelSiblingsOnError).toBe(false);
    expect(guardSpecOf(timed(runs, "bash", { cancelSiblingsOnError: false })).cancelSiblingsOnError).toBe(false);
    expect(guardSpecOf(timed(runs, "read_file", { kind: "read-only", cancelSiblingsOnError: true })).cancelSiblingsOnError).toBe(true);
    // A plain LangChain tool named like a shell is a command too.
    const plain = lcTool(async () => "ok", { name: "bash", description: "shell", schema: z.object({ command: z.string() }) });
    expect(guardSpecOf(plain)).toMatchObject({ kind: "command", cancelSiblingsOnError: true });
  });

  it("a failing command cancels its batch siblings (command and read-only alike), not the next batch, not another thread", async () => {
    const runs: Run[] = [];
    const tools = [timed(runs, "bash"), timed(runs, "read_file", { kind: "read-only" })];
    // Batch 1: three safe calls; the command fails fast. Batch 2: an unsafe call, alone.
    const turn = (fail: boolean) => [
      call("bash", "b1", { ms: 20, fail }),
      call("bash", "b2", { ms: 1_500 }),
      call("read_file", "r1", { ms: 1_500 }),
      call("read_file", "r2", { safe: false }),
    ];
    // Thread B's model repeats the message id and call ids, and its batch runs at the same time.
    const [outA, outB] = await Promise.all([
      agent(tools, turn(true)).invoke({ messages: [new HumanMessage("go")] }, thread("A")),
      agent(tools, turn(false)).invoke({ messages: [new HumanMessage("go")] }, thread("B")),
    ]);
    const a = answers(outA.messages);
    expect(a.get("b1")).toMatch(/b1 broke/);
    for (const id of ["b2", "r1"]) {
      expect(a.get(id)).toMatch(/^Cancelled: (bash|read_file) stopped because sibling call b1 \(bash\) in the same batch failed/);
      expect(runs.find((r) => r.thread === "A" && r.label === id)?.outcome).toBe("aborted");
    }
    expect(a.get("r2")).toBe("r2 ok"); // the next batch ran
    const b = answers(outB.messages);
    expect([...b.values()]).toEqual(["b1 ok", "b2 ok", "r1 ok", "r2 ok"]);
    expect(runs.filter((r) => r.thread === "B").map((r) => r.outcome)).toEqual(["ok", "ok", "ok", "ok"]);
  });

  it("a failing read-only tool cancels nothing; a failing command whose tool says cancelSiblingsOnError: false neither", async () => {
    const runs: Run[] = [];
    const tools = [timed(runs, "bash"), timed(runs, "read_file", { kind: "read-only" })];
    const out = await agent(tools, [call("read_file", "r1", { ms: 10, fail: true }), call("bash", "b1", { ms: 150 }), call("read_file", "r2", { ms: 150 })]).invoke(
      { messages: [new HumanMessage("go")] },
      thread("read-only"),
    );
    const a = answers(out.messages);
    expect(a.get("r1")).toMatch(/r1 broke/);
    expect(a.get("b1")).toBe("b1 ok");
    expect(a.get("r2")).toBe("r2 ok");

    const quiet = [timed(runs, "bash", { cancelSiblingsOnError: false })];
    const out2 = await agent(quiet, [call("bash", "q1", { ms: 10, fail: true }), call("bash", "q2", { ms: 150 })]).invoke({ messages: [new HumanMessage("go")] }, thread("quiet"));
    expect(answers(out2.messages).get("q2")).toBe("q2 ok");
  });
});
