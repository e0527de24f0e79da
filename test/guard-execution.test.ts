import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createGuardedAgent } from "../src/guard/agent.js";
import { partitionCalls } from "../src/guard/partition.js";
import type { ReviewedCall } from "../src/guard/state.js";
import { overlaps, timedTool } from "./helpers/timed-tools.js";
import type { Stamp } from "./helpers/timed-tools.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const call = (label: string, args: Record<string, unknown>) => ({ name: "work", args: { label, ...args }, id: label });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

function agent(calls: ReturnType<typeof call>[], stamps: Stamp[], extra: Record<string, unknown> = {}, toolOptions = {}) {
  const model = fakeModel().respondWithTools(calls).respond(new AIMessage("done"));
  return createGuardedAgent({
    model,
    tools: [timedTool(stamps, toolOptions)],
    checkpointer: new MemorySaver(),
    toolRisk: { work: "low" },
    ...extra,
  });
}

describe("partitionCalls", () => {
  const reviewed = (id: string, safe: boolean) => ({ id, concurrencySafe: safe }) as ReviewedCall;
  it("groups consecutive safe calls and runs unsafe calls alone, in order", () => {
    const calls = [
      reviewed("a", true),
      reviewed("b", true),
      reviewed("c", false),
      reviewed("d", true),
      reviewed("e", true),
      reviewed("f", true),
    ];
    expect(partitionCalls(calls)).toEqual([["a", "b"], ["c"], ["d", "e", "f"]]);
  });
});

describe("execution in batches", () => {
  it("safe calls overlap in time, unsafe ones never overlap anything, order across batches is kept", async () => {
    const stamps: Stamp[] = [];
    const graph = agent(
      [
        call("s1", { ms: 80, safe: true }),
        call("s2", { ms: 80, safe: true }),
        call("s3", { ms: 80, safe: true }),
        call("u1", { ms: 30 }),
        call("s4", { ms: 60, safe: true }),
        call("s5", { ms: 60, safe: true }),
        call("u2", { ms: 30 }),
      ],
      stamps,
    );
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("overlap"));
    const by = (l: string) => stamps.find((s) => s.label === l) as Stamp;
    expect(overlaps(by("s1"), by("s2"))).toBe(true);
    expect(overlaps(by("s2"), by("s3"))).toBe(true);
    expect(overlaps(by("s4"), by("s5"))).toBe(true);
    for (const unsafe of ["u1", "u2"]) {
      for (const other of stamps.filter((s) => s.label !== unsafe)) expect(overlaps(by(unsafe), other)).toBe(false);
    }
    // batch order: s1-s3 before u1, before s4-s5, before u2
    expect(Math.max(by("s1").end, by("s2").end, by("s3").end)).toBeLessThanOrEqual(by("u1").start);
    expect(by("u1").end).toBeLessThanOrEqual(Math.min(by("s4").start, by("s5").start));
    expect(Math.max(by("s4").end, by("s5").end)).toBeLessThanOrEqual(by("u2").start);
    expect(toolMessages(out.messages).map((m) => m.status)).toEqual(Array(7).fill("success"));
  });

  it("caps a batch at maxConcurrency as a sliding window: a call starts as soon as a slot frees", async () => {
    const stamps: Stamp[] = [];
    // with 2 slots: a (300 ms) holds one slot while b, c, d (40 ms each) pass through the other
    const graph = agent(
      [call("a", { ms: 300, safe: true }), ...["b", "c", "d"].map((l) => call(l, { ms: 40, safe: true }))],
      stamps,
      { maxConcurrency: 2 },
    );
    await graph.invoke({ messages: [new HumanMessage("go")] }, thread("cap"));
    const at = (t: number) => stamps.filter((s) => s.start <= t && t < s.end).length;
    for (const s of stamps) expect(at(s.start)).toBeLessThanOrEqual(2);
    const by = (l: string) => stamps.find((s) => s.label === l) as Stamp;
    // d started before a finished: no barrier after the first two
    expect(by("d").start).toBeLessThan(by("a").end);
  });

  it("gives every call a stable idempotency key from thread and call id", async () => {
    const stamps: Stamp[] = [];
    const graph = agent([call("k1", { ms: 1 }), call("k2", { ms: 1 })], stamps);
    await graph.invoke({ messages: [new HumanMessage("go")] }, thread("keys"));
    const [k1, k2] = stamps.map((s) => s.key);
    expect(k1).toMatch(/^[0-9a-f]{32}$/);
    expect(k1).not.toBe(k2);
  });
});

