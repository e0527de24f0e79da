import { ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openLedger } from "../src/storage/ledger.js";
import { ENTRIES, orphans, play, ran } from "./helpers/peer-harness.js";
import type { Entry, Outcome, Reply, Scenario } from "./helpers/peer-harness.js";

/**
 * Partial answers, as the OpenAI Agents SDK documents them (`result.interruptions`, approve some,
 * run again): the answered calls go ahead, the others stay pending and are asked again. Each
 * scenario runs against the three entry points through the same approval step (approval/step.ts).
 */
interface PartialScenario {
  id: string;
  title: string;
  entries?: readonly Entry[];
  scenario: Scenario;
  check: (o: Outcome) => void;
}

const deploy = { name: "deploy", risk: "high" as const };
const drop = { name: "drop", risk: "high" as const };
const search = { name: "search" };
const twoAsks: Reply[] = [[{ name: "deploy", id: "a" }, { name: "drop", id: "b" }], "done"];
const noOrphans = (o: Outcome) => expect(orphans(o.messages), o.entry).toEqual([]);
const asked = (o: Outcome) => o.request?.actionRequests.map((r) => r.toolCallId);

const SCENARIOS: PartialScenario[] = [
  {
    id: "P1",
    title: "keyed answer for one of two calls: it runs, the other is asked again, the model is not called in between",
    scenario: { tools: [deploy, drop], replies: [...twoAsks], steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }] },
    check: (o) => {
      expect(o.error).toBeUndefined();
      expect(ran(o)).toEqual(["deploy"]);
      expect(o.interrupted).toBe(true);
      expect(asked(o)).toEqual(["b"]);
      expect(o.request?.error).toBeUndefined();
      // The answered call has its result; the waiting one has none; no model reply yet.
      expect(Object.keys(o.toolText)).toEqual(["a"]);
      expect(o.lastText).not.toBe("done");
    },
  },
  {
    id: "P2",
    title: "the second answer settles the rest: every call answered once, then the model goes on",
    scenario: {
      tools: [deploy, drop],
      replies: [...twoAsks],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }, { resume: { decisions: [{ type: "reject", message: "keep it" }] } }],
    },
    check: (o) => {
      expect(o.error).toBeUndefined();
      expect(ran(o)).toEqual(["deploy"]);
      expect(o.interrupted).toBe(false);
      expect(o.toolText.b).toBe("Refused drop by a human reviewer: keep it. Do not retry this call unchanged.");
      expect(o.lastText).toBe("done");
      noOrphans(o);
      expect(o.messages.filter((m) => ToolMessage.isInstance(m)).map((m) => m.tool_call_id)).toEqual(["a", "b"]);
    },
  },
  {
    id: "P3",
    title: "unkeyed, like Agent Chat UI: one decision answers the first call; the second is asked again",
    scenario: { tools: [deploy, drop], replies: [...twoAsks], steps: [{ input: "go" }, { resume: { decisions: [{ type: "approve" }] } }] },
    check: (o) => {
      expect(ran(o)).toEqual(["deploy"]);
      expect(asked(o)).toEqual(["b"]);
    },
  },
  {
    id: "P4",
    title: "answering the second call first leaves the first waiting",
    scenario: {
      tools: [deploy, drop],
      replies: [...twoAsks],
      steps: [{ input: "go" }, { resume: { decisions: { b: { type: "approve" } } } }, { resume: { decisions: { a: { type: "approve" } } } }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["drop", "deploy"]);
      expect(o.lastText).toBe("done");
      noOrphans(o);
    },
  },
  {
    id: "P5",
    title: "a partial answer that only rejects: nothing runs, the other call is asked again at once",
    scenario: { tools: [deploy, drop], replies: [...twoAsks], steps: [{ input: "go" }, { resume: { decisions: { a: { type: "reject" } } } }] },
    check: (o) => {
      expect(ran(o)).toEqual([]);
      expect(asked(o)).toEqual(["b"]);
      expect(o.toolText.a).toMatch(/^Refused deploy by a human reviewer/);
      expect(o.toolText.b).toBeUndefined();
    },
  },
  {
    id: "P6",
    title: "allowed calls of the turn run with the first answer; only the unanswered ask waits",
    scenario: {
      tools: [deploy, drop, search],
      replies: [[{ name: "search", id: "s" }, { name: "deploy", id: "a" }, { name: "drop", id: "b" }], "done"],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }],
    },
    check: (o) => {
      expect(ran(o).sort()).toEqual(["deploy", "search"]);
      expect(asked(o)).toEqual(["b"]);
    },
  },
  {
    id: "P7",
    title: "a limit that ends the run (exitBehavior end) waits for the calls still pending, then ends after their answers",
    scenario: {
      tools: [deploy, drop, search],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 2, exitBehavior: "end" }],
      replies: [[{ name: "deploy", id: "a" }, { name: "drop", id: "b" }, { name: "search", id: "c" }], "not reached"],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }, { resume: { decisions: { b: { type: "approve" } } } }],
    },
    check: (o) => {
      expect(o.error).toBeUndefined();
      expect(ran(o)).toEqual(["deploy", "drop"]);
      expect(o.toolText.c).toMatch(/limit/);
      expect(o.lastIsAI).toBe(true);
      expect(o.lastText).toMatch(/^Stopped: call limit reached/);
      noOrphans(o);
    },
  },
  {
    id: "P8",
    title: "a decision for a call that is no longer pending is refused and asked again; nothing runs twice",
    scenario: {
      tools: [deploy, drop],
      replies: [...twoAsks],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }, { resume: { decisions: { a: { type: "approve" } } } }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["deploy"]);
      expect(asked(o)).toEqual(["b"]);
      expect(o.request?.error).toMatch(/a/);
    },
  },
  {
    id: "P9",
    title: "an edit answers one call: the edited call runs, the other is asked again",
    scenario: {
      tools: [deploy, drop],
      replies: [[{ name: "deploy", args: { env: "prod" }, id: "a" }, { name: "drop", id: "b" }], "done"],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "edit", editedAction: { name: "deploy", args: { env: "staging" } } } } } }],
    },
    check: (o) => {
      expect(o.executed).toEqual([{ tool: "deploy", args: { env: "staging" } }]);
      expect(asked(o)).toEqual(["b"]);
    },
  },
  {
    id: "P10",
    title: "a Terminal tool answered first: the call still waiting is reviewed again after it, refused (the run has ended) and answered; nothing asks",
    scenario: {
      tools: [deploy, drop],
      rules: [{ type: "Terminal", tool: "deploy" }],
      replies: [...twoAsks],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }],
    },
    check: (o) => {
      expect(o.error).toBeUndefined();
      expect(ran(o)).toEqual(["deploy"]);
      expect(o.interrupted).toBe(false);
      expect(o.toolText.b).toBe(
        "Refused drop by rule Terminal:deploy#0: the run has ended (deploy succeeded); only pending exit tools may run: none. Allowed now: no tool.",
      );
      // The run ended by the Terminal rule: the model was not called again.
      expect(o.lastText).not.toBe("done");
      noOrphans(o);
    },
  },
  {
    id: "P11",
    title: "new input instead of the rest: the calls still waiting are refused, the answered one keeps its result",
    entries: ["agent", "middleware"],
    scenario: {
      tools: [deploy, drop],
      replies: [[{ name: "deploy", id: "a" }, { name: "drop", id: "b" }], "understood"],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }, { input: "never mind" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["deploy"]);
      expect(o.toolText.a).toBe("deploy ok");
      expect(o.toolText.b).toBe(
        "Refused drop by rule approval:superseded: new input arrived while this turn waited for a human's approval, so it did not run. Call it again if it is still needed.",
      );
      expect(o.lastText).toBe("understood");
      noOrphans(o);
    },
  },
];

