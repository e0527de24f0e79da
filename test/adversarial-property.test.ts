// Issue 12's property tests: arbitrary JSON arguments — deep, huge, odd Unicode, duplicate keys in
// JSON strings — through every entry point (createGuardedAgent, GuardedToolNode, guardMiddleware)
// with an audit sink: nothing crashes, and every thread can still be answered and continued.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import fc from "fast-check";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { JsonlAuditSink } from "../src/audit/jsonl.js";
import { MemoryAuditSink } from "../src/audit/memory.js";
import type { AuditSink } from "../src/audit/types.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import type { Guard } from "../src/guard/guard.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CORPUS_POLICY } from "./fixtures/adversarial/corpus.js";
import { toolNodeGraph } from "./helpers/tool-node-graph.js";

const TOOLS = ["Read", "Edit", "Bash", "kubectl_delete", "WebFetch", "send_email", "store"] as const;
const FIELDS = ["file_path", "command", "namespace", "manifest", "url", "to", "value", "content"];

function tools(ran: string[]) {
  return TOOLS.map((name) =>
    defineTool({
      name,
      description: name,
      schema: z.looseObject({}),
      execute: (_input, ctx) => {
        ran.push(ctx.toolCallId);
        return "ok";
      },
    }),
  );
}

function nest(depth: number, leaf: unknown, asArray: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = asArray ? [value] : { k: value };
  return value;
}

const oddString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("\u0000", "\u001b[2J", "\u0085", "\u202e", "\uFEFF", "\uD800", "a\u0000b", "../../", "\\\\?\\C:", "%2e%2e%2f", "$(id)", "`id`", "a;b&&c||d|e\nf"),
);

/** JSON text with duplicated keys at random places. */
const duplicateKeyJson = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom("namespace", "metadata", "a", ""), fc.jsonValue({ maxDepth: 2 })), { minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([entries, nested]) => {
    const body = entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",");
    const doubled = `{${body},${body}}`;
    return nested ? `{"metadata":${doubled},"metadata":${doubled}}` : doubled;
  });

const valueUpTo = (maxDepth: number): fc.Arbitrary<unknown> => fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: oddString },
  { weight: 2, arbitrary: duplicateKeyJson },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 30, max: maxDepth }), fc.boolean()).map(([depth, asArray]) => nest(depth, "x", asArray)) },
  { weight: 1, arbitrary: fc.integer({ min: 60_000, max: 1_500_000 }).map((n) => "y".repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => `${"[".repeat(n * 10)}${"]".repeat(n * 10)}`) },
);

const callUpTo = (maxDepth: number) =>
  fc.record({
    tool: fc.constantFrom(...TOOLS),
    args: fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), oddString), valueUpTo(maxDepth), { maxKeys: 4 }),
  });
const call = callUpTo(12_000);

const loaded = parsePolicy(CORPUS_POLICY, "yaml", "corpus.yaml");

async function withGuard<T>(sink: AuditSink, body: (guard: Guard, ran: string[]) => Promise<T>): Promise<T> {
  const ran: string[] = [];
  const pg = await guardFromPolicy(loaded, { tools: tools(ran), audit: sink });
  try {
    return await body(pg.guard, ran);
  } finally {
    await pg.close();
  }
}

function interrupted(out: unknown): boolean {
  return ((out as { __interrupt__?: unknown[] }).__interrupt__ ?? []).length > 0;
}

const RUNS = 30;
let threadCounter = 0;

