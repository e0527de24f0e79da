// Issue 12's must-show: the adversarial corpus through the policy, the full guarded graph and the
// LangChain middleware, with tools that record whether they ran. 0 executed calls the policy means
// to deny; 0 refusals of the legitimate companion set.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { createGuardedAgent } from "../src/guard/agent.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import type { Guard } from "../src/guard/guard.js";
import { guardMiddleware } from "../src/middleware/index.js";
import { parsePolicy, permissionPolicy, type LoadedPolicy } from "../src/policy/index.js";
import { defineTool } from "../src/tools/define-tool.js";
import type { AnyTool } from "../src/tools/types.js";
import { ATTACKS, CORPUS_POLICY, LEGITIMATE, type CorpusCase } from "./fixtures/adversarial/corpus.js";

interface Ran {
  tool: string;
  id: string;
}

function recordingTools(ran: Ran[]): AnyTool[] {
  const make = (name: string, schema: z.ZodObject) =>
    defineTool({
      name,
      description: `${name} (records that it ran)`,
      schema,
      execute: (_input, ctx) => {
        ran.push({ tool: name, id: ctx.toolCallId });
        return `${name} ran`;
      },
    });
  return [
    make("Read", z.looseObject({ file_path: z.string() })),
    make("Edit", z.looseObject({ file_path: z.string(), content: z.string() })),
    make("Bash", z.looseObject({ command: z.string() })),
    make("kubectl_delete", z.looseObject({ resource: z.string(), name: z.string(), namespace: z.unknown() })),
    make("WebFetch", z.looseObject({ url: z.string().optional(), host: z.string().optional() })),
    make("send_email", z.looseObject({ to: z.unknown(), body: z.string() })),
    make("store", z.looseObject({ value: z.unknown() })),
  ];
}

let loaded: LoadedPolicy;
beforeAll(() => {
  loaded = parsePolicy(CORPUS_POLICY, "yaml", "corpus.yaml");
});

const ALL = [...ATTACKS, ...LEGITIMATE];
const idOf = (c: CorpusCase) => `c${ALL.indexOf(c)}`;

describe("the corpus", () => {
  it("has at least 200 attacks over every class of issue 12, and a legitimate companion set", () => {
    expect(ATTACKS.length).toBeGreaterThanOrEqual(200);
    const classes = new Set(ATTACKS.map((c) => c.class));
    for (const klass of ["path", "control", "json-in-string", "spelling", "deep", "huge", "shell", "url", "email"]) expect(classes).toContain(klass);
    expect(LEGITIMATE.length).toBeGreaterThanOrEqual(50);
  });
});

describe("the permission policy decides every case as the corpus says", () => {
  it.each(ATTACKS.filter((c) => c.class !== "deep" && c.class !== "huge").map((c) => [c.name, c] as const))("attack %s", (_name, c) => {
    const decision = permissionPolicy(loaded).decide(c.tool, c.args);
    if (c.expect === "deny") expect(decision.mode, decision.reason).toBe("deny");
    else expect(decision.mode, decision.reason).not.toBe("allow");
  });

  it.each(LEGITIMATE.map((c) => [c.name, c] as const))("legitimate %s", (_name, c) => {
    const decision = permissionPolicy(loaded).decide(c.tool, c.args);
    expect(decision.mode, `${decision.ruleId}: ${decision.reason}`).toBe("allow");
  });
});

interface EntryPoint {
  name: string;
  /** Runs one case as its own thread and returns whether the graph stopped for approval. */
  run(guard: Guard, c: CorpusCase, threadId: string): Promise<{ interrupted: boolean }>;
}

const entryPoints: EntryPoint[] = [
  {
    name: "createGuardedAgent",
    async run(guard, c, threadId) {
      const model = fakeModel()
        .respondWithTools([{ name: c.tool, args: c.args, id: idOf(c) }])
        .respond(new AIMessage("done"));
      const graph = createGuardedAgent({ model, guard, checkpointer: new MemorySaver() });
      const out = await graph.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: threadId } });
      return { interrupted: ((out as { __interrupt__?: unknown[] }).__interrupt__ ?? []).length > 0 };
    },
  },
  {
    name: "guardMiddleware",
    async run(guard, c, threadId) {
      const model = fakeModel()
        .respondWithTools([{ name: c.tool, args: c.args, id: idOf(c) }])
        .respond(new AIMessage("done"));
      const agent = createAgent({ model, middleware: [guardMiddleware({ guard })], checkpointer: new MemorySaver() });
      const out = await agent.invoke({ messages: [new HumanMessage("go")] }, { configurable: { thread_id: threadId } });
      return { interrupted: ((out as { __interrupt__?: unknown[] }).__interrupt__ ?? []).length > 0 };
    },
  },
];

describe.each(entryPoints)("through $name with recording tools", (entry) => {
  it(
    "runs no attack the policy means to deny, and refuses no legitimate call",
    async () => {
      const ran: Ran[] = [];
      const audit = new MemoryAuditSink();
      const pg = await guardFromPolicy(loaded, { tools: recordingTools(ran), audit });
      const executedAttacks: string[] = [];
      const refusedLegitimate: string[] = [];
      const crashed: string[] = [];
      for (const [index, c] of ALL.entries()) {
        const before = ran.length;
        try {
          const { interrupted } = await entry.run(pg.guard, c, `${entry.name}-${index}`);
          const executed = ran.slice(before).some((r) => r.id === idOf(c));
          if (c.expect === "run" && (!executed || interrupted)) refusedLegitimate.push(c.name);
          if (c.expect !== "run" && executed) executedAttacks.push(c.name);
        } catch (error) {
          crashed.push(`${c.name}: ${(error as Error).message.slice(0, 200)}`);
        }
      }
      expect(crashed).toEqual([]);
      expect(executedAttacks).toEqual([]);
      expect(refusedLegitimate).toEqual([]);
      // Every case left a decision in the audit log, the deep and huge ones a bounded one.
      const records = await audit.query({});
      expect(records.filter((r) => r.event === "decision").length).toBe(ALL.length);
      expect(Math.max(...records.map((r) => r.args.length))).toBeLessThanOrEqual(70_000);
      await pg.close();
    },
    240_000,
  );
});
