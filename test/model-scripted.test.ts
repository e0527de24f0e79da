import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { scenarioPath } from "../src/model/create-model.js";
import { loadScenario, parseScenario, type ScenarioInput } from "../src/model/scenario.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { defineTool } from "../src/tools/define-tool.js";

const scenario: ScenarioInput = {
  name: "test",
  turns: [
    { text: "looking", tool_calls: [{ name: "kubectl_get", args: { resource: "pods" } }, { name: "bash", args: { command: "ls" } }] },
    {
      when: { lastToolResultContains: "denied" },
      then: { text: "it was denied, giving up" },
      else: { tool_calls: [{ name: "kubectl_delete", args: { resource: "pod", name: "x" } }] },
    },
    { text: "all done" },
  ],
  forced: { close_database: { force: true } },
};

type Invokable = { invoke(messages: BaseMessage[]): Promise<BaseMessage> };

/** Plays the model like an agent loop: appends each reply and answers its calls with `results`. */
async function play(model: Invokable, turns: number, results: (name: string) => string): Promise<BaseMessage[]> {
  const messages: BaseMessage[] = [new HumanMessage("go")];
  for (let i = 0; i < turns; i++) {
    const reply = (await model.invoke(messages)) as AIMessage;
    messages.push(reply);
    for (const call of reply.tool_calls ?? []) {
      messages.push(new ToolMessage({ tool_call_id: call.id ?? "", content: results(call.name) }));
    }
  }
  return messages;
}

