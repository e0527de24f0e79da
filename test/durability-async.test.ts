/**
 * LangGraph's `durability: "async"` (its default for a graph you compile; a run's own setting wins
 * over createGuardedAgent's "sync"): each step's checkpoint is saved in the background, chained
 * after the one before, while the step's task writes are saved at once under the new checkpoint's
 * id. A process that dies in between leaves writes under checkpoint ids the checkpointer never saved.
 *
 * The crash states are made exactly: the first `kept` checkpoint puts of a run land, the later ones
 * never do (as if the process died with them in flight), every write lands. The run goes into the
 * approval interrupt: 4 checkpoints (input, model step, execute, the step whose review interrupts).
 * A fresh graph then reads the thread. With 1–4 kept the latest checkpoint has work or the approval
 * and the thread finishes; with none kept the thread has no checkpoint, only writes — before this
 * read as "done" (a stuck thread: 8 of 8 in test/crash-boundaries.test.ts with slow checkpoint
 * writes), now "run-lost" with its cause, and continueThread / resumeThread refuse with
 * GG_ERR_THREAD_RUN_LOST instead of answering that nothing is left.
 */
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { threadStatus } from "../src/cli/pending.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { continueThread, readThreadProgress, resumeThread, startThread } from "../src/guard/durable.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { openCheckpointer } from "../src/storage/checkpointer.js";
import { openLedger } from "../src/storage/ledger.js";
import { listThreads } from "../src/storage/threads.js";
import { effectTools, openEffectSink } from "./fixtures/workers/effects.js";
import { approvalScenario } from "./fixtures/workers/scenarios.js";
import { dropSchema, postgresConfigured, postgresForTests, uniqueName } from "./helpers/postgres.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-async-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const go = { messages: [new HumanMessage("go")] };
const approveBoth = { decisions: [{ type: "approve" }, { type: "approve" }] };
const asyncRun = { durability: "async" } as const;

interface Db {
  spec: string;
  schema?: string;
}

/** Lets the first `kept` checkpoint puts land; later ones return as if saved and save nothing. */
function dropPutsAfter(saver: BaseCheckpointSaver, kept: number): void {
  let puts = 0;
  const put = saver.put.bind(saver);
  saver.put = async (config, checkpoint, metadata, versions) => {
    puts += 1;
    if (puts > kept) return { configurable: { ...config.configurable, checkpoint_id: checkpoint.id } };
    return put(config, checkpoint, metadata, versions);
  };
}

async function open(db: Db, kept?: number) {
  const opened = await openCheckpointer(db.spec, db.schema ? { schema: db.schema } : {});
  const ledger = await openLedger(db.spec, db.schema ? { schema: db.schema } : {});
  if (kept !== undefined) dropPutsAfter(opened.checkpointer, kept);
  const graph = createGuardedAgent({
    model: new ScriptedChatModel({ scenario: approvalScenario }),
    tools: effectTools(openEffectSink({ kind: "file", path: join(tmp, "effects.log") })),
    checkpointer: opened.checkpointer,
    ledger,
  });
  return { graph, checkpointer: opened.checkpointer, close: async () => (await ledger.close(), await opened.close()) };
}

/** Runs `run` on a graph whose checkpoint puts after the `kept`-th are lost; closes it (the "crash"). */
async function crashAfter(db: Db, kept: number, run: (graph: Awaited<ReturnType<typeof open>>["graph"]) => Promise<unknown>): Promise<void> {
  const crashed = await open(db, kept);
  try {
    await run(crashed.graph);
  } finally {
    await crashed.close();
  }
}

function lastText(values: unknown): string {
  const messages = (values as { messages?: { content: unknown }[] }).messages ?? [];
  return String(messages.at(-1)?.content ?? "");
}

