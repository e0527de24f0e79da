import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createGuardedAgent } from "../src/guard/agent.js";
import { continueThread, resumeThread, startThread } from "../src/guard/durable.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { acquireThreadLock } from "../src/storage/lock.js";
import { effectTools, openEffectSink, parseEffectLines } from "./fixtures/workers/effects.js";
import { approvalScenario, tally } from "./fixtures/workers/scenarios.js";
import { uniqueName } from "./helpers/postgres.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-durable-api-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function setup() {
  const name = uniqueName("api");
  const path = join(tmp, `${name}.log`);
  const graph = createGuardedAgent({
    model: new ScriptedChatModel({ scenario: approvalScenario }),
    tools: effectTools(openEffectSink({ kind: "file", path })),
    checkpointer: new MemorySaver(),
  });
  const options = { lockSpec: `memory:${name}` };
  const events = () => (existsSync(path) ? tally(parseEffectLines(readFileSync(path, "utf8"))) : new Map());
  return { graph, options, events, threadId: name, lockSpec: options.lockSpec };
}

const go = { messages: [new HumanMessage("go")] };
const approveBoth = { decisions: [{ type: "approve" }, { type: "approve" }] };

describe("durable thread runs (resumeThread, continueThread, startThread)", () => {
  it("starts a thread into its approval interrupt, resumes it once, then finds nothing left to resume", async () => {
    const { graph, options, events, threadId } = setup();
    const started = await startThread(graph, threadId, go, options);
    expect(started.status).toBe("ran");
    expect(started.status === "ran" && started.interrupts).toHaveLength(1);

    const resumed = await resumeThread(graph, threadId, approveBoth, options);
    expect(resumed).toMatchObject({ status: "ran", interrupts: [] });
    expect(resumed.status === "ran" && resumed.output.messages.at(-1)?.content).toBe("all done");

    const again = await resumeThread(graph, threadId, approveBoth, options);
    expect(again).toMatchObject({ status: "idle", reason: expect.stringMatching(/no pending interrupt/) });
    expect(await continueThread(graph, threadId, options)).toMatchObject({ status: "idle", reason: expect.stringMatching(/nothing left/) });
    for (const label of ["d1", "d2", "e1"]) expect(events().get(label), label).toMatchObject({ starts: 1, ends: 1 });
  });

  it("answers busy without running anything while another worker holds the thread", async () => {
    const { graph, options, events, threadId, lockSpec } = setup();
    await startThread(graph, threadId, go, options);
    const other = await acquireThreadLock(lockSpec, threadId, { owner: "other-worker" });
    expect(other).not.toBeNull();
    expect(await resumeThread(graph, threadId, approveBoth, options)).toEqual({ status: "busy" });
    expect(await continueThread(graph, threadId, options)).toEqual({ status: "busy" });
    expect(events().size).toBe(0);
    expect((await graph.getState({ configurable: { thread_id: threadId } })).tasks.flatMap((t) => t.interrupts)).toHaveLength(1);

    // With waitMs the worker takes the thread as soon as the holder lets go.
    const waiting = resumeThread(graph, threadId, approveBoth, { ...options, waitMs: 20_000 });
    setTimeout(() => void other?.release(), 50);
    expect((await waiting).status).toBe("ran");
    expect(events().get("d1")).toMatchObject({ starts: 1, ends: 1 });
  });

  it("does not continue or restart a thread that waits for an approval", async () => {
    const { graph, options, threadId } = setup();
    await startThread(graph, threadId, go, options);
    const continued = await continueThread(graph, threadId, options);
    expect(continued).toMatchObject({ status: "idle", reason: expect.stringMatching(/waits for an approval/) });
    expect(continued.status === "idle" && continued.interrupts).toHaveLength(1);
    expect(await startThread(graph, threadId, go, options)).toMatchObject({ status: "idle" });
  });

  it("releases the lock when the run throws (a null resume, which LangGraph refuses as an empty Command)", async () => {
    const { graph, options, events, threadId } = setup();
    await startThread(graph, threadId, go, options);
    // A resume that does not fit the pending calls no longer throws (the approval is asked again),
    // so the run is made to throw by a resume LangGraph itself refuses.
    await expect(resumeThread(graph, threadId, null, options)).rejects.toThrow(/empty Command input/);
    expect(events().size).toBe(0);
    expect((await resumeThread(graph, threadId, approveBoth, options)).status).toBe("ran");
  });
});
