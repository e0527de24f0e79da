import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createGuardedAgent } from "../src/guard/agent.js";
import type { ExecutionLedgerView } from "../src/guard/interfaces.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { openLedger } from "../src/storage/ledger.js";
import { expectedKey } from "./fixtures/workers/scenarios.js";
import { effectTools, openEffectSink, parseEffectLines } from "./fixtures/workers/effects.js";
import { uniqueName } from "./helpers/postgres.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-durable-ledger-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const oneEffect = {
  name: "one-effect",
  turns: [{ tool_calls: [{ name: "effect", args: { label: "e1", ms: 10 } }] }, { text: "done" }],
};

async function setup(options: { toolTimeoutMs?: number; ledgerLeaseMs?: number } = {}) {
  const name = uniqueName("ledger");
  const path = join(tmp, `${name}.log`);
  const ledger = await openLedger(`memory:${name}`);
  const leases: number[] = [];
  const renewals: number[] = [];
  const releases: string[] = [];
  const view: ExecutionLedgerView = {
    claim: (key, owner, leaseMs) => {
      leases.push(leaseMs);
      return ledger.claim(key, owner, leaseMs);
    },
    complete: (key, result) => ledger.complete(key, result),
    result: (key) => ledger.result(key),
    renew: (key, owner, leaseMs) => {
      renewals.push(leaseMs);
      return ledger.renew(key, owner, leaseMs);
    },
    release: (key, owner) => {
      releases.push(key);
      return ledger.release(key, owner);
    },
  };
  const graph = createGuardedAgent({
    model: new ScriptedChatModel({ scenario: oneEffect }),
    tools: effectTools(openEffectSink({ kind: "file", path }), options.toolTimeoutMs),
    checkpointer: new MemorySaver(),
    ledger: view,
    workerId: "this-worker",
    abortGraceMs: 200,
    ...(options.ledgerLeaseMs !== undefined ? { ledgerLeaseMs: options.ledgerLeaseMs } : {}),
  });
  const starts = () => (existsSync(path) ? parseEffectLines(readFileSync(path, "utf8")).filter((e) => e.phase === "start") : []);
  return { graph, ledger, leases, renewals, releases, starts, threadId: name, key: expectedKey(name, oneEffect.name, "call_0_0") };
}

const go = { messages: [new HumanMessage("go")] };
const thread = (id: string, signal?: AbortSignal) => ({ configurable: { thread_id: id }, ...(signal ? { signal } : {}) });

describe("the execution ledger in the guarded agent", () => {
  it("returns the recorded result of a call another worker completed, without running it", async () => {
    const { graph, ledger, starts, threadId, key } = await setup();
    expect(await ledger.claim(key, "other-worker", 60_000)).toBe("claimed");
    await ledger.complete(key, JSON.stringify({ content: "e1 ran elsewhere" }));
    const out = await graph.invoke(go, thread(threadId));
    const answer = out.messages.find((m) => ToolMessage.isInstance(m));
    expect(answer?.content).toBe("e1 ran elsewhere");
    expect(starts()).toHaveLength(0);
  });

  it("records a completed call so a second run of the same call id reads it", async () => {
    const { graph, ledger, starts, threadId, key } = await setup();
    await graph.invoke(go, thread(threadId));
    expect(JSON.parse((await ledger.result(key)) ?? "{}")).toEqual({ content: "e1 ok" });
    expect(starts()).toHaveLength(1);
  });

  it("holds a short claim and renews it while the call runs, so a live call is never taken over", async () => {
    const slow = {
      name: "slow-effect",
      turns: [{ tool_calls: [{ name: "effect", args: { label: "e1", ms: 700 } }] }, { text: "done" }],
    };
    const name = uniqueName("renew");
    const ledger = await openLedger(`memory:${name}`);
    const renewals: number[] = [];
    const graph = createGuardedAgent({
      model: new ScriptedChatModel({ scenario: slow }),
      tools: effectTools(openEffectSink({ kind: "file", path: join(tmp, `${name}.log`) })),
      checkpointer: new MemorySaver(),
      ledger: {
        ...ledger,
        renew: (key, owner, ms) => {
          renewals.push(ms);
          return ledger.renew(key, owner, ms);
        },
      },
      workerId: "this-worker",
      ledgerLeaseMs: 150,
    });
    const key = expectedKey(name, slow.name, "call_0_0");
    const running = graph.invoke(go, thread(name));
    await new Promise((resolve) => setTimeout(resolve, 450));
    // three leases later the claim is still live: another worker is told "busy"
    expect(await ledger.claim(key, "other-worker", 150)).toBe("busy");
    await running;
    expect(renewals.length).toBeGreaterThanOrEqual(2);
    expect(await ledger.claim(key, "other-worker", 150)).toBe("done");
  });

  it("frees the claim of a call that failed, so another worker can run it at once", async () => {
    const failing = {
      name: "failing-effect",
      turns: [{ tool_calls: [{ name: "effect", args: { label: "e1", ms: 2_000 } }] }, { text: "done" }],
    };
    const name = uniqueName("release");
    const ledger = await openLedger(`memory:${name}`);
    const graph = createGuardedAgent({
      model: new ScriptedChatModel({ scenario: failing }),
      tools: effectTools(openEffectSink({ kind: "file", path: join(tmp, `${name}.log`) }), 100),
      checkpointer: new MemorySaver(),
      ledger,
      workerId: "this-worker",
      abortGraceMs: 100,
    });
    const out = await graph.invoke(go, thread(name));
    expect(String(out.messages.find((m) => ToolMessage.isInstance(m))?.content)).toMatch(/timed out/);
    expect(await ledger.claim(expectedKey(name, failing.name, "call_0_0"), "other-worker", 60_000)).toBe("claimed");
  });

  it("stops waiting for another worker's live claim when the run is aborted, and never runs the call", async () => {
    const { graph, ledger, starts, threadId, key } = await setup();
    expect(await ledger.claim(key, "other-worker", 1_500)).toBe("claimed");
    const controller = new AbortController();
    const run = graph.invoke(go, thread(threadId, controller.signal));
    setTimeout(() => controller.abort(), 100);
    await expect(run).rejects.toThrow();
    // Well past the other claim's lease: a call still waiting would have claimed it and run by now.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(starts()).toHaveLength(0);
    expect(await ledger.claim(key, "third-worker", 1_000)).toBe("claimed");
  });
});
