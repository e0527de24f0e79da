/**
 * The turn engine's guarantees, tried as an adversary against all three entry points
 * (createGuardedAgent, GuardedToolNode in a user's graph, guardMiddleware in createAgent):
 * authorization at the moment a call starts, dependency-aware batches, thread-scoped identities.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { fakeModel } from "@langchain/core/testing";
import { Annotation, Command, END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuditRecord, AuditSink } from "../src/audit/types.js";
import { buildGuardedGraph, GUARDED_NODES } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import type { GuardOptions } from "../src/guard/options.js";
import { GuardAnnotation } from "../src/guard/state.js";
import { GuardedToolNode, guardedToolsRoute } from "../src/guard/tool-node.js";
import { Killswitch } from "../src/killswitch/killswitch.js";
import { killswitchAsksNow, refusedAtStart } from "../src/messages/engine.js";
import { guardMiddleware } from "../src/middleware/index.js";
import type { ToolRule } from "../src/rules/types.js";
import { openLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";

// ─── fixtures ──────────────────────────────────────────────────────────────────────────────────

type Script = AIMessage[];
type Invoke = (input: unknown, config: Record<string, unknown>) => Promise<{ messages: BaseMessage[] }>;
interface Entry {
  name: "createGuardedAgent" | "createGuardedAgent+MemorySaver" | "createGuardedAgent+ledger" | "GuardedToolNode" | "guardMiddleware";
  build(guardOptions: GuardOptions, script: Script, extra?: { interruptBeforeTools?: boolean }): { invoke: Invoke };
}

const endMessage = () => new AIMessage({ content: "done" });

function scripted(script: Script) {
  let model = fakeModel();
  for (const m of script) model = model.respond(m);
  return model.respond(endMessage()).respond(endMessage()).respond(endMessage());
}

/**
 * A checkpointer the guard cannot know to live in this process only (any class but MemorySaver
 * itself may persist): without a ledger, each call is its own task.
 */
class OpaqueSaver extends MemorySaver {}

const entries: Entry[] = [
  {
    // No ledger, a checkpointer that may be durable: one task per call (Send), batch by batch.
    name: "createGuardedAgent",
    build(options, script, extra) {
      const graph = buildGuardedGraph(new Guard(options), { model: scripted(script) }).compile({
        checkpointer: new OpaqueSaver(),
        ...(extra?.interruptBeforeTools ? { interruptBefore: [GUARDED_NODES.tools] } : {}),
      });
      return { invoke: (input, config) => graph.invoke(input as never, config) as Promise<{ messages: BaseMessage[] }> };
    },
  },
  {
    // No ledger, LangGraph's in-memory MemorySaver: the turn runs in one task, kept exactly-once in
    // this process by the graph's process ledger (as durable as the checkpoints).
    name: "createGuardedAgent+MemorySaver",
    build(options, script, extra) {
      const graph = buildGuardedGraph(new Guard(options), { model: scripted(script) }).compile({
        checkpointer: new MemorySaver(),
        ...(extra?.interruptBeforeTools ? { interruptBefore: [GUARDED_NODES.tools, GUARDED_NODES.execute] } : {}),
      });
      return { invoke: (input, config) => graph.invoke(input as never, config) as Promise<{ messages: BaseMessage[] }> };
    },
  },
  {
    // With an execution ledger a one-batch turn runs in one task (the fast path); the same guarantees hold.
    name: "createGuardedAgent+ledger",
    build(options, script, extra) {
      let ledgerCount = 0;
      const graph = (async () => {
        ledgerCount += 1;
        const ledger = await openLedger(`memory:engine-authorize-${Math.random()}-${ledgerCount}`);
        return buildGuardedGraph(new Guard({ ...options, ledger }), { model: scripted(script) }).compile({
          checkpointer: new MemorySaver(),
          ...(extra?.interruptBeforeTools ? { interruptBefore: [GUARDED_NODES.tools, GUARDED_NODES.execute] } : {}),
        });
      })();
      return { invoke: async (input, config) => (await graph).invoke(input as never, config) as Promise<{ messages: BaseMessage[] }> };
    },
  },
  {
    name: "GuardedToolNode",
    build(options, script, extra) {
      const model = scripted(script);
      const State = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
      const graph = new StateGraph(State)
        .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
        .addNode("tools", new GuardedToolNode(options))
        .addEdge(START, "agent")
        .addConditionalEdges("agent", (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
        .addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END])
        .compile({ checkpointer: new MemorySaver(), ...(extra?.interruptBeforeTools ? { interruptBefore: ["tools"] } : {}) });
      return { invoke: (input, config) => graph.invoke(input as never, config) as Promise<{ messages: BaseMessage[] }> };
    },
  },
  {
    name: "guardMiddleware",
    build(options, script) {
      const agent = createAgent({
        model: scripted(script),
        middleware: [guardMiddleware(options)],
        checkpointer: new MemorySaver(),
      });
      return { invoke: (input, config) => agent.invoke(input as never, config as never) as Promise<{ messages: BaseMessage[] }> };
    },
  },
];