describe("ScriptedChatModel", () => {
  it("plays the turns in order with deterministic call ids, then a finished answer", async () => {
    const model = new ScriptedChatModel({ scenario });
    const messages = await play(model, 4, () => "ok");
    const ai = messages.filter((m): m is AIMessage => m.type === "ai");
    expect(ai[0]?.tool_calls?.map((c) => [c.id, c.name, c.args])).toEqual([
      ["call_0_0", "kubectl_get", { resource: "pods" }],
      ["call_0_1", "bash", { command: "ls" }],
    ]);
    expect(ai[0]?.text).toBe("looking");
    expect(ai[1]?.tool_calls?.map((c) => [c.id, c.name])).toEqual([["call_1_0", "kubectl_delete"]]);
    expect(ai[2]?.text).toBe("all done");
    expect(ai[2]?.tool_calls).toEqual([]);
    expect(ai[3]?.text).toBe('Scenario "test" is finished.');
    expect(model.calls.map((c) => c.turn)).toEqual([0, 1, 2, undefined]);
  });

  it("takes the conditional branch when a tool result of the previous turn matches (case-insensitive)", async () => {
    const model = new ScriptedChatModel({ scenario });
    const messages = await play(model, 2, (name) => (name === "bash" ? "Refused: DENIED by policy" : "ok"));
    expect(messages.at(-1)?.text).toBe("it was denied, giving up");
  });

  it("picks its turn from the conversation, so a re-run from the same messages gives the same reply", async () => {
    const first = new ScriptedChatModel({ scenario });
    const history = await play(first, 1, () => "ok");
    const again = await new ScriptedChatModel({ scenario }).invoke(history);
    const twice = await new ScriptedChatModel({ scenario }).invoke(history);
    expect(again.id).toBe(twice.id);
    expect((again as AIMessage).tool_calls).toEqual((twice as AIMessage).tool_calls);
    expect((again as AIMessage).tool_calls?.[0]?.id).toBe("call_1_0");
    // The same model asked twice about the same messages does not advance either.
    const repeat = await first.invoke(history);
    expect((repeat as AIMessage).tool_calls?.[0]?.id).toBe("call_1_0");
  });

  it("does not count AI messages it did not write (e.g. a guard's synthetic call)", async () => {
    const model = new ScriptedChatModel({ scenario });
    const foreign = new AIMessage({ content: "", tool_calls: [{ id: "guard_1", name: "close_database", args: {} }] });
    const reply = (await model.invoke([new HumanMessage("go"), foreign, new ToolMessage({ tool_call_id: "guard_1", content: "ok" })])) as AIMessage;
    expect(reply.tool_calls?.[0]?.id).toBe("call_0_0");
  });

  it("records bound tools in OpenAI form, from LangChain tools and plain definitions", async () => {
    const model = new ScriptedChatModel({ scenario });
    const tool = defineTool({
      name: "kubectl_get",
      description: "List resources",
      schema: z.object({ resource: z.string() }),
      execute: () => "",
    });
    const plain = { type: "function", function: { name: "bash", description: "Run", parameters: { type: "object", properties: { command: { type: "string" } } } } };
    const bound = model.bindTools([tool, plain]) as unknown as ScriptedChatModel;
    expect(bound.boundTools.map((t) => t.name)).toEqual(["kubectl_get", "bash"]);
    expect(bound.boundTools[0]?.parameters).toMatchObject({ type: "object", properties: { resource: { type: "string" } } });
    expect(bound.boundTools[1]).toEqual({ name: "bash", description: "Run", parameters: plain.function.parameters });
    await bound.invoke([new HumanMessage("go")]);
    expect(model.calls[0]?.tools.map((t) => t.name)).toEqual(["kubectl_get", "bash"]);
  });

  it("obeys tool_choice naming a tool the turn does not call, without using up the turn", async () => {
    const model = new ScriptedChatModel({ scenario });
    const forced = model.bindTools([], { tool_choice: "close_database" });
    const reply = (await forced.invoke([new HumanMessage("go")])) as AIMessage;
    expect(reply.tool_calls?.map((c) => [c.id, c.name, c.args])).toEqual([["call_f0_0", "close_database", { force: true }]]);
    const objectForm = model.bindTools([], { tool_choice: { type: "function", function: { name: "other" } } });
    const other = (await objectForm.invoke([new HumanMessage("go")])) as AIMessage;
    expect(other.tool_calls?.map((c) => [c.name, c.args])).toEqual([["other", {}]]);
    // The scripted turn 0 still comes next.
    const next = (await model.invoke([new HumanMessage("go"), reply, new ToolMessage({ tool_call_id: "call_f0_0", content: "ok" })])) as AIMessage;
    expect(next.tool_calls?.[0]?.id).toBe("call_0_0");
  });

  it("keeps the scripted turn when it already calls the forced tool", async () => {
    const model = new ScriptedChatModel({ scenario });
    const reply = (await model.bindTools([], { tool_choice: "kubectl_get" }).invoke([new HumanMessage("go")])) as AIMessage;
    expect(reply.tool_calls?.map((c) => c.id)).toEqual(["call_0_0", "call_0_1"]);
  });

  it("with tool_choice \"any\" turns a text turn into a call of a bound tool", async () => {
    const textFirst = new ScriptedChatModel({ scenario: { name: "t", turns: [{ text: "hi" }], forced: { close_database: {} } } });
    const plain = (name: string) => ({ type: "function", function: { name, description: "", parameters: { type: "object", properties: {} } } });
    const reply = (await textFirst.bindTools([plain("bash"), plain("close_database")], { tool_choice: "any" }).invoke([new HumanMessage("x")])) as AIMessage;
    expect(reply.tool_calls?.map((c) => c.name)).toEqual(["close_database"]);
  });
});

describe("scenarios", () => {
  const tmp = mkdtempSync(join(tmpdir(), "gg-scenario-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("loads the shipped demo scenarios", () => {
    const devops = loadScenario(scenarioPath("devops-demo"));
    expect(devops.turns.length).toBeGreaterThanOrEqual(4);
    const etl = loadScenario(scenarioPath("etl-demo"));
    expect(etl.forced?.close_database).toEqual({});
  });

  it("loads JSON too, and reports every invalid field", () => {
    const path = join(tmp, "s.json");
    writeFileSync(path, JSON.stringify({ name: "j", turns: [{ text: "x" }] }));
    expect(loadScenario(path).name).toBe("j");
    expect(() => parseScenario({ name: "", turns: [] })).toThrow(/name: .*turns: a scenario needs at least one turn/);
    expect(() => parseScenario({ name: "x", turns: [{ tool_calls: [] }] })).toThrow(/tool_calls is empty/);
    expect(() => parseScenario({ name: "x", turns: [{ when: {}, then: { text: "a" } }] })).toThrow(/a `when` needs a condition/);
    expect(() => loadScenario(join(tmp, "missing.yaml"))).toThrow(/cannot read scenario/);
  });
});
