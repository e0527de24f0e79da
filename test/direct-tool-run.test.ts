/**
 * The guard runs a `defineTool` tool without LangChain's tool wrapper when nothing observes tool
 * runs (guard/execute.ts). What the tool and the model see must not change: the same parsed input,
 * execution context, result and refusal text as through `tool.invoke`; and whenever something does
 * observe (a callback handler, streamEvents, the tool's own callbacks, tracing by environment), the
 * wrapper runs and reports the tool's start and end.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import { toolRunsObserved } from "../src/guard/execute.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { defineTool } from "../src/tools/define-tool.js";
import type { ToolExecutionContext } from "../src/tools/types.js";

interface Seen {
  input: unknown;
  toolCallId: string;
  threadId: string | undefined;
  idempotencyKey: string;
  signalAborted: boolean;
}

class CountingHandler extends BaseCallbackHandler {
  name = "counting";
  starts: string[] = [];
  ends = 0;
  override handleToolStart(_tool: unknown, input: string): void {
    this.starts.push(input);
  }
  override handleToolEnd(): void {
    this.ends += 1;
  }
}

/** A tool with defaults and a transform in its schema (so "parsed" differs from "as called"), that records what it saw. */
function recordingTool(seen: Seen[]) {
  return defineTool({
    name: "lookup",
    description: "Looks a key up.",
    schema: z.object({ key: z.string().min(1).transform((k) => k.trim()), limit: z.number().int().default(5) }),
    risk: "low",
    isConcurrencySafe: () => true,
    execute: (input, ctx: ToolExecutionContext) => {
      seen.push({ input, toolCallId: ctx.toolCallId, threadId: ctx.threadId, idempotencyKey: ctx.idempotencyKey, signalAborted: ctx.signal.aborted });
      if (input.key === "boom") throw new Error("lookup failed for boom");
      return { key: input.key, limit: input.limit, unicode: "ü\u0000\u202e" };
    },
  });
}

async function runOnce(argsList: Record<string, unknown>[], callbacks?: BaseCallbackHandler[]) {
  const seen: Seen[] = [];
  const graph = createGuardedAgent({
    model: new ScriptedChatModel({ scenario: { name: "s", turns: [{ tool_calls: argsList.map((args) => ({ name: "lookup", args })) }, { text: "done" }] } }),
    tools: [recordingTool(seen)],
    checkpointer: new MemorySaver(),
  });
  const state = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "direct" }, ...(callbacks ? { callbacks } : {}) });
  const results = state.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => ({ id: m.tool_call_id, status: m.status, content: m.content }));
  return { seen, results };
}

const savedEnv = { ...process.env };
afterEach(() => {
  for (const name of ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"]) {
    if (savedEnv[name] === undefined) delete process.env[name];
    else process.env[name] = savedEnv[name];
  }
});

