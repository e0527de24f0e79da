import { Client } from "@langchain/langgraph-sdk";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writesAfterTheirCheckpoint } from "../src/index.js";
import { probe, saverReportSchema } from "./fixtures/platform-probe.js";
import { CLI_AVAILABLE, startDevServer, type DevServer } from "./helpers/langgraph-dev.js";

// LangGraph Platform loads an exported graph without a checkpointer and assigns its own saver to it
// before each run (`compiled.checkpointer = …` in @langchain/langgraph-api). createGuardedAgent's
// graph wraps a saver assigned so (src/storage/write-order.ts); test/storage-write-order.test.ts
// shows it in-process by running that assignment line. Here the real server runs the graph, and a
// tool inside the run reports the saver LangGraph handed the run (test/fixtures/platform-probe.ts).

const KEY = "dev-saver-key-0123456789abcdef";

function reportOf(messages: unknown): { saver: string; ordered: boolean } {
  const list = messages as { type?: string; content?: unknown }[];
  const tool = list.find((m) => m.type === "tool");
  if (typeof tool?.content !== "string") throw new Error(`no tool answer in ${JSON.stringify(list)}`);
  return saverReportSchema.parse(JSON.parse(tool.content));
}

describe("the probe itself tells a wrapped saver from an unwrapped one", () => {
  it("an unwrapped SqliteSaver reads as not ordered; the same saver wrapped reads as ordered", async () => {
    const raw = SqliteSaver.fromConnString(":memory:");
    const ask = async (saver: unknown) => saverReportSchema.parse(JSON.parse(String(await probe.invoke({}, { configurable: { __pregel_checkpointer: saver } }))));
    expect(await ask(raw)).toEqual({ saver: "SqliteSaver", ordered: false });
    expect(await ask(writesAfterTheirCheckpoint(raw))).toEqual({ saver: "SqliteSaver", ordered: true });
  });
});

describe.runIf(CLI_AVAILABLE)("langgraph dev: the saver the server assigns to a guarded graph is the write-ordering one", { timeout: 180_000 }, () => {
  let server: DevServer;

  beforeAll(async () => {
    server = await startDevServer({ GUARDED_GRAPH_API_KEYS: `probe-user:${KEY}` }, { probe: "./test/fixtures/platform-probe.ts:graph" });
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("two runs on two threads each see the server's own saver class, wrapped", async () => {
    const client = new Client({ apiUrl: server.apiUrl, apiKey: KEY });
    const reports = [];
    for (let i = 0; i < 2; i++) {
      const thread = await client.threads.create();
      const state = await client.runs.wait(thread.thread_id, "probe", { input: { messages: [{ type: "human", content: "probe" }] } });
      reports.push(reportOf((state as { messages?: unknown }).messages));
    }
    // The server's saver is its own class (it persists to .langgraph_api/), not LangGraph's plain
    // MemorySaver, which is ordered as it is: only the wrapper answers "ordered" for it.
    for (const report of reports) {
      expect(report.saver).not.toBe("MemorySaver");
      expect(report.ordered).toBe(true);
    }
  });
});
