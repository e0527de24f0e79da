import { AIMessageChunk, HumanMessage, type AIMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createModel, PLACEHOLDER_API_KEY } from "../src/model/create-model.js";
import { ScriptedChatModel } from "../src/model/scripted.js";
import { defineTool } from "../src/tools/define-tool.js";
import { startOpenAIServer, type OpenAIServer } from "./helpers/openai-server.js";

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const getTool = defineTool({
  name: "kubectl_get",
  description: "List resources",
  schema: z.object({ resource: z.string(), namespace: z.string().default("default") }),
  execute: () => "ok",
});
const parallelReply = {
  content: "Checking both namespaces.",
  tool_calls: [
    { name: "kubectl_get", arguments: { resource: "pods", namespace: "staging" } },
    { name: "kubectl_get", arguments: { resource: "pods", namespace: "production" } },
  ],
};

/** Streams the reply and merges the chunks, as LangGraph's "messages" stream mode does. */
async function streamed(
  model: { stream(input: HumanMessage[]): Promise<AsyncIterable<AIMessageChunk>> },
  input: HumanMessage[],
): Promise<AIMessageChunk> {
  let merged: AIMessageChunk | undefined;
  for await (const chunk of await model.stream(input)) merged = merged ? merged.concat(chunk) : chunk;
  if (!merged) throw new Error("the stream was empty");
  return merged;
}

// Neither `streaming: true` (invoke() then estimates tokens with tiktoken, which fetches its encoding
// from the internet) nor `streaming: false` (which disables stream()): tests stay on loopback.
function openai(url: string): ChatOpenAI {
  return new ChatOpenAI({ model: "test-model", apiKey: "test", maxRetries: 0, configuration: { baseURL: url } });
}

describe("ChatOpenAI against the local OpenAI-compatible server", () => {
  for (const streaming of [false, true]) {
    it(`returns parallel tool calls as tool_calls (${streaming ? "streaming" : "non-streaming"})`, async () => {
      server = await startOpenAIServer([parallelReply]);
      const model = openai(server.url).bindTools([getTool], { tool_choice: "kubectl_get" });
      const input = [new HumanMessage("what runs where?")];
      const reply = streaming ? await streamed(model, input) : ((await model.invoke(input)) as AIMessage);
      expect(reply.tool_calls?.map((call) => call.args)).toEqual([
        { resource: "pods", namespace: "staging" },
        { resource: "pods", namespace: "production" },
      ]);
      expect(reply.tool_calls?.map((call) => call.id)).toEqual(["call_srv_0_0", "call_srv_0_1"]);
      expect(reply.text).toBe("Checking both namespaces.");
      const request = server.requests[0];
      expect(request?.body.stream === true).toBe(streaming);
      expect(request?.headers.authorization).toBe("Bearer test");
      expect(request?.body.tools?.[0]?.function.name).toBe("kubectl_get");
      expect(request?.body.tools?.[0]?.function.parameters).toMatchObject({
        type: "object",
        properties: { resource: { type: "string" }, namespace: { type: "string", default: "default" } },
      });
      expect(request?.body.tool_choice).toEqual({ type: "function", function: { name: "kubectl_get" } });
      expect(request?.body.messages?.at(-1)).toMatchObject({ role: "user", content: "what runs where?" });
    });
  }

  it("streams tool call fragments that reassemble into whole calls", async () => {
    server = await startOpenAIServer([parallelReply]);
    const model = openai(server.url).bindTools([getTool]);
    let merged: AIMessageChunk | undefined;
    let chunks = 0;
    for await (const chunk of await model.stream([new HumanMessage("go")])) {
      chunks += 1;
      merged = merged ? merged.concat(chunk) : chunk;
    }
    expect(chunks).toBeGreaterThan(4);
    expect(merged?.tool_calls?.map((call) => [call.name, call.args])).toEqual([
      ["kubectl_get", { resource: "pods", namespace: "staging" }],
      ["kubectl_get", { resource: "pods", namespace: "production" }],
    ]);
  });

  it("streams token chunks from a LangGraph node in \"messages\" mode", async () => {
    server = await startOpenAIServer([parallelReply]);
    const { MessagesAnnotation, StateGraph, START, END } = await import("@langchain/langgraph");
    const model = openai(server.url).bindTools([getTool]);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile();
    const chunks: AIMessageChunk[] = [];
    for await (const [message] of await graph.stream({ messages: [new HumanMessage("go")] }, { streamMode: "messages" })) {
      if (AIMessageChunk.isInstance(message)) chunks.push(message);
    }
    expect(server.requests[0]?.body.stream).toBe(true);
    expect(chunks.length).toBeGreaterThan(4);
    const merged = chunks.reduce((a, b) => a.concat(b));
    expect(merged.tool_calls?.map((call) => call.args.namespace)).toEqual(["staging", "production"]);
  });

  it("sends the tool results back on the next request", async () => {
    server = await startOpenAIServer([{ tool_calls: [{ id: "c1", name: "kubectl_get", arguments: { resource: "pods" } }] }, { content: "done" }]);
    const model = openai(server.url).bindTools([getTool]);
    const first = (await model.invoke([new HumanMessage("go")])) as AIMessage;
    const { ToolMessage } = await import("@langchain/core/messages");
    const second = await model.invoke([new HumanMessage("go"), first, new ToolMessage({ tool_call_id: "c1", content: "3 pods" })]);
    expect(second.text).toBe("done");
    expect(server.requests[1]?.body.messages?.at(-1)).toMatchObject({ role: "tool", tool_call_id: "c1", content: "3 pods" });
  });

  it("surfaces a server error", async () => {
    server = await startOpenAIServer([{ status: 500, content: "boom" }]);
    await expect(openai(server.url).invoke([new HumanMessage("go")])).rejects.toThrow(/boom/);
  });
});

describe("createModel", () => {
  it("picks ChatOpenAI from OPENAI_BASE_URL and MODEL, with a placeholder key", async () => {
    server = await startOpenAIServer([{ content: "hello from the server" }]);
    const model = await createModel({ env: { OPENAI_BASE_URL: server.url, MODEL: "local-llama" } });
    expect(model).toBeInstanceOf(ChatOpenAI);
    const reply = await model.invoke([new HumanMessage("hi")]);
    expect(reply.text).toBe("hello from the server");
    expect(server.requests[0]?.body.model).toBe("local-llama");
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
  });

  it("uses OPENAI_API_KEY when set", async () => {
    server = await startOpenAIServer([{ content: "ok" }]);
    const model = await createModel({ env: { OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-local" } });
    await model.invoke([new HumanMessage("hi")]);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-local");
    expect(server.requests[0]?.body.model).toBe("gpt-4o-mini");
  });

  it("falls back to the scripted devops demo with no key or base URL (blank counts as unset)", async () => {
    const model = await createModel({ env: { OPENAI_API_KEY: " ", OPENAI_BASE_URL: "" } });
    expect(model).toBeInstanceOf(ScriptedChatModel);
    expect((model as ScriptedChatModel).scenario.name).toBe("devops-demo");
    expect(((await createModel({ env: {}, scenario: "etl-demo" })) as ScriptedChatModel).scenario.name).toBe("etl-demo");
  });

  it("refuses a malformed OPENAI_BASE_URL and an unknown scenario", async () => {
    await expect(createModel({ env: { OPENAI_BASE_URL: "ftp://x" } })).rejects.toThrow(/OPENAI_BASE_URL must be an http\(s\) URL/);
    await expect(createModel({ env: {}, scenario: "no-such-demo" })).rejects.toThrow(/no scenario named "no-such-demo"/);
  });
});