/** A tool per name; `fail` names make it throw; every run is logged with its own start and end. */
interface Run {
  tool: string;
  label: string;
  thread: string;
  start: number;
  end: number;
  outcome: "ok" | "failed" | "aborted";
}

function tools(runs: Run[], names: string[], opts: { safe?: boolean; onRun?: (label: string) => Promise<void> | void } = {}) {
  return names.map((name) =>
    defineTool({
      name,
      description: `${name} step`,
      schema: z.object({ label: z.string().default(name), ms: z.number().default(5), fail: z.boolean().default(false) }),
      risk: "low",
      isConcurrencySafe: () => opts.safe ?? true,
      cancelSiblingsOnError: true,
      execute: async (input, ctx) => {
        const run: Run = { tool: name, label: input.label, thread: String(ctx.config?.configurable?.thread_id ?? ""), start: performance.now(), end: 0, outcome: "ok" };
        runs.push(run);
        try {
          await opts.onRun?.(input.label);
          await new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, input.ms);
            const onAbort = () => {
              clearTimeout(timer);
              run.outcome = "aborted";
              reject(new Error("aborted"));
            };
            if (ctx.signal.aborted) onAbort();
            else ctx.signal.addEventListener("abort", onAbort, { once: true });
          });
          if (input.fail) {
            run.outcome = "failed";
            throw new Error(`${input.label} broke`);
          }
          return `${input.label} ok`;
        } finally {
          run.end = performance.now();
        }
      },
    }),
  );
}

const call = (name: string, id: string, args: Record<string, unknown> = {}) => ({ name, id, args: { label: id, ...args }, type: "tool_call" as const });
const turn = (id: string | undefined, ...calls: ReturnType<typeof call>[]) => new AIMessage({ content: "", ...(id ? { id } : {}), tool_calls: calls });
const cfg = (thread: string, extra: Record<string, unknown> = {}) => ({ configurable: { thread_id: thread }, ...extra });
const human = (text = "go") => ({ messages: [new HumanMessage(text)] });
const byCall = (messages: BaseMessage[]) =>
  new Map(messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m]));

function expectOneAnswerPerCall(messages: BaseMessage[]) {
  const answers = messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id).sort();
  const calls = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : [])).sort();
  expect(answers).toEqual(calls);
}

class ArraySink implements AuditSink {
  readonly records: AuditRecord[] = [];
  async write(records: readonly AuditRecord[]): Promise<void> {
    for (const r of records) if (!this.records.some((x) => x.id === r.id)) this.records.push(r);
  }
  async query(): Promise<AuditRecord[]> {
    return [...this.records];
  }
  async close(): Promise<void> {}
}