describe("a defineTool tool run without LangChain's wrapper", () => {
  it("sees the same input and context, and the model gets the same results and refusals, as through tool.invoke", async () => {
    const args = [{ key: "  a  " }, { key: "b", limit: 2 }, { key: "boom" }];
    const direct = await runOnce(args);
    const handler = new CountingHandler();
    const wrapped = await runOnce(args, [handler]);
    expect(handler.starts).toHaveLength(3);
    expect(direct.seen).toEqual(wrapped.seen);
    expect(direct.results).toEqual(wrapped.results);
    expect(direct.seen.map((s) => s.input)).toEqual([{ key: "a", limit: 5 }, { key: "b", limit: 2 }, { key: "boom", limit: 5 }]);
    expect(direct.seen.every((s) => s.threadId === "direct" && s.idempotencyKey.length > 0 && !s.signalAborted)).toBe(true);
    expect(direct.results.map((r) => r.status)).toEqual(["success", "success", "error"]);
  });

  it("gives the same result for generated arguments, valid or not (fast-check)", async () => {
    const tool = recordingTool([]);
    const { directRunOf } = await import("../src/tools/define-tool.js");
    const direct = directRunOf(tool);
    expect(direct).toBeDefined();
    await fc.assert(
      fc.asyncProperty(fc.record({ key: fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)), limit: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(undefined)) }, { requiredKeys: [] }), async (args) => {
        const config = { toolCall: { id: "c1", name: "lookup", args, type: "tool_call" as const }, configurable: { thread_id: "t", tool_call_id: "c1", idempotency_key: "k" } };
        const viaWrapper = await tool.invoke({ id: "c1", name: "lookup", args, type: "tool_call" }, config).then(
          (m: unknown) => ({ ok: String((m as ToolMessage).content) }),
          (e: Error) => ({ err: `${e.constructor.name}: ${e.message}` }),
        );
        const viaDirect = await direct!(args, config).then(
          (text) => ({ ok: text }),
          (e: Error) => ({ err: `${e.constructor.name}: ${e.message}` }),
        );
        expect(viaDirect).toEqual(viaWrapper);
      }),
      { numRuns: 150 },
    );
  });

  it("gives the same result for a schema with an asynchronous refinement and a tool that returns a thenable or a plain value", async () => {
    const { directRunOf } = await import("../src/tools/define-tool.js");
    const transformed: string[] = [];
    const make = (returns: "thenable" | "plain" | "promise") =>
      defineTool({
        name: `async_${returns}`,
        description: "Checks a key.",
        schema: z.object({
          key: z.string().transform((k) => {
            transformed.push(k);
            return k.toUpperCase();
          }),
          n: z.number().refine(async (n) => n !== 13, "unlucky"),
        }),
        risk: "low",
        execute: (input) => {
          const value = { key: input.key, n: input.n };
          // A thenable that is not a Promise: `await` reads it, so the direct run must too.
          if (returns === "thenable") return { then: (resolve: (v: unknown) => void) => resolve(value) } as unknown as Promise<typeof value>;
          return returns === "promise" ? Promise.resolve(value) : value;
        },
      });
    for (const returns of ["thenable", "plain", "promise"] as const) {
      const tool = make(returns);
      const direct = directRunOf(tool)!;
      for (const args of [{ key: "a", n: 1 }, { key: "b", n: 13 }, { key: 3, n: 2 }, { key: "c", n: 4 }]) {
        const config = { toolCall: { id: "c1", name: tool.name, args, type: "tool_call" as const }, configurable: { thread_id: "t", tool_call_id: "c1", idempotency_key: "k" } };
        const viaWrapper = await tool.invoke({ id: "c1", name: tool.name, args, type: "tool_call" }, config).then(
          (m: unknown) => ({ ok: String((m as ToolMessage).content) }),
          (e: Error) => ({ err: `${e.constructor.name}: ${e.message}` }),
        );
        const viaDirect = await direct(args, config).then(
          (text) => ({ ok: typeof text === "string" ? text : JSON.stringify(text) }),
          (e: Error) => ({ err: `${e.constructor.name}: ${e.message}` }),
        );
        expect(viaDirect, `${returns} ${JSON.stringify(args)}`).toEqual(viaWrapper);
      }
    }
    expect(transformed.length).toBeGreaterThan(0);
  });

  it("goes through LangChain's wrapper whenever something observes tool runs", () => {
    const quiet = { callbacks: undefined, verbose: false };
    expect(toolRunsObserved(quiet, { configurable: {} })).toBe(false);
    expect(toolRunsObserved(quiet, { callbacks: [] })).toBe(false);
    expect(toolRunsObserved(quiet, { callbacks: [new CountingHandler()] })).toBe(true);
    expect(toolRunsObserved(quiet, { callbacks: { handlers: [], inheritableHandlers: [new CountingHandler()] } as never })).toBe(true);
    expect(toolRunsObserved({ callbacks: [new CountingHandler()] }, undefined)).toBe(true);
    expect(toolRunsObserved({ verbose: true }, undefined)).toBe(true);
    for (const name of ["LANGSMITH_TRACING_V2", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING", "LANGCHAIN_TRACING"]) {
      process.env[name] = "true";
      expect(toolRunsObserved(quiet, undefined), name).toBe(true);
      delete process.env[name];
    }
  });

  it("streamEvents still reports on_tool_start and on_tool_end for each guarded call", async () => {
    const seen: Seen[] = [];
    const graph = createGuardedAgent({
      model: new ScriptedChatModel({ scenario: { name: "s", turns: [{ tool_calls: [{ name: "lookup", args: { key: "x" } }, { name: "lookup", args: { key: "y" } }] }, { text: "done" }] } }),
      tools: [recordingTool(seen)],
      checkpointer: new MemorySaver(),
    });
    const events: string[] = [];
    for await (const event of graph.streamEvents({ messages: [new HumanMessage("go")] }, { version: "v2", configurable: { thread_id: "events" } })) {
      if (event.event === "on_tool_start" || event.event === "on_tool_end") events.push(`${event.event}:${event.name}`);
    }
    expect(events.filter((e) => e === "on_tool_start:lookup")).toHaveLength(2);
    expect(events.filter((e) => e === "on_tool_end:lookup")).toHaveLength(2);
    expect(seen).toHaveLength(2);
  });
});
