// Generated rewrites of a call that waits for approval, sent with the approval in one
// Command({ update, resume }) on each entry point: whatever the rewrite changes (a value, a key, the
// tool, the call id, an added call), nothing runs but what the reviewer was shown; a rewrite that
// changes nothing but the order of the arguments' keys is the same call, and the approval runs it.
import { AIMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { pendingApproval } from "../src/guard/approval/payload.js";
import { defineTool } from "../src/tools/define-tool.js";
import { build, ENTRIES, messagesOf, newThread, say, unanswered } from "./helpers/provider-agent.js";

const SHOWN = { service: "web", env: "staging", replicas: 2 };

function tools(ran: string[]) {
  const schema = z.object({ service: z.string(), env: z.string(), replicas: z.number().optional(), note: z.string().optional() });
  const deploy = defineTool({ name: "deploy", description: "Deploy", schema, risk: "high", execute: (args) => (ran.push(`deploy ${JSON.stringify(args)}`), "deployed") });
  const restart = defineTool({ name: "restart", description: "Restart", schema, risk: "high", execute: (args) => (ran.push(`restart ${JSON.stringify(args)}`), "restarted") });
  return [deploy, restart];
}

type Call = { id: string; name: string; args: Record<string, unknown> };
type Rewrite = { calls: Call[]; same: boolean };

/** A rewrite of the waiting call: what it changes, and whether it changes the call at all. */
const rewrites: fc.Arbitrary<Rewrite> = fc.oneof<fc.Arbitrary<Rewrite>[]>(
  fc.record({ key: fc.constantFrom("service", "env"), value: fc.string({ maxLength: 8 }) }).filter(({ key, value }) => value !== SHOWN[key as "service" | "env"]).map(({ key, value }): Rewrite => ({ calls: [{ id: "d1", name: "deploy", args: { ...SHOWN, [key]: value } }], same: false })),
  fc.integer({ min: -5, max: 50 }).filter((n) => n !== 2).map((n): Rewrite => ({ calls: [{ id: "d1", name: "deploy", args: { ...SHOWN, replicas: n } }], same: false })),
  fc.string({ maxLength: 8 }).map((note): Rewrite => ({ calls: [{ id: "d1", name: "deploy", args: { ...SHOWN, note } }], same: false })),
  fc.constant<Rewrite>({ calls: [{ id: "d1", name: "restart", args: { ...SHOWN } }], same: false }),
  fc.constant<Rewrite>({ calls: [{ id: "d9", name: "deploy", args: { ...SHOWN } }], same: false }),
  fc.constant<Rewrite>({ calls: [{ id: "d1", name: "deploy", args: { ...SHOWN } }, { id: "d2", name: "deploy", args: { ...SHOWN, service: "db" } }], same: false }),
  fc.shuffledSubarray(Object.keys(SHOWN), { minLength: 3, maxLength: 3 }).map((keys): Rewrite => ({ calls: [{ id: "d1", name: "deploy", args: Object.fromEntries(keys.map((k) => [k, SHOWN[k as keyof typeof SHOWN]])) }], same: true })),
);

describe.each(ENTRIES)("%s", (entry) => {
  async function check({ calls, same }: Rewrite, label: string) {
    const ran: string[] = [];
    const { graph } = build(entry, { tools: tools(ran), replies: [[{ name: "deploy", args: SHOWN, id: "d1" }], "done", "done again"] });
    const config = newThread(label);
    await graph.invoke(say("deploy web"), config);
    const state = await graph.getState(config);
    const ai = messagesOf(state.values).findLast((m) => AIMessage.isInstance(m)) as AIMessage;
    const rewritten = new AIMessage({ id: ai.id, content: "", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" as const })) });
    const out = await graph.invoke(new Command({ update: { messages: [rewritten] }, resume: { decisions: calls.map(() => ({ type: "approve" })) } }), config);
    if (same) {
      // The same call: the approval runs it, as shown.
      expect(ran).toEqual([`deploy ${JSON.stringify(SHOWN)}`]);
      expect(pendingApproval(out)).toBeUndefined();
      expect(unanswered(messagesOf(out))).toEqual([]);
    } else {
      expect(ran).toEqual([]);
      expect(pendingApproval(out)?.actionRequests.map((a) => [a.toolCallId, a.name, a.args])).toEqual(calls.map((c) => [c.id, c.name, c.args]));
    }
  }

  it("a generated rewrite sent with the approval runs nothing the reviewer was not shown", async () => {
    let thread = 0;
    await fc.assert(
      fc.asyncProperty(rewrites, (rewrite) => check(rewrite, `binding-property-${thread++}`)),
      { numRuns: 12, seed: 20261128 },
    );
  }, 120_000);

  it("the same call with its arguments' keys in another order is approved and runs as shown", async () => {
    await check({ calls: [{ id: "d1", name: "deploy", args: { replicas: 2, env: "staging", service: "web" } }], same: true }, "binding-reordered");
  });
});
