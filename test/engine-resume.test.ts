/**
 * Threads always resume: a worker that dies after a step's tasks saved their writes and before the
 * next checkpoint leaves `next` empty although the step is not committed. continueThread and the
 * CLI decide from the checkpoint's tasks and saved writes instead. The "crash" here is a
 * checkpointer whose `put` fails once, at every checkpoint of a guarded turn in turn.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, CheckpointMetadata } from "@langchain/langgraph";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import { continueThread, threadProgress } from "../src/guard/durable.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { openLedger } from "../src/storage/ledger.js";
import { defineTool } from "../src/tools/define-tool.js";

/** A saver whose `put` number `failAt` (1-based) throws, as a worker killed right before that checkpoint. */
class CrashingSaver extends MemorySaver {
  puts = 0;
  constructor(private readonly failAt: number) {
    super();
  }
  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata): Promise<RunnableConfig> {
    this.puts += 1;
    if (this.puts === this.failAt) throw new Error(`worker died before checkpoint ${this.failAt}`);
    return super.put(config, checkpoint, metadata);
  }
}

/**
 * LangGraph writes checkpoints in the background while the next step runs: a lost checkpoint can
 * follow side effects of later steps, which then run again from the last saved one. The execution
 * ledger keeps those calls exactly-once (the guard's promise; without it they would run twice).
 */
async function setup(failAt: number) {
  const runs: string[] = [];
  const tool = defineTool({
    name: "job",
    description: "job",
    schema: z.object({ label: z.string() }),
    risk: "low",
    isConcurrencySafe: () => true,
    execute: (input) => {
      runs.push(input.label);
      return `${input.label} ok`;
    },
  });
  // The scripted model answers from the conversation so far: a model step re-run after a crash gives the same turn.
  const model = new ScriptedChatModel({
    scenario: {
      name: "two-turns",
      turns: [
        { tool_calls: [{ name: "job", args: { label: "a" } }, { name: "job", args: { label: "b" } }] },
        { tool_calls: [{ name: "job", args: { label: "c" } }] },
        { text: "finished" },
      ],
    },
  });
  const saver = new CrashingSaver(failAt);
  const ledger = await openLedger(`memory:resume-ledger-${failAt}-${Math.random()}`);
  const graph = createGuardedAgent({ model, tools: [tool], checkpointer: saver, ledger });
  return { graph, runs, saver };
}

describe("a thread killed before any checkpoint of a guarded run resumes with continueThread", () => {
  // A run of two turns writes about ten checkpoints; the crash hits each of them in turn.
  for (let failAt = 2; failAt <= 11; failAt += 1) {
    it(`crash before checkpoint ${failAt}: the thread finishes, no call runs twice, every call has one answer`, async () => {
      const { graph, runs } = await setup(failAt);
      const threadId = `resume-${failAt}`;
      const config = { configurable: { thread_id: threadId } };
      const first = await graph.invoke({ messages: [new HumanMessage("go")] }, config).then(
        () => "finished",
        (error: unknown) => String(error),
      );
      if (first === "finished") return; // the run wrote fewer checkpoints than failAt
      expect(first).toMatch(/worker died/);
      const snapshot = await graph.getState(config);
      expect(threadProgress(snapshot)).toBe("has-work");
      const outcome = await continueThread(graph, threadId, { lockSpec: `memory:${threadId}` });
      expect(outcome.status).toBe("ran");
      const after = await graph.getState(config);
      expect(threadProgress(after)).toBe("done");
      const messages = after.values.messages as (AIMessage | ToolMessage)[];
      expect(messages.at(-1)?.content).toBe("finished");
      expect([...runs].sort()).toEqual(["a", "b", "c"]);
      const answers = messages.filter((m) => ToolMessage.isInstance(m)).map((m) => (m as ToolMessage).tool_call_id).sort();
      const calls = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []).map((c) => c.id) : [])).sort();
      expect(answers).toEqual(calls);
      expect(answers).toHaveLength(3);
    });
  }

  it("the step whose tasks all saved their writes shows an empty `next`, and still has work", async () => {
    // Find a crash point where `next` alone would say "nothing left to run".
    let found = false;
    for (let failAt = 2; failAt <= 11 && !found; failAt += 1) {
      const { graph } = await setup(failAt);
      const config = { configurable: { thread_id: `next-${failAt}` } };
      const crashed = await graph.invoke({ messages: [new HumanMessage("go")] }, config).then(() => false, () => true);
      if (!crashed) continue;
      const snapshot = await graph.getState(config);
      if (snapshot.next.length === 0) {
        found = true;
        expect(snapshot.tasks.length).toBeGreaterThan(0);
        expect(threadProgress(snapshot)).toBe("has-work");
      }
    }
    expect(found).toBe(true);
  });
});
