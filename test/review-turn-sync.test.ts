// Guard.reviewTurn runs synchronously until a call's review is not (a tool's consent check), then
// continues after it. Compared with reviewing the same calls one at a time against the state each
// approved call leaves, and a limit that throws rejects the turn's promise (never a synchronous throw).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ToolCallLimitError } from "../src/errors/index.js";
import { Guard, type RawToolCall } from "../src/guard/index.js";
import { defineTool } from "../src/tools/index.js";

const plain = defineTool({ name: "plain", description: "plain", schema: z.object({ n: z.number() }), risk: "low", execute: () => "ok" });
const consent = defineTool({
  name: "consent",
  description: "asks when n > 5",
  schema: z.object({ n: z.number() }),
  risk: "low",
  requiresApproval: async (input) => ((input as { n: number }).n > 5 ? "big n" : undefined),
  execute: () => "ok",
});

function guardWith(exitBehavior: "continue" | "error") {
  return new Guard({ tools: [plain, consent], rules: [{ type: "MaxCalls", tool: "plain", max: 2, exitBehavior }], now: () => 1_000 });
}

const calls = (ns: [string, number][]): RawToolCall[] => ns.map(([name, n], i) => ({ id: `c${i}`, name, args: { n } }));

describe("reviewTurn across synchronous and asynchronous reviews", () => {
  it("decides each call as reviewing them one by one does, in order, across consent checks", async () => {
    const turns: [string, number][][] = [
      [["plain", 1], ["consent", 9], ["plain", 2], ["plain", 3], ["consent", 1]],
      [["consent", 1], ["consent", 7], ["plain", 1]],
      [["plain", 1], ["plain", 2], ["plain", 3]],
      [],
    ];
    for (const turn of turns) {
      const guard = guardWith("continue");
      const state = guard.initialRuleState();
      const got = await guard.reviewTurn(state, calls(turn));
      let provisional = state;
      const want = [];
      for (const call of calls(turn)) {
        const one = await guard.reviewTurn(provisional, [call]);
        want.push(one.reviewed[0]!);
        if (one.reviewed[0]!.outcome !== "refuse") provisional = guard.engine.record(provisional, { tool: call.name, callId: call.id, success: true, at: 1_000 });
      }
      expect(got.reviewed).toEqual(want);
      expect(got.reviewed.map((r) => r.outcome)).toEqual(want.map((r) => r.outcome));
    }
  });

  it("a limit that throws rejects the turn, before or after a consent check", async () => {
    for (const turn of [
      [["plain", 1], ["plain", 2], ["plain", 3]],
      [["plain", 1], ["consent", 9], ["plain", 2], ["plain", 3]],
    ] as [string, number][][]) {
      const guard = guardWith("error");
      let pending: Promise<unknown> | undefined;
      expect(() => (pending = guard.reviewTurn(guard.initialRuleState(), calls(turn)))).not.toThrow();
      await expect(pending).rejects.toBeInstanceOf(ToolCallLimitError);
    }
  });
});
