// Issue 15: the model step binds the flat, provider-safe tool schemas, and for OpenAI chat models
// sends each tool that can be strict in strict form with `strict: true` (a tool that cannot, e.g. a
// free-form JSON field, goes with `strict: false`). Checked on the request body a loopback
// OpenAI-compatible server receives from ChatOpenAI inside the guarded agent.
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGuardedAgent } from "../src/guard/agent.js";
import { Guard } from "../src/guard/guard.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { allowedToolsFor } from "../src/middleware/model-call.js";
import { defineTool, schemaFor, strictSchemaFor } from "../src/tools/index.js";
import { withoutStrictNulls } from "../src/tools/schema.js";
import { startOpenAIServer, type OpenAIServer, type RecordedRequest } from "./helpers/openai-server.js";
import { checkAnthropic, checkOpenAI } from "./helpers/provider-schema.js";

let server: OpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ran: unknown[] = [];
const files = defineTool({
  name: "files",
  description: "Read or write a file",
  schema: z.discriminatedUnion("operation", [
    z.object({ operation: z.literal("read"), path: z.string(), encoding: z.enum(["utf8", "base64"]).optional() }),
    z.object({ operation: z.literal("write"), path: z.string(), content: z.string() }),
  ]),
  risk: "low",
  execute: (input) => {
    ran.push(input);
    return "ok";
  },
});
const search = defineTool({
  name: "search",
  description: "Search",
  schema: z.object({ query: z.string(), limit: z.number().int().optional(), filter: z.object({ lang: z.string().optional() }).optional() }),
  risk: "low",
  execute: (input) => {
    ran.push(input);
    return "found";
  },
});
const freeform = defineTool({
  name: "annotate",
  description: "Attach free-form data",
  schema: z.object({ data: z.record(z.string(), z.unknown()) }),
  risk: "low",
  execute: () => "noted",
});
const tools = [files, search, freeform];

type SentTool = NonNullable<RecordedRequest["body"]["tools"]>[number] & { function: { strict?: boolean } };
const sent = (request: RecordedRequest | undefined) => new Map(((request?.body.tools ?? []) as SentTool[]).map((t) => [t.function.name, t.function]));

function openai(url: string): ChatOpenAI {
  return new ChatOpenAI({ model: "test-model", apiKey: "test", maxRetries: 0, configuration: { baseURL: url } });
}