function suite(database: () => Promise<Db | undefined>) {
  it("a run killed at its approval interrupt before any checkpoint landed is reported lost, never done; started again it finishes", async () => {
    const db = await database();
    if (!db) return;
    const threadId = uniqueName("lost");
    const lock = { lockSpec: db.spec, config: asyncRun };
    await crashAfter(db, 0, (graph) => graph.invoke(go, { ...asyncRun, configurable: { thread_id: threadId } }));
    const fresh = await open(db);
    try {
      const report = await readThreadProgress(fresh.graph, threadId);
      expect(report.progress).toBe("run-lost");
      // The checkpointer holds no checkpoint of the thread, only the run's writes under the 4 checkpoint ids it never saved.
      expect(report.snapshot.config.configurable?.checkpoint_id).toBeUndefined();
      expect(report.reason).toMatch(/last run was lost: its writes \(__interrupt__, .*messages\) were saved under 4 checkpoint\(s\) the checkpointer never saved .* \(the thread has none\)/);
      await expect(continueThread(fresh.graph, threadId, lock)).rejects.toMatchObject({ code: "GG_ERR_THREAD_RUN_LOST" });
      await expect(resumeThread(fresh.graph, threadId, approveBoth, lock)).rejects.toMatchObject({ code: "GG_ERR_THREAD_RUN_LOST" });
      // The CLI's threads / show see it too.
      expect((await listThreads(fresh.checkpointer)).map((t) => t.threadId)).toContain(threadId);
      const status = await threadStatus(fresh.graph, threadId);
      expect(status).toMatchObject({ exists: true, hasNext: false, pending: undefined });
      expect(status.lost).toMatch(/last run was lost/);
      // The remedy: the run again with its input.
      const started = await startThread(fresh.graph, threadId, go, lock);
      expect(started.status === "ran" && started.interrupts).toHaveLength(1);
      expect((await resumeThread(fresh.graph, threadId, approveBoth, lock)).status).toBe("ran");
      const done = await readThreadProgress(fresh.graph, threadId);
      // The lost run's writes are older than the new checkpoints: no longer reported.
      expect(done.progress).toBe("done");
      expect(lastText(done.snapshot.values)).toBe("all done");
    } finally {
      await fresh.close();
    }
  });

  it("a lost run after a finished one: the latest checkpoint has nothing left to run, the thread reads run-lost", async () => {
    const db = await database();
    if (!db) return;
    const threadId = uniqueName("lost2");
    const lock = { lockSpec: db.spec, config: asyncRun };
    const first = await open(db);
    try {
      await startThread(first.graph, threadId, go, lock);
      await resumeThread(first.graph, threadId, approveBoth, lock);
      expect((await readThreadProgress(first.graph, threadId)).progress).toBe("done");
    } finally {
      await first.close();
    }
    await crashAfter(db, 0, (graph) => graph.invoke({ messages: [new HumanMessage("again")] }, { ...asyncRun, configurable: { thread_id: threadId } }));
    const fresh = await open(db);
    try {
      const report = await readThreadProgress(fresh.graph, threadId);
      expect(report.progress).toBe("run-lost");
      expect(report.reason).toContain(`newer than the latest saved checkpoint ${String(report.snapshot.config.configurable?.checkpoint_id)}, which has nothing left to run`);
      await expect(continueThread(fresh.graph, threadId, lock)).rejects.toMatchObject({ code: "GG_ERR_THREAD_RUN_LOST" });
    } finally {
      await fresh.close();
    }
  });

  for (const kept of [1, 2, 3, 4]) {
    it(`the first ${kept} of the run's 4 checkpoints landed: the thread resumes from the latest and finishes, and then reads done`, async () => {
      const db = await database();
      if (!db) return;
      const threadId = uniqueName(`kept${kept}`);
      const lock = { lockSpec: db.spec, config: asyncRun };
      await crashAfter(db, kept, (graph) => graph.invoke(go, { ...asyncRun, configurable: { thread_id: threadId } }));
      const fresh = await open(db);
      try {
        const progress: string[] = [];
        for (let step = 0; step < 4; step += 1) {
          const report = await readThreadProgress(fresh.graph, threadId);
          progress.push(report.progress);
          if (report.progress === "done" || report.progress === "run-lost") break;
          if (report.progress === "waits-for-approval") await resumeThread(fresh.graph, threadId, approveBoth, lock);
          else await continueThread(fresh.graph, threadId, lock);
        }
        expect(progress).toEqual(kept === 4 ? ["waits-for-approval", "done"] : ["has-work", "waits-for-approval", "done"]);
        expect(lastText((await fresh.graph.getState({ configurable: { thread_id: threadId } })).values)).toBe("all done");
      } finally {
        await fresh.close();
      }
    });
  }
}

describe("durability async: crash states on a SQLite file", () => {
  suite(async () => ({ spec: `sqlite:${join(tmp, "async.db")}` }));
});

describe.runIf(postgresConfigured)("durability async: crash states on PostgreSQL", () => {
  const schema = uniqueName("gg_async");
  let url: string | undefined;
  let ready: Promise<Db | undefined> | undefined;
  afterAll(async () => {
    if (url) await dropSchema(url, schema);
  });
  suite(() =>
    (ready ??= (async () => {
      url = await postgresForTests();
      return url ? { spec: url, schema } : undefined;
    })()),
  );
});
