// A tool's LangGraph Command as the guard reads, records and replays it (src/tools/command-result.ts):
// what a ledger record keeps must come back as the same update, goto and messages.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, Send } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { combineOutputs, commandWith, loadCommand, readToolCommand, storeCommand } from "../src/tools/command-result.js";

const scope = { reserved: ["guard", "guardResults"] };

function read(command: Command, guardOwnsGraph = false) {
  return readToolCommand(command as never, "tool", "c1", { ...scope, guardOwnsGraph });
}

describe("readToolCommand", () => {
  it("takes the update's ToolMessage for the call as its answer and keeps the rest in order", () => {
    const ai = new AIMessage({ content: "", id: "ai1", tool_calls: [{ id: "c1", name: "tool", args: {} }] });
    const result = read(new Command({ update: { messages: [ai, new ToolMessage({ content: "done", tool_call_id: "c1", status: "error" }), new HumanMessage("after")], todos: ["a"] }, goto: "next" }));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.answer).toMatchObject({ content: "done", status: "error" });
    expect(result.command.answerAt).toBe(1);
    expect(result.command.messages.map((m) => m.getType())).toEqual(["ai", "human"]);
    expect(result.command.state).toEqual({ todos: ["a"] });
    const applied = commandWith(result.command, new ToolMessage({ content: "answer", tool_call_id: "c1" }));
    expect((applied.update as { messages: { content: unknown }[] }).messages.map((m) => m.content)).toEqual(["", "answer", "after"]);
    expect(applied.goto).toEqual(["next"]);
  });

  it("refuses an update whose messages answer another call, unless the update holds the model message that made it; a Command for the parent graph goes as written", () => {
    const stray = read(new Command({ update: { messages: [new ToolMessage({ content: "y", tool_call_id: "zzz" })] } }));
    expect(stray).toEqual({ ok: false, reason: 'it ran, but returned a LangGraph Command whose messages hold ToolMessages for other calls ("zzz"); a tool answers only its own call, so nothing of the Command was applied.' });
    const sibling = read(new Command({ update: { messages: [new ToolMessage({ content: "mine", tool_call_id: "c1" }), new ToolMessage({ content: "theirs", tool_call_id: "c2" })] } }));
    expect(sibling.ok).toBe(false);
    const exchange = new AIMessage({ content: "", id: "ai9", tool_calls: [{ id: "c9", name: "other", args: {} }] });
    const whole = read(new Command({ update: { messages: [exchange, new ToolMessage({ content: "nine", tool_call_id: "c9" }), new ToolMessage({ content: "mine", tool_call_id: "c1" })] } }));
    expect(whole.ok).toBe(true);
    const parent = read(new Command({ graph: Command.PARENT, goto: "other_agent", update: { messages: [new ToolMessage({ content: "handed off", tool_call_id: "zzz" })] } }));
    expect(parent.ok).toBe(true);
  });

  it("reads the [key, value] tuple form of an update", () => {
    const result = read(new Command({ update: [["todos", ["x"]]] }));
    expect(result.ok && result.command.state).toEqual({ todos: ["x"] });
  });

  it("refuses two answers for the call, the guard's keys, a graph other than the parent", () => {
    const two = read(new Command({ update: { messages: [new ToolMessage({ content: "a", tool_call_id: "c1" }), new ToolMessage({ content: "b", tool_call_id: "c1" })] } }));
    expect(two).toEqual({ ok: false, reason: "it ran, but returned a LangGraph Command whose messages hold 2 ToolMessages for this call; a call has exactly one answer, so nothing of the Command was applied." });
    expect(read(new Command({ update: { guard: {}, guardResults: null } }))).toEqual({ ok: false, reason: "it ran, but returned a LangGraph Command that updates the guard's own state (guard, guardResults). A tool may not change the guard's rule state, so nothing of the Command was applied." });
    expect(read(new Command({ graph: "elsewhere", goto: "x" }))).toMatchObject({ ok: false, reason: expect.stringContaining('it names the graph "elsewhere"') });
  });

  it("in the guard's own graph: messages only, no goto; anything for the parent graph", () => {
    expect(read(new Command({ update: { todos: [] } }), true)).toMatchObject({ ok: false, reason: expect.stringMatching(/^it ran, but returned a LangGraph Command \(todos\) that the guarded agent's own graph cannot apply/) });
    expect(read(new Command({ goto: "agent" }), true)).toMatchObject({ ok: false, reason: expect.stringMatching(/^it ran, but returned a LangGraph Command \(goto\)/) });
    expect(read(new Command({ update: { messages: [] } }), true).ok).toBe(true);
    expect(read(new Command({ graph: Command.PARENT, goto: "b", update: { active: "b" } }), true).ok).toBe(true);
  });

  it("no answer in the update: the guard's answer goes last for this graph, none is added for the parent", () => {
    const own = read(new Command({ update: { todos: ["a"] } }));
    expect(own.ok && [own.command.answerAt, own.command.hasMessages, own.answer.content]).toEqual([0, true, "tool applied its update (todos)."]);
    const parent = read(new Command({ graph: Command.PARENT, goto: "b" }));
    expect(parent.ok && [parent.command.answerAt, parent.command.hasMessages]).toEqual([undefined, false]);
  });
});

describe("storeCommand / loadCommand: a ledger record replays the same Command", () => {
  it("round-trips state, messages (tool calls included), a goto of Sends, and the parent graph", () => {
    const ai = new AIMessage({ content: "", id: "ai1", tool_calls: [{ id: "c1", name: "tool", args: { a: 1 } }] });
    const result = read(new Command({ graph: Command.PARENT, goto: [new Send("worker", { n: 1 }), "other"], update: { messages: [ai, new ToolMessage({ content: "ok", tool_call_id: "c1" })], active: { name: "b", tags: [1, null] } } }));
    if (!result.ok) throw new Error(result.reason);
    const stored = storeCommand(result.command);
    if (!stored.ok) throw new Error(stored.reason);
    const loaded = loadCommand(JSON.parse(JSON.stringify(stored.stored)));
    expect(loaded).toBeDefined();
    if (!loaded) return;
    expect(loaded.state).toEqual({ active: { name: "b", tags: [1, null] } });
    expect(loaded.graph).toBe(Command.PARENT);
    expect(loaded.answerAt).toBe(1);
    const [send, other] = loaded.goto as [Send, string];
    expect(send).toBeInstanceOf(Send);
    expect([send.node, send.args, other]).toEqual(["worker", { n: 1 }, "other"]);
    const [back] = loaded.messages;
    expect(AIMessage.isInstance(back)).toBe(true);
    expect((back as AIMessage).tool_calls?.[0]).toMatchObject({ id: "c1", name: "tool", args: { a: 1 } });
    expect(back?.id).toBe("ai1");
  });

  it("refuses what JSON would change: a class instance, a function, a non-finite number", () => {
    const of = (value: unknown) => {
      const result = read(new Command({ update: { v: value } }));
      if (!result.ok) throw new Error(result.reason);
      return storeCommand(result.command);
    };
    expect(of(new Map())).toEqual({ ok: false, reason: "v is a Map, not plain data" });
    expect(of({ f: () => 1 })).toEqual({ ok: false, reason: "v.f is a function" });
    expect(of([Number.NaN])).toEqual({ ok: false, reason: "v[0] is NaN" });
    expect(of({ plain: [1, "a", null, { b: true }] }).ok).toBe(true);
  });

  it("a record that is not a stored Command loads as none", () => {
    expect(loadCommand({ update: "x" })).toBeUndefined();
    expect(loadCommand(undefined)).toBeUndefined();
  });
});

describe("combineOutputs, as LangGraph's ToolNode combines a batch", () => {
  it("plain answers as { messages }, Commands as they are, the parent's Sends in one Command at the end", () => {
    const answer = new ToolMessage({ content: "plain", tool_call_id: "p" });
    const own = new Command({ update: { todos: ["a"] } });
    const combined = combineOutputs([
      new Command({ graph: Command.PARENT, goto: [new Send("w", { i: 1 })] }),
      answer,
      own,
      new Command({ graph: Command.PARENT, goto: [new Send("w", { i: 2 })] }),
    ]);
    expect(combined).toHaveLength(3);
    expect(combined[0]).toEqual({ messages: [answer] });
    expect(combined[1]).toBe(own);
    const parent = combined[2] as Command;
    expect(parent.graph).toBe(Command.PARENT);
    expect((parent.goto as Send[]).map((s) => s.args)).toEqual([{ i: 1 }, { i: 2 }]);
  });
});