describe.each(SCENARIOS)("$id: $title", (s) => {
  it.each((s.entries ?? ENTRIES).map((e) => [e]))("%s", async (entry) => {
    s.check(await play(entry as Entry, s.scenario));
  });
});

describe("with an execution ledger (createGuardedAgent's one-task fast path, GuardedToolNode's exactly-once)", () => {
  it.each([["agent"], ["node"], ["middleware"]] as const)("%s: the answered call runs once, the other is asked again, then runs once", async (entry) => {
    const ledger = await openLedger(`memory:partial-${entry}-${Math.random()}`);
    const o = await play(entry, {
      tools: [deploy, drop],
      guard: { ledger },
      replies: [...twoAsks],
      steps: [{ input: "go" }, { resume: { decisions: { a: { type: "approve" } } } }, { resume: { decisions: { b: { type: "approve" } } } }],
    });
    expect(o.error).toBeUndefined();
    expect(ran(o)).toEqual(["deploy", "drop"]);
    expect(o.lastText).toBe("done");
    noOrphans(o);
  });
});

describe("property: any split of the answers into rounds, on every entry point", () => {
  // n calls that ask, each approved or rejected, answered in random rounds (a random order cut into
  // non-empty groups, keyed by id): every approved call runs exactly once, no rejected call runs, every
  // call ends with exactly one ToolMessage, the model is called once more only at the end.
  const plan = fc
    .integer({ min: 2, max: 4 })
    .chain((n) =>
      fc.record({
        approve: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
        order: fc.shuffledSubarray([...Array(n).keys()], { minLength: n, maxLength: n }),
        cuts: fc.array(fc.boolean(), { minLength: n - 1, maxLength: n - 1 }),
      }),
    );
  it.each(ENTRIES.map((e) => [e]))("%s", async (entry) => {
    await fc.assert(
      fc.asyncProperty(plan, async ({ approve, order, cuts }) => {
        const names = approve.map((_, i) => `t${i}`);
        const rounds: number[][] = [[]];
        order.forEach((call, k) => {
          rounds.at(-1)?.push(call);
          if (k < cuts.length && cuts[k]) rounds.push([]);
        });
        const o = await play(entry as Entry, {
          tools: names.map((name) => ({ name, risk: "high" as const })),
          replies: [names.map((name, i) => ({ name, id: `c${i}` })), "done"],
          steps: [
            { input: "go" },
            ...rounds.map((round) => ({
              resume: { decisions: Object.fromEntries(round.map((i) => [`c${i}`, approve[i] ? { type: "approve" } : { type: "reject" }])) },
            })),
          ],
        });
        expect(o.error).toBeUndefined();
        expect(o.interrupted).toBe(false);
        expect(ran(o).sort()).toEqual(names.filter((_, i) => approve[i]).sort());
        const answers = o.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.tool_call_id);
        expect(answers.sort()).toEqual(names.map((_, i) => `c${i}`).sort());
        expect(o.lastText).toBe("done");
      }),
      { numRuns: 12, seed: 1414 },
    );
  });
});