describe("the guarded agent's model step binds flat schemas, strict for OpenAI chat models", () => {
  it("ChatOpenAI: strict-capable tools carry strict: true and their strict flat schema; a free-form tool strict: false; a strict model's nulls read as absent", async () => {
    ran.length = 0;
    server = await startOpenAIServer([
      {
        tool_calls: [
          // What a strict-mode model writes: every field present, null for the ones it leaves out.
          { id: "c1", name: "files", arguments: { operation: "read", path: "a.txt", encoding: null, content: null } },
          { id: "c2", name: "search", arguments: { query: "q", limit: null, filter: { lang: null } } },
        ],
      },
      { content: "done" },
    ]);
    const graph = createGuardedAgent({ model: openai(server.url), tools, checkpointer: new MemorySaver() });
    const out = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "strict" } });

    const defs = sent(server.requests[0]);
    expect([...defs.keys()]).toEqual(["files", "search", "annotate"]);
    for (const tool of [files, search]) {
      const def = defs.get(tool.name);
      expect(def?.strict).toBe(true);
      expect(def?.parameters).toEqual(strictSchemaFor(tool).schema);
      // Flat (no root oneOf/anyOf), every field required, additionalProperties false: what strict mode and Anthropic accept.
      expect(checkOpenAI({ name: tool.name, parameters: def?.parameters ?? {}, strict: true })).toEqual([]);
      expect(checkAnthropic({ name: tool.name, input_schema: def?.parameters ?? {} })).toEqual([]);
    }
    expect(defs.get("files")?.parameters).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: ["operation", "path", "encoding", "content"],
      properties: { operation: { enum: ["read", "write"] } },
    });
    expect(defs.get("files")?.parameters).not.toHaveProperty("oneOf");
    expect(defs.get("annotate")?.strict).toBe(false);
    expect(defs.get("annotate")?.parameters).toEqual(schemaFor(freeform));

    // Both calls ran, with the nulls gone (the read without encoding, the search without limit or lang).
    const results = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]);
    expect(results).toEqual([
      ["c1", "ok"],
      ["c2", "found"],
    ]);
    expect(ran).toEqual([{ operation: "read", path: "a.txt" }, { query: "q", filter: {} }]);
  });

  it("strictTools: false sends the flat schemas without strict; a model that is not OpenAI's gets none by default, all with strictTools: true", async () => {
    server = await startOpenAIServer([{ content: "done" }]);
    const graph = createGuardedAgent({ model: openai(server.url), tools, strictTools: false, checkpointer: new MemorySaver() });
    await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: "plain" } });
    const defs = sent(server.requests[0]);
    expect(defs.get("files")?.strict).toBeUndefined();
    expect(defs.get("files")?.parameters).toEqual(schemaFor(files));
    expect(defs.get("files")?.parameters).not.toHaveProperty("oneOf");

    const guard = new Guard({ tools });
    const state = guard.initialRuleState();
    expect(guard.strictToolsFor(fakeModel())).toBe(false);
    expect(guard.strictToolsFor(openai("http://127.0.0.1:9/v1"))).toBe(true);
    expect(new Guard({ tools, strictTools: true }).strictToolsFor(fakeModel())).toBe(true);
    expect(guard.definitions(state).some((d) => d.function.strict !== undefined)).toBe(false);
  });

  it("strict definitions keep operation filtering and the heartbeat argument (required, nullable)", () => {
    const guard = new Guard({ tools, heartbeat: true, rules: [{ type: "AllowedOperations", tool: "files", operations: ["read"] }] });
    const defs = new Map(guard.definitions(guard.initialRuleState(), { strict: true }).map((d) => [d.function.name, d.function]));
    const filesDef = defs.get("files");
    expect(filesDef?.strict).toBe(true);
    expect(filesDef?.parameters).toMatchObject({ properties: { operation: { enum: ["read"] } } });
    expect(filesDef?.parameters.properties).not.toHaveProperty("content");
    expect(filesDef?.parameters.required).toContain("request_heartbeat");
    expect(filesDef?.parameters).toMatchObject({ properties: { request_heartbeat: { type: ["boolean", "null"] } } });
    expect(checkOpenAI({ name: "files", parameters: filesDef?.parameters ?? {}, strict: true })).toEqual([]);
  });

  it("the middleware replaces every guard tool by its strict definition when strict applies", () => {
    const guard = new Guard({ tools });
    const state = guard.initialRuleState();
    const strict = allowedToolsFor(guard, state, tools, { strict: true }) as { function?: { name: string; strict?: boolean } }[];
    expect(strict.map((t) => [t.function?.name, t.function?.strict])).toEqual([
      ["files", true],
      ["search", true],
      ["annotate", false],
    ]);
    // Without strict the user's own tool objects go through untouched.
    expect(allowedToolsFor(guard, state, tools)).toEqual(tools);
  });

  it("middleware + ChatOpenAI: strict definitions in the request; a strict call that needs approval runs once approved (its nulls do not make it a new call)", async () => {
    ran.length = 0;
    server = await startOpenAIServer([
      { tool_calls: [{ id: "w1", name: "files", arguments: { operation: "write", path: "a.txt", content: "hi", encoding: null } }] },
      { content: "written" },
    ]);
    const agent = createAgent({
      model: openai(server.url),
      middleware: [guardMiddleware({ tools, toolRisk: { files: "high" } })],
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: "mw-strict" } };
    const first = await agent.invoke({ messages: [new HumanMessage("write it")] }, config);
    expect((first as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    const defs = sent(server.requests[0]);
    expect(defs.get("files")?.strict).toBe(true);
    expect(defs.get("files")?.parameters).toEqual(strictSchemaFor(files).schema);
    expect(defs.get("annotate")?.strict).toBe(false);
    const out = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
    const result = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, String(m.content)]);
    expect(result).toEqual([["w1", "ok"]]);
    expect(ran).toEqual([{ operation: "write", path: "a.txt", content: "hi" }]);
  });

  it("withoutStrictNulls drops null only where the field is optional and does not accept null", () => {
    const schema = {
      type: "object",
      required: ["a"],
      properties: {
        a: { type: "string" },
        b: { type: "string" },
        c: { anyOf: [{ type: "string" }, { type: "null" }] },
        d: { type: "array", items: { type: "object", properties: { e: { type: "number" } } } },
      },
    };
    expect(withoutStrictNulls({ a: null, b: null, c: null, d: [{ e: null }, { e: 1 }] }, schema)).toEqual({ a: null, c: null, d: [{}, { e: 1 }] });
    const same = { a: "x", b: "y" };
    expect(withoutStrictNulls(same, schema)).toBe(same);
  });
});
