import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import type { ToolRule } from "../src/rules/types.js";
import { defineTool } from "../src/tools/define-tool.js";

const thread = (id: string) => ({ configurable: { thread_id: id } });
const toolMessages = (messages: BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

function simpleTool(name: string, ran: string[]) {
  return defineTool({
    name,
    description: name,
    schema: z.object({}),
    risk: "low",
    execute: () => {
      ran.push(name);
      return `${name} ok`;
    },
  });
}

const opsTool = (ran: string[]) =>
  defineTool({
    name: "file",
    description: "file ops",
    schema: z.object({ op: z.enum(["load", "append", "save", "delete"]), path: z.string() }),
    risk: "low",
    execute: (input) => {
      ran.push(`file.${input.op}`);
      return "ok";
    },
  });

/** Runs one scripted turn of calls (ids c0, c1, ...) then a final answer; returns what ran and what the model saw. */
async function runTurn(
  rules: ToolRule[],
  names: string[],
  calls: { name: string; args?: Record<string, unknown> }[],
  now?: () => number,
  finalAnswers = 1,
) {
  const ran: string[] = [];
  const model = fakeModel().respondWithTools(calls.map((c, i) => ({ name: c.name, args: c.args ?? {}, id: `c${i}` })));
  for (let i = 0; i < finalAnswers; i += 1) model.respond(new AIMessage("done"));
  const bound: { function: { name: string; parameters: unknown } }[][] = [];
  const original = model.bindTools.bind(model);
  model.bindTools = (tools: Parameters<typeof original>[0]) => {
    bound.push(tools as unknown as { function: { name: string; parameters: unknown } }[]);
    return original(tools);
  };
  const tools = names.map((n) => (n === "file" ? opsTool(ran) : simpleTool(n, ran)));
  const graph = createGuardedAgent({ model, tools, rules, checkpointer: new MemorySaver(), ...(now ? { now } : {}) });
  const out = await graph.invoke({ messages: [new HumanMessage("go")] }, thread(`loop-${Math.random()}`));
  const byId = Object.fromEntries(toolMessages(out.messages).map((m) => [m.tool_call_id, String(m.content)]));
  return { ran, byId, bound, out, prompts: model.calls.map((c) => c.messages.filter((m) => SystemMessage.isInstance(m)).map((m) => String(m.content)).join("\n")) };
}

describe("every rule type, observed through the guarded loop", () => {
  it("MustFollow: the dependent tool is hidden and refused until its prerequisite ran", async () => {
    const { ran, byId, bound } = await runTurn(
      [{ tool: "validate", type: "MustFollow", conditions: ["load"] }],
      ["load", "validate"],
      [{ name: "validate" }, { name: "load" }, { name: "validate" }],
    );
    expect(bound[0]?.map((d) => d.function.name)).toEqual(["load"]);
    expect(byId.c0).toMatch(/validate may only run after load succeeded/);
    expect(ran).toEqual(["load", "validate"]);
  });

  it("MustPrecede: the others wait until the preceding tool ran", async () => {
    const { ran, byId } = await runTurn(
      [{ tool: "auth", type: "MustPrecede", conditions: ["fetch"] }],
      ["auth", "fetch"],
      [{ name: "fetch" }, { name: "auth" }, { name: "fetch" }],
    );
    expect(byId.c0).toMatch(/MustPrecede/);
    expect(ran).toEqual(["auth", "fetch"]);
  });

  it("ExclusiveGroup: once one member ran, the others are refused", async () => {
    const { ran, byId } = await runTurn(
      [{ tool: "format_json", type: "ExclusiveGroup", conditions: ["format_xml"] }],
      ["format_json", "format_xml"],
      [{ name: "format_xml" }, { name: "format_json" }],
    );
    expect(ran).toEqual(["format_xml"]);
    expect(byId.c1).toMatch(/ExclusiveGroup/);
  });

  it("Cooldown: a second call inside the window is refused", async () => {
    let clock = 1_000;
    const { ran, byId } = await runTurn(
      [{ tool: "poll", type: "Cooldown", durationMs: 60_000 }],
      ["poll"],
      [{ name: "poll" }, { name: "poll" }],
      () => clock++,
    );
    expect(ran).toEqual(["poll"]);
    expect(byId.c1).toMatch(/Cooldown/);
  });

  it("AllowedOperations: the model only sees the allowed operations and a forged one is refused", async () => {
    const { ran, byId, bound } = await runTurn(
      [{ tool: "file", type: "AllowedOperations", operations: ["load", "append"] }],
      ["file"],
      [{ name: "file", args: { op: "load", path: "a" } }, { name: "file", args: { op: "delete", path: "a" } }],
    );
    const schema = JSON.stringify(bound[0]?.[0]?.function.parameters);
    expect(schema).toContain("append");
    expect(schema).not.toContain("delete");
    expect(schema).not.toContain("save");
    expect(ran).toEqual(["file.load"]);
    expect(byId.c1).toMatch(/AllowedOperations.*delete/);
  });

  it("TerminalIf: ends the run only when its conditions also succeeded", async () => {
    const notYet = await runTurn(
      [{ tool: "report", type: "TerminalIf", conditions: ["verify"] }],
      ["report", "verify"],
      [{ name: "report" }],
    );
    expect(notYet.out.guard.terminatedBy).toBeNull();
    expect(notYet.out.messages.at(-1)?.content).toBe("done");
    const ends = await runTurn(
      [{ tool: "report", type: "TerminalIf", conditions: ["verify"] }],
      ["report", "verify"],
      [{ name: "verify" }, { name: "report" }],
    );
    expect(ends.out.guard.terminatedBy).toMatch(/TerminalIf/);
    expect(ends.out.messages.at(-1)).toBeInstanceOf(ToolMessage);
  });

  it("RequiredForExitIf: the exit tool is required only once its condition ran", async () => {
    const { ran, out } = await runTurn(
      [{ tool: "close", type: "RequiredForExitIf", conditions: ["open"] }],
      ["open", "close"],
      [{ name: "open" }],
      undefined,
      4,
    );
    // answer → reminder → answer → forced (the model ignores tool_choice: synthetic close) → final answer
    expect(ran).toEqual(["open", "close"]);
    expect(out.guard.exitUnsatisfied).toEqual([]);
  });

  it("Periodic: a due tool is announced in the system prompt, with the usage rules", async () => {
    const { prompts } = await runTurn([{ tool: "heartbeat_check", type: "Periodic", durationMs: 60_000 }], ["heartbeat_check"], [{ name: "heartbeat_check" }]);
    expect(prompts[0]).toMatch(/Tool usage rules/);
    expect(prompts[0]).toMatch(/Periodic tools due now: heartbeat_check/);
    expect(prompts[1]).not.toMatch(/due now/);
  });

  it("records outcomes across turns when the tools go straight back to the model (no collect step)", async () => {
    const ran: string[] = [];
    const model = fakeModel()
      .respondWithTools([{ name: "api", args: {}, id: "t1a" }, { name: "api", args: {}, id: "t1b" }])
      .respondWithTools([{ name: "api", args: {}, id: "t2a" }])
      .respond(new AIMessage("done"));
    const api = defineTool({
      name: "api",
      description: "a read-only API",
      schema: z.object({}),
      risk: "low",
      isConcurrencySafe: () => true,
      execute: () => {
        ran.push("api");
        return "ok";
      },
    });
    const graph = createGuardedAgent({
      model,
      tools: [api],
      rules: [{ tool: "api", type: "MaxCalls", max: 2 }],
      checkpointer: new MemorySaver(),
    });
    const nodes: string[] = [];
    for await (const update of await graph.stream({ messages: [new HumanMessage("go")] }, { ...thread("fast-path"), streamMode: "updates" })) {
      nodes.push(...Object.keys(update));
    }
    expect(nodes).not.toContain("collect");
    expect(ran).toEqual(["api", "api"]);
    const state = await graph.getState(thread("fast-path"));
    const third = toolMessages(state.values.messages).find((m) => m.tool_call_id === "t2a");
    expect(String(third?.content)).toMatch(/MaxCalls/);
    expect(state.values.guard.rules?.runAttempts.api).toBe(2);
  });
});
