// Plain LangChain tools whose schema is zod 3 (`zod/v3`, or the zod 3 package): LangChain's own tools
// (todoListMiddleware's `write_todos`) and many users' tools still use it. The guard built with one
// threw `TypeError: Cannot read properties of undefined (reading 'def')` in its constructor: it read
// every schema with `safeParse` as zod 4. They are read through their JSON schema now, and the
// arguments are checked by the tool's own zod 3 schema.
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { todoListMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z as z3 } from "zod/v3";
import { Guard } from "../src/guard/index.js";
import { guardSpecOf } from "../src/tools/index.js";
import { build, messagesOf, newThread, toolText } from "./helpers/provider-agent.js";

const ran: string[] = [];
const search = tool(({ query, limit }) => (ran.push(`search ${query} ${limit ?? "-"}`), `results for ${query}`), {
  name: "search_docs",
  description: "Search the docs",
  schema: z3.object({ query: z3.string().min(2).describe("What to look for"), limit: z3.number().int().positive().optional() }),
});
const orders = tool((input) => (ran.push(`orders ${JSON.stringify(input)}`), "ok"), {
  name: "orders",
  description: "Orders",
  schema: z3.discriminatedUnion("operation", [
    z3.object({ operation: z3.literal("get"), id: z3.string() }),
    z3.object({ operation: z3.literal("cancel"), id: z3.string(), reason: z3.string() }),
  ]),
});

describe("a plain tool with a zod 3 schema", () => {
  it("builds a guard: its JSON schema has the fields, its operations are read", () => {
    const guard = new Guard({ tools: [search, orders] });
    const spec = guardSpecOf(search);
    expect(Object.keys(spec.jsonSchema.properties ?? {}).sort()).toEqual(["limit", "query"]);
    expect(spec.jsonSchema.required).toEqual(["query"]);
    expect(guardSpecOf(orders).operations).toEqual(["get", "cancel"]);
    expect(guard.registry.list().map((t) => t.name)).toEqual(["search_docs", "orders"]);
  });

  it("LangChain's todoListMiddleware tool builds a guard", () => {
    const tools = todoListMiddleware().tools ?? [];
    expect(tools.map((t) => t.name)).toEqual(["write_todos"]);
    expect(() => new Guard({ tools: [...tools] })).not.toThrow();
  });

  describe.each(["agent", "node", "middleware"] as const)("%s", (entry) => {
    it("runs a call that fits, refuses one that does not with the schema's own message", async () => {
      ran.length = 0;
      const { graph } = build(entry, {
        tools: [search],
        replies: [[{ name: "search_docs", args: { query: "guards", limit: 3 }, id: "ok1" }, { name: "search_docs", args: { query: "x", limit: -1 }, id: "bad1" }], "done"],
        guard: { defaultRisk: "low" },
      });
      const out = await graph.invoke({ messages: [new HumanMessage("find")] }, newThread(`zod3-${entry}`));
      const texts = toolText(messagesOf(out));
      expect(texts.ok1).toBe("results for guards");
      expect(texts.bad1).toMatch(/^Refused search_docs by rule schema: invalid arguments \(/);
      expect(texts.bad1).toMatch(/at least 2/);
      expect(ran).toEqual(["search guards 3"]);
    });
  });
});