describe("arbitrary arguments never crash an entry point nor strand a thread", () => {
  it("the permission policy always decides", () => {
    fc.assert(
      fc.property(call, ({ tool, args }) => {
        const decision = permissionPolicy(loaded).decide(tool, args);
        expect(["allow", "deny", "ask"]).toContain(decision.mode);
      }),
      { numRuns: 300 },
    );
  });

  it("createGuardedAgent with a JSONL audit sink: every thread ends or waits for a human, and goes on after an answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-prop-"));
    const sink = await JsonlAuditSink.open(join(dir, "audit.jsonl"));
    await withGuard(sink, async (guard) => {
      await fc.assert(
        fc.asyncProperty(call, async ({ tool, args }) => {
          const id = `agent-${threadCounter++}`;
          const model = fakeModel()
            .respondWithTools([{ name: tool, args, id: "c1" }])
            .respond(new AIMessage("after"))
            .respondWithTools([{ name: "store", args: { value: "next" }, id: "c2" }])
            .respond(new AIMessage("done"));
          const graph = createGuardedAgent({ model, guard, checkpointer: new MemorySaver() });
          const config = { configurable: { thread_id: id } };
          let out = await graph.invoke({ messages: [new HumanMessage("go")] }, config);
          if (interrupted(out)) out = await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no" }] } }), config);
          expect(interrupted(out)).toBe(false);
          // Every call was answered, and the thread takes the next turn.
          const answered = out.messages.filter((m: unknown) => ToolMessage.isInstance(m)).map((m: ToolMessage) => m.tool_call_id);
          expect(answered).toContain("c1");
          const next = await graph.invoke({ messages: [new HumanMessage("again")] }, config);
          expect(next.messages.at(-1)?.content).toBe("done");
        }),
        { numRuns: RUNS },
      );
    });
    const records = await sink.query({});
    expect(records.length).toBeGreaterThan(RUNS);
    expect(Math.max(...records.map((r) => r.args.length))).toBeLessThanOrEqual(70_000);
    await sink.close();
  }, 300_000);

  it("GuardedToolNode in a user's StateGraph with an audit sink: every thread ends or waits for a human, and goes on after an answer", async () => {
    const sink = new MemoryAuditSink();
    await withGuard(sink, async (guard) => {
      await fc.assert(
        // The user's own model node checkpoints the model's message before the guard sees it: it bounds
        // the arguments with withBoundedArguments, as the docs say (toolNodeGraph).
        fc.asyncProperty(call, async ({ tool, args }) => {
          const model = fakeModel()
            .respondWithTools([{ name: tool, args, id: "c1" }])
            .respond(new AIMessage("after"))
            .respond(new AIMessage("done"));
          const graph = toolNodeGraph(guard, model);
          const config = { configurable: { thread_id: `node-${threadCounter++}` } };
          let out = await graph.invoke({ messages: [new HumanMessage("go")] }, config);
          if (interrupted(out)) out = await graph.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no" }] } }), config);
          expect(interrupted(out)).toBe(false);
          expect(out.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => (m as ToolMessage).tool_call_id)).toEqual(["c1"]);
          const next = await graph.invoke({ messages: [new HumanMessage("again")] }, config);
          expect(next.messages.at(-1)?.content).toBe("done");
        }),
        { numRuns: RUNS },
      );
    });
    expect((await sink.query({})).length).toBeGreaterThan(RUNS);
  }, 300_000);

  it("guardMiddleware with an audit sink: every thread ends or waits for a human, and goes on after an answer", async () => {
    const sink = new MemoryAuditSink();
    await withGuard(sink, async (guard) => {
      await fc.assert(
        fc.asyncProperty(call, async ({ tool, args }) => {
          const model = fakeModel()
            .respondWithTools([{ name: tool, args, id: "c1" }])
            .respond(new AIMessage("after"))
            .respond(new AIMessage("done"));
          const agent = createAgent({ model, middleware: [guardMiddleware({ guard })], checkpointer: new MemorySaver() });
          const config = { configurable: { thread_id: `mw-${threadCounter++}` } };
          let out = await agent.invoke({ messages: [new HumanMessage("go")] }, config);
          if (interrupted(out)) out = await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no" }] } }), config);
          expect(interrupted(out)).toBe(false);
          const next = await agent.invoke({ messages: [new HumanMessage("again")] }, config);
          expect(next.messages.at(-1)?.content).toBe("done");
        }),
        { numRuns: RUNS },
      );
    });
    expect((await sink.query({})).length).toBeGreaterThan(RUNS);
  }, 300_000);
});