describe("two-level abort", () => {
  it("a failing call aborts only its siblings in the same batch; they say which sibling", async () => {
    const stamps: Stamp[] = [];
    const graph = agent(
      [
        call("slow1", { ms: 2_000, safe: true }),
        call("bad", { ms: 20, safe: true, fail: true }),
        call("slow2", { ms: 2_000, safe: true }),
        call("after", { ms: 5 }),
      ],
      stamps,
    );
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("sibling"));
    const messages = toolMessages(out.messages);
    const text = (id: string) => String(messages.find((m) => m.tool_call_id === id)?.content);
    expect(text("bad")).toMatch(/bad broke/);
    for (const id of ["slow1", "slow2"]) {
      expect(text(id)).toMatch(/Cancelled.*sibling call bad \(work\)/);
      expect(stamps.find((s) => s.label === id)?.outcome).toBe("aborted");
      expect(stamps.find((s) => s.label === id)?.abortReason).toMatch(/sibling call bad/);
    }
    // the next batch is not affected by the sibling abort
    expect(text("after")).toBe("after done");
  });

  it("a failure does not cancel siblings when the tool says so", async () => {
    const stamps: Stamp[] = [];
    const graph = agent(
      [call("ok", { ms: 80, safe: true }), call("bad", { ms: 10, safe: true, fail: true })],
      stamps,
      {},
      { cancelSiblingsOnError: false },
    );
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("no-sibling"));
    expect(toolMessages(out.messages).find((m) => m.tool_call_id === "ok")?.content).toBe("ok done");
  });

  it("the run's signal aborts every running call", async () => {
    const stamps: Stamp[] = [];
    const graph = agent([call("r1", { ms: 5_000, safe: true }), call("r2", { ms: 5_000, safe: true })], stamps);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 150);
    await expect(
      graph.invoke({ messages: [new HumanMessage("go")] }, { ...thread("run-abort"), signal: controller.signal }),
    ).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    expect(stamps.map((s) => s.outcome)).toEqual(["aborted", "aborted"]);
    expect(Math.max(...stamps.map((s) => s.end - s.start))).toBeLessThan(2_000);
  });

  it("a per-tool timeout aborts that call alone", async () => {
    const stamps: Stamp[] = [];
    const graph = agent(
      [call("slow", { ms: 3_000, safe: true }), call("quick", { ms: 100, safe: true })],
      stamps,
      {},
      { timeoutMs: 50, cancelSiblingsOnError: true },
    );
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("timeout"));
    const messages = toolMessages(out.messages);
    expect(messages.find((m) => m.tool_call_id === "slow")?.content).toMatch(/timed out after 50 ms/);
    expect(stamps.find((s) => s.label === "slow")?.outcome).toBe("aborted");
    // quick is 100 ms > 50 ms timeout too, so it also times out alone; neither is a sibling cancellation
    for (const m of messages) expect(String(m.content)).not.toMatch(/sibling/);
  });

  it("a tool that ignores its signal is abandoned after the grace period and reported", async () => {
    const stamps: Stamp[] = [];
    const graph = agent([call("stubborn", { ms: 3_000, ignoreSignal: true })], stamps, { abortGraceMs: 100 }, { timeoutMs: 50 });
    const started = performance.now();
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread("abandon"));
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(toolMessages(out.messages)[0]?.content).toMatch(/did not stop within 100 ms.*abandoned/);
  });
});