const servers: Server[] = [];
const switches: Killswitch[] = [];
afterAll(async () => {
  for (const k of switches) await k.stop();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A real killswitch fed by a loopback server whose policy the test flips. */
async function liveKillswitch() {
  const policy: { stopAll: boolean; reason?: string } = { stopAll: false };
  const server = createServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(policy));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/policy`;
  const killswitch = new Killswitch({ url, ttlMs: 600_000, refreshAheadMs: 0 });
  switches.push(killswitch);
  await killswitch.start();
  expect(killswitch.snapshot().status).not.toBe("restricted");
  return {
    killswitch,
    async stopAll(reason: string) {
      policy.stopAll = true;
      policy.reason = reason;
      await killswitch.refresh();
    },
  };
}

// ─── same-turn prerequisites ───────────────────────────────────────────────────────────────────

const prerequisiteRules: { rule: ToolRule; ruleId: string; type: string }[] = [
  { rule: { type: "MustFollow", tool: "validate", conditions: ["load"], id: "validate-after-load" }, ruleId: "validate-after-load", type: "MustFollow" },
  { rule: { type: "MustPrecede", tool: "load", conditions: ["validate"], id: "load-before-validate" }, ruleId: "load-before-validate", type: "MustPrecede" },
];

describe.each(entries)("$name: authorization at the moment a call starts", (entry) => {
  for (const { rule, ruleId, type } of prerequisiteRules) {
    it(`${type}: one turn [load, validate] where load throws: validate never starts and is refused naming the rule`, async () => {
      const runs: Run[] = [];
      const audit = new ArraySink();
      const graph = entry.build(
        { tools: tools(runs, ["load", "validate"]), rules: [rule], audit },
        [turn(undefined, call("load", "l1", { fail: true }), call("validate", "v1"))],
      );
      const out = await graph.invoke(human(), cfg(`${entry.name}-${type}-fail`));
      expect(runs.map((r) => r.tool)).toEqual(["load"]);
      const refused = byCall(out.messages).get("v1");
      expect(refused?.status).toBe("error");
      expect(String(refused?.content)).toMatch(new RegExp(`^Refused validate at the moment it was to start \\(rule ${ruleId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\): `));
      // One refusal sentence, not a refusal wrapped in another.
      expect(String(refused?.content).match(/Refused/g)).toHaveLength(1);
      expectOneAnswerPerCall(out.messages);
      // review allowed it; the audit log says the check at start changed that
      const recheck = audit.records.filter((r) => r.toolCallId === "v1" && r.event === "decision");
      expect(recheck.map((r) => r.decision)).toEqual(["allow", "deny"]);
      expect(recheck[1]?.detail).toMatchObject({ recheck: "at-start", changed: true });
      expect(recheck[1]?.ruleId).toBe(`rule:${ruleId}`);
    });

    it(`${type}: both concurrency-safe, load succeeds: validate runs in a later batch, after load finished`, async () => {
      const runs: Run[] = [];
      const graph = entry.build(
        { tools: tools(runs, ["load", "validate"]), rules: [rule] },
        [turn(undefined, call("load", "l1", { ms: 60 }), call("validate", "v1"))],
      );
      const out = await graph.invoke(human(), cfg(`${entry.name}-${type}-ok`));
      const load = runs.find((r) => r.tool === "load");
      const validate = runs.find((r) => r.tool === "validate");
      expect(load && validate && validate.start >= load.end).toBe(true);
      expect(byCall(out.messages).get("v1")?.status).toBe("success");
      expectOneAnswerPerCall(out.messages);
    });
  }

  it("stopAll arriving mid-turn of 8 sequential calls: no call starts after the killswitch knows", async () => {
    const runs: Run[] = [];
    const audit = new ArraySink();
    const live = await liveKillswitch();
    const graph = entry.build(
      {
        tools: tools(runs, ["step"], { safe: false, onRun: (label) => (label === "s2" ? live.stopAll("incident 7") : undefined) }),
        killswitch: live.killswitch,
        audit,
      },
      [turn(undefined, ...Array.from({ length: 8 }, (_, i) => call("step", `s${i + 1}`)))],
    );
    const out = await graph.invoke(human(), cfg(`${entry.name}-stopall`));
    expect(runs.map((r) => r.label)).toEqual(["s1", "s2"]);
    const answers = byCall(out.messages);
    for (let i = 3; i <= 8; i += 1) {
      expect(answers.get(`s${i}`)?.status).toBe("error");
      expect(String(answers.get(`s${i}`)?.content)).toMatch(/^Refused step at the moment it was to start \(rule killswitch/);
    }
    expect(audit.records.filter((r) => r.detail?.recheck === "at-start").map((r) => r.toolCallId)).toEqual(["s3", "s4", "s5", "s6", "s7", "s8"]);
    expectOneAnswerPerCall(out.messages);
  });

  it("two concurrent threads whose model repeats message and call ids: a failure in A cancels nothing in B", async () => {
    const runs: Run[] = [];
    const shared = () => turn("m-same", call("job", "c1", { ms: 10 }), call("job", "c2", { ms: 150 }));
    const failing = () => turn("m-same", call("job", "c1", { ms: 10, fail: true }), call("job", "c2", { ms: 150 }));
    const options = { tools: tools(runs, ["job"]) };
    const a = entry.build(options, [failing()]);
    const b = entry.build(options, [shared()]);
    const [outA, outB] = await Promise.all([a.invoke(human(), cfg(`${entry.name}-A`)), b.invoke(human(), cfg(`${entry.name}-B`))]);
    // In A, the failure cancels its own batch sibling (the batch's default, seed 003) ...
    expect(byCall(outA.messages).get("c2")?.content).toMatch(/^Cancelled/);
    // ... and nothing in B.
    expect([...byCall(outB.messages).values()].map((m) => m.status)).toEqual(["success", "success"]);
    expect(runs.filter((r) => r.thread === `${entry.name}-B`).map((r) => r.outcome)).toEqual(["ok", "ok"]);
  });

  it("aborting thread C's run does not cancel thread D's calls, though their ids are the same", async () => {
    const runs: Run[] = [];
    const same = () => turn("m-same", call("job", "c1", { ms: 200 }), call("job", "c2", { ms: 200 }));
    const options = { tools: tools(runs, ["job"]) };
    const c = entry.build(options, [same()]);
    const d = entry.build(options, [same()]);
    const abort = new AbortController();
    const runC = c.invoke(human(), cfg(`${entry.name}-C`, { signal: abort.signal })).catch((e: unknown) => e);
    const runD = d.invoke(human(), cfg(`${entry.name}-D`));
    while (runs.filter((r) => r.thread === `${entry.name}-C`).length < 2) await new Promise((r) => setTimeout(r, 5));
    abort.abort();
    await runC;
    const outD = await runD;
    expect([...byCall(outD.messages).values()].map((m) => m.status)).toEqual(["success", "success"]);
    expect(runs.filter((r) => r.thread === `${entry.name}-D`).map((r) => r.outcome)).toEqual(["ok", "ok"]);
    expect(runs.filter((r) => r.thread === `${entry.name}-C`).map((r) => r.outcome)).toEqual(["aborted", "aborted"]);
  });

  it("a human approves, then stopAll arrives before the resume: the approved call is refused at its start", async () => {
    const runs: Run[] = [];
    const live = await liveKillswitch();
    const risky = defineTool({
      name: "deploy",
      description: "deploy",
      schema: z.object({ label: z.string() }),
      risk: "high",
      execute: (input) => {
        runs.push({ tool: "deploy", label: input.label, thread: "", start: 0, end: 0, outcome: "ok" });
        return "deployed";
      },
    });
    const graph = entry.build({ tools: [risky], killswitch: live.killswitch }, [turn(undefined, call("deploy", "d1"))]);
    const first = (await graph.invoke(human(), cfg(`${entry.name}-approve`))) as { __interrupt__?: unknown[] };
    expect(first.__interrupt__?.length).toBe(1);
    await live.stopAll("freeze");
    const out = await graph.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), cfg(`${entry.name}-approve`));
    expect(runs).toEqual([]);
    // review runs again on resume and already sees the killswitch: either way the call never starts
    expect(String(byCall(out.messages).get("d1")?.content)).toMatch(/^Refused deploy .*rule killswitch:stop-all/);
    expectOneAnswerPerCall(out.messages);
  });
});

describe.each(entries)("$name: InitialCall and the model's own call in one turn", (entry) => {
  it("the initial call fails: the model's other call is refused naming InitialCall, and never starts", async () => {
    const runs: Run[] = [];
    // createGuardedAgent and the middleware force `init` in front of the model's call; a user's
    // own graph around GuardedToolNode has the model make both calls.
    const script = entry.name === "GuardedToolNode" ? [turn(undefined, call("init", "i1", { fail: true }), call("work", "w1"))] : [turn(undefined, call("work", "w1"))];
    const graph = entry.build(
      { tools: tools(runs, ["init", "work"]), rules: [{ type: "InitialCall", tool: "init", id: "init-first", metadata: { args: { fail: true } } }] },
      script,
    );
    const out = await graph.invoke(human(), cfg(`${entry.name}-initial-fail`));
    expect(runs.map((r) => r.tool)).toEqual(["init"]);
    const refused = byCall(out.messages).get("w1");
    expect(String(refused?.content)).toMatch(/^Refused work at the moment it was to start \(rule init-first\)/);
    expectOneAnswerPerCall(out.messages);
  });
});

describe("a task run later from its checkpoint (fresh invoke) is authorized at its start", () => {
  for (const name of ["createGuardedAgent", "createGuardedAgent+MemorySaver", "createGuardedAgent+ledger", "GuardedToolNode"] as const) {
    it(`${name}: stopped before its tools ran, continued after stopAll: nothing runs`, async () => {
      const runs: Run[] = [];
      const live = await liveKillswitch();
      const entry = entries.find((e) => e.name === name) as Entry;
      const graph = entry.build({ tools: tools(runs, ["job"]), killswitch: live.killswitch }, [turn(undefined, call("job", "j1"))], {
        interruptBeforeTools: true,
      });
      await graph.invoke(human(), cfg(`${name}-rerun`));
      expect(runs).toEqual([]);
      await live.stopAll("after crash");
      const out = await graph.invoke(null, cfg(`${name}-rerun`));
      expect(runs).toEqual([]);
      expect(String(byCall(out.messages).get("j1")?.content)).toMatch(/killswitch/);
      expectOneAnswerPerCall(out.messages);
    });
  }
});

describe("the engine's sentences (exact text)", () => {
  it("pins each sentence", () => {
    expect(refusedAtStart("validate", "rule:validate-after-load", "validate must follow load.")).toBe(
      "Refused validate at the moment it was to start (rule validate-after-load): validate must follow load. It did not run.",
    );
    expect(killswitchAsksNow("incident 7")).toBe(
      "the killswitch now requires a human's approval (incident 7) and none was given for this call",
    );
  });
});

describe("graph shape: the turn in one task when a ledger keeps it exactly-once, else one task per call", () => {
  const nodesOf = async (graph: { stream: (input: never, config: never) => Promise<AsyncIterable<Record<string, unknown>>> }, thread: string, input: unknown = human()) => {
    const nodes: string[] = [];
    for await (const update of await graph.stream(input as never, { ...cfg(thread), streamMode: "updates" } as never)) nodes.push(...Object.keys(update));
    return nodes;
  };

  it("with a ledger: review, authorization, execution and recording of a turn are one execute step after the model step", async () => {
    const runs: Run[] = [];
    const ledger = await openLedger(`memory:fast-path-${Math.random()}`);
    const guard = new Guard({ tools: tools(runs, ["job"]), ledger, rules: [{ type: "MaxCalls", tool: "job", max: 3 }] });
    // A checkpointer that may be durable: the ledger alone makes the one-task turn exactly-once.
    const graph = buildGuardedGraph(guard, { model: scripted([turn(undefined, call("job", "a"), call("job", "b"), call("job", "c"))]) }).compile({
      checkpointer: new OpaqueSaver(),
    });
    expect(await nodesOf(graph, "fast-path")).toEqual([GUARDED_NODES.agent, GUARDED_NODES.execute, GUARDED_NODES.agent]);
    expect(runs.map((r) => r.label).sort()).toEqual(["a", "b", "c"]);
    const state = await graph.getState(cfg("fast-path"));
    expect(state.values.guard.rules?.runCounts).toEqual({ job: 3 });
    expectOneAnswerPerCall(state.values.messages);
  });

  it("with a ledger, a turn of several batches is one task too: each batch starts after the one before ended", async () => {
    const runs: Run[] = [];
    const ledger = await openLedger(`memory:fast-path-batches-${Math.random()}`);
    const safe = tools(runs, ["read"]);
    const unsafe = tools(runs, ["write"], { safe: false });
    const guard = new Guard({ tools: [...safe, ...unsafe], ledger });
    const script = [turn(undefined, call("read", "r1", { ms: 20 }), call("read", "r2", { ms: 5 }), call("write", "w1"), call("read", "r3"))];
    const graph = buildGuardedGraph(guard, { model: scripted(script) }).compile({ checkpointer: new OpaqueSaver() });
    expect(await nodesOf(graph, "fast-path-batches")).toEqual([GUARDED_NODES.agent, GUARDED_NODES.execute, GUARDED_NODES.agent]);
    const at = (label: string) => runs.find((r) => r.label === label) as Run;
    expect(runs.map((r) => r.label).sort()).toEqual(["r1", "r2", "r3", "w1"]);
    expect(at("w1").start).toBeGreaterThanOrEqual(Math.max(at("r1").end, at("r2").end));
    expect(at("r3").start).toBeGreaterThanOrEqual(at("w1").end);
    expectOneAnswerPerCall((await graph.getState(cfg("fast-path-batches"))).values.messages);
  });

  it("MemorySaver without a ledger: one execute step per turn", async () => {
    const runs: Run[] = [];
    const graph = buildGuardedGraph(new Guard({ tools: tools(runs, ["job"]) }), { model: scripted([turn(undefined, call("job", "a"), call("job", "b"))]) }).compile({
      checkpointer: new MemorySaver(),
    });
    expect(await nodesOf(graph, "memory-saver")).toEqual([GUARDED_NODES.agent, GUARDED_NODES.execute, GUARDED_NODES.agent]);
    expect(runs.map((r) => r.label).sort()).toEqual(["a", "b"]);
  });

  it("MemorySaver without a ledger: a call that completed is not run again when the turn's task runs again in this process (a tool's interrupt resumed)", async () => {
    const runs: Run[] = [];
    const asking = defineTool({
      name: "confirm",
      description: "asks its caller from inside the tool",
      schema: z.object({ label: z.string() }),
      risk: "low",
      isConcurrencySafe: () => true,
      execute: async (input) => {
        const answer = interrupt({ question: `confirm ${input.label}?` }) as string;
        runs.push({ tool: "confirm", label: `${input.label}:${answer}`, thread: "", start: 0, end: 0, outcome: "ok" });
        return `confirmed ${answer}`;
      },
    });
    const job = tools(runs, ["job"], { onRun: () => new Promise((resolve) => setTimeout(resolve, 5)) });
    const graph = buildGuardedGraph(new Guard({ tools: [...job, asking] }), { model: scripted([turn(undefined, call("job", "j1", { ms: 1 }), call("confirm", "c1"))]) }).compile({
      checkpointer: new MemorySaver(),
    });
    const first = (await graph.invoke(human() as never, cfg("tool-interrupt"))) as { __interrupt__?: unknown[] };
    expect(first.__interrupt__?.length).toBe(1);
    expect(runs.map((r) => r.label)).toEqual(["j1"]);
    const out = await graph.invoke(new Command({ resume: "yes" }) as never, cfg("tool-interrupt"));
    // j1 completed before the interrupt: the re-run of the task read its result, it did not run again.
    expect(runs.map((r) => r.label)).toEqual(["j1", "c1:yes"]);
    expect(String(byCall(out.messages).get("j1")?.content)).toBe("j1 ok");
    expectOneAnswerPerCall(out.messages);
  });

  it("16 concurrent calls in one task: each guarded call listens to a signal of its own, Node warns of no listener leak", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      const runs: Run[] = [];
      const calls = Array.from({ length: 16 }, (_, i) => call("job", `j${i}`, { ms: 5 }));
      const graph = buildGuardedGraph(new Guard({ tools: tools(runs, ["job"]), maxConcurrency: 16 }), { model: scripted([turn(undefined, ...calls)]) }).compile({
        checkpointer: new MemorySaver(),
      });
      const out = await graph.invoke(human() as never, cfg("sixteen"));
      expect(runs).toHaveLength(16);
      expectOneAnswerPerCall(out.messages);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });

  it("an answer without calls ends the run in the model step; the finish step runs only when an exit tool is pending", async () => {
    const plain = buildGuardedGraph(new Guard({ tools: tools([], ["job"]) }), { model: scripted([]) }).compile({ checkpointer: new MemorySaver() });
    expect(await nodesOf(plain, "ends-in-agent")).toEqual([GUARDED_NODES.agent]);
    expect((await plain.getState(cfg("ends-in-agent"))).values.guard.next).toBe("end");
    const runs: Run[] = [];
    const pending = buildGuardedGraph(new Guard({ tools: tools(runs, ["job"]), rules: [{ type: "RequiredForExit", tool: "job" }] }), { model: scripted([endMessage(), endMessage()]) }).compile({
      checkpointer: new MemorySaver(),
    });
    const nodes = await nodesOf(pending, "exit-pending");
    // reminded, then forced: the job runs before the run may end
    expect(nodes.slice(0, 2)).toEqual([GUARDED_NODES.agent, GUARDED_NODES.finish]);
    expect(runs.map((r) => r.tool)).toEqual(["job"]);
  });

  it("routing decisions are not traced runs: per turn, one run for the model step and one for execute (plus the tools')", async () => {
    const started: string[] = [];
    class Counter extends BaseCallbackHandler {
      name = "counter";
      override handleChainStart(_c: unknown, _i: unknown, _r: string, _p?: string, _t?: string[], _m?: unknown, _rt?: string, name?: string) {
        started.push(name ?? "?");
      }
    }
    const graph = buildGuardedGraph(new Guard({ tools: tools([], ["job"]) }), { model: scripted([turn(undefined, call("job", "a"), call("job", "b"))]) }).compile({
      checkpointer: new MemorySaver(),
    });
    await graph.invoke(human() as never, { ...cfg("traced"), callbacks: [new Counter()] });
    expect(started.filter((n) => n === "RunnableLambda" || n === "Route")).toEqual([]);
    expect(started.filter((n) => n === GUARDED_NODES.agent || n === GUARDED_NODES.execute)).toEqual([GUARDED_NODES.agent, GUARDED_NODES.execute, GUARDED_NODES.agent]);
  });

  it("no ledger and a checkpointer that may persist: the review step, then one task per call", async () => {
    const runs: Run[] = [];
    const graph = buildGuardedGraph(new Guard({ tools: tools(runs, ["job"]) }), { model: scripted([turn(undefined, call("job", "a"), call("job", "b"))]) }).compile({
      checkpointer: new OpaqueSaver(),
    });
    expect(await nodesOf(graph, "per-call")).toEqual([GUARDED_NODES.agent, GUARDED_NODES.review, GUARDED_NODES.tools, GUARDED_NODES.tools, GUARDED_NODES.agent]);
    expect(runs.map((r) => r.label).sort()).toEqual(["a", "b"]);
  });

  it("a call that asks: execute runs nothing and hands the turn to the review step, which asks once; the approved turn comes back to execute", async () => {
    const runs: Run[] = [];
    const risky = tools(runs, ["deploy"]).map((t) => t);
    const guard = new Guard({ tools: risky, toolRisk: { deploy: "high" } });
    const graph = buildGuardedGraph(guard, { model: scripted([turn(undefined, call("deploy", "d1"), call("deploy", "d2"))]) }).compile({
      checkpointer: new MemorySaver(),
    });
    expect(await nodesOf(graph, "asks")).toEqual([GUARDED_NODES.agent, GUARDED_NODES.execute, "__interrupt__"]);
    expect(runs).toEqual([]);
    const state = await graph.getState(cfg("asks"));
    expect(state.next).toEqual([GUARDED_NODES.review]);
    expect(state.tasks.flatMap((t) => t.interrupts ?? [])).toHaveLength(1);
    const after = await nodesOf(graph, "asks", new Command({ resume: { decisions: [{ type: "approve" }, { type: "reject" }] } }));
    expect(after).toEqual([GUARDED_NODES.review, GUARDED_NODES.execute, GUARDED_NODES.agent]);
    expect(runs.map((r) => r.label)).toEqual(["d1"]);
    expectOneAnswerPerCall((await graph.getState(cfg("asks"))).values.messages);
  });
});
