import { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ToolCallLimitError } from "../src/errors/index.js";
import { parseToolRules } from "../src/rules/schema.js";
import { ENTRIES, orphans, play, ran } from "./helpers/peer-harness.js";
import type { Entry, Outcome, Scenario } from "./helpers/peer-harness.js";

/**
 * The peers' documented behaviours, translated into scenarios and run against the three entry
 * points. Sources: LangChain.js `toolCallLimit.test.ts` and `hitl.test.ts`
 * (libs/langchain/src/agents/middleware/tests/), Letta's `tests/test_tool_rule_solver.py`.
 * `same: false` marks a deliberate difference; `why` says what we do instead (docs/migration-*.md).
 * Partial answers (the OpenAI Agents SDK's) are in test/partial-answers.test.ts; sticky approvals in
 * test/approval-sticky.test.ts and test/cli-sticky.test.ts.
 */
interface PeerScenario {
  id: string;
  peer: "langchain" | "letta";
  title: string;
  same: boolean;
  why?: string;
  /** Entry points the scenario applies to (GuardedToolNode does not call the model, so it cannot force one). */
  entries?: readonly Entry[];
  scenario: Scenario;
  check: (o: Outcome) => void;
}

const search = { name: "search" };
const calculator = { name: "calculator" };
const noOrphans = (o: Outcome) => expect(orphans(o.messages), o.entry).toEqual([]);
const forcedAt = (o: Outcome, i: number, tool: string) =>
  expect(o.toolChoices[i], `${o.entry}: tool_choice of model call ${i}`).toEqual(
    o.entry === "agent" ? tool : { type: "function", function: { name: tool } },
  );
const modelEntries: readonly Entry[] = ["agent", "middleware"];
/** Some tool must be called, the model picks which (LangChain's "any"; createAgent's request type spells it "required"). */
const anyToolAt = (o: Outcome, i: number) =>
  expect(o.toolChoices[i], `${o.entry}: tool_choice of model call ${i}`).toBe(o.entry === "agent" ? "any" : "required");

const SCENARIOS: PeerScenario[] = [
  // ── LangChain toolCallLimitMiddleware ─────────────────────────────────────────────────────────
  {
    id: "L1", peer: "langchain", same: true,
    title: "calls under the thread limit all run (threadLimit 5, no toolName)",
    scenario: { tools: [search], rules: [{ type: "MaxTotalCalls", tool: "*", max: 5, scope: "thread", exitBehavior: "end" }], replies: [[{ name: "search", id: "1" }], "done"], steps: [{ input: "go" }] },
    check: (o) => {
      expect(ran(o)).toEqual(["search"]);
      expect(o.lastText).toBe("done");
    },
  },
  {
    id: "L2", peer: "langchain", same: true,
    title: "thread limit exceeded with exitBehavior end: 3 calls run, the 4th is refused and the run ends with an AI message",
    scenario: {
      tools: [search],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 3, scope: "thread", exitBehavior: "end" }],
      replies: [[{ name: "search", id: "1" }, { name: "search", id: "2" }], [{ name: "search", id: "3" }], [{ name: "search", id: "4" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search", "search"]);
      expect(o.lastIsAI).toBe(true);
      expect(o.lastText).toBe(
        "Stopped: call limit reached: at most 3 calls to all tools together per thread, and 3 were made (rule MaxTotalCalls:*#0), so this run ends here.",
      );
      expect(o.toolText["4"]).toMatch(/^Refused search by rule MaxTotalCalls:\*#0: call limit reached/);
      noOrphans(o);
    },
  },
  {
    id: "L3", peer: "langchain", same: true,
    title: "the thread count persists across runs (threadLimit 4 over three runs)",
    scenario: {
      tools: [search, calculator],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 4, scope: "thread", exitBehavior: "end" }],
      replies: [
        [{ name: "search", id: "1" }, { name: "calculator", id: "2" }], "first",
        [{ name: "search", id: "3" }, { name: "calculator", id: "4" }], "second",
        [{ name: "search", id: "5" }],
      ],
      steps: [{ input: "one" }, { input: "two" }, { input: "three" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "calculator", "search", "calculator"]);
      expect(o.lastText).toMatch(/^Stopped: call limit reached: at most 4 calls to all tools together per thread/);
      noOrphans(o);
    },
  },
  {
    id: "L4", peer: "langchain", same: true,
    title: "calls under the run limit all run (runLimit 2)",
    scenario: { tools: [search], rules: [{ type: "MaxTotalCalls", tool: "*", max: 2, exitBehavior: "end" }], replies: [[{ name: "search", id: "1" }], [{ name: "search", id: "2" }], "done"], steps: [{ input: "go" }] },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search"]);
      expect(o.lastText).toBe("done");
    },
  },
  {
    id: "L5", peer: "langchain", same: true,
    title: "run limit exceeded with exitBehavior end ends the run",
    scenario: {
      tools: [search],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 2, exitBehavior: "end" }],
      replies: [[{ name: "search", id: "1" }, { name: "search", id: "2" }], [{ name: "search", id: "3" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search"]);
      expect(o.lastText).toMatch(/^Stopped: call limit reached: at most 2 calls to all tools together per run, and 2 were made/);
      noOrphans(o);
    },
  },
  {
    id: "L6", peer: "langchain", same: false,
    why: "LangChain's test expects the run count NOT to reset on the next HumanMessage (\"5/2\", no call runs in the second run), against its own doc; ours resets per run, as documented",
    title: "the run count resets on a new HumanMessage",
    scenario: {
      tools: [search],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 2, exitBehavior: "end" }],
      replies: [[{ name: "search", id: "1" }, { name: "search", id: "2" }], [{ name: "search", id: "3" }], [{ name: "search", id: "4" }, { name: "search", id: "5" }], [{ name: "search", id: "6" }]],
      steps: [{ input: "one" }, { input: "two" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search", "search", "search"]);
      expect(o.toolText["6"]).toMatch(/call limit reached/);
      noOrphans(o);
    },
  },
  {
    id: "L7", peer: "langchain", same: true,
    title: "a tool-specific limit counts only that tool",
    scenario: {
      tools: [search, calculator],
      rules: [{ type: "MaxCalls", tool: "search", max: 2, scope: "thread", exitBehavior: "end" }],
      replies: [[{ name: "search", id: "1" }, { name: "calculator", id: "2" }, { name: "calculator", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "calculator", "calculator"]);
      expect(o.lastText).toBe("done");
    },
  },
  {
    id: "L8", peer: "langchain", same: true,
    title: "a tool-specific limit exceeded ends the run; the other tool's calls ran",
    scenario: {
      tools: [search, calculator],
      rules: [{ type: "MaxCalls", tool: "search", max: 2, scope: "thread", exitBehavior: "end" }],
      replies: [[{ name: "search", id: "1" }, { name: "calculator", id: "2" }], [{ name: "search", id: "3" }], [{ name: "search", id: "4" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "calculator", "search"]);
      expect(o.lastText).toBe(
        "Stopped: call limit reached: search may be called at most 2 times per thread and was called 2 times (rule MaxCalls:search#0), so this run ends here.",
      );
      noOrphans(o);
    },
  },
  {
    id: "L9", peer: "langchain", same: true,
    title: "exitBehavior continue: the exceeding call gets an error ToolMessage and the model goes on",
    scenario: {
      tools: [search, calculator],
      rules: [{ type: "MaxCalls", tool: "search", max: 1 }],
      replies: [[{ name: "search", id: "1" }], [{ name: "search", id: "2" }], [{ name: "calculator", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "calculator"]);
      expect(o.toolText["2"]).toBe(
        "Refused search by rule MaxCalls:search#0: call limit reached: search may be called at most 1 time per run and was called 1 time. Allowed now: calculator.",
      );
      expect(o.lastText).toBe("done");
      noOrphans(o);
    },
  },
  {
    id: "L15", peer: "langchain", same: true,
    title: "a global and a tool-specific limit together: the tool's limit ends the run (global threadLimit 10, search threadLimit 2)",
    scenario: {
      tools: [search, calculator],
      rules: [
        { type: "MaxTotalCalls", tool: "*", max: 10, scope: "thread", exitBehavior: "end" },
        { type: "MaxCalls", tool: "search", max: 2, scope: "thread", exitBehavior: "end" },
      ],
      replies: [[{ name: "search", id: "1" }, { name: "search", id: "2" }, { name: "calculator", id: "3" }], [{ name: "search", id: "4" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search", "calculator"]);
      expect(o.lastText).toBe(
        "Stopped: call limit reached: search may be called at most 2 times per thread and was called 2 times (rule MaxCalls:search#1), so this run ends here.",
      );
      noOrphans(o);
    },
  },
  {
    id: "L16", peer: "langchain", same: true,
    title: "thread and run limits together: the run limit is hit first and named (threadLimit 5, runLimit 2)",
    scenario: {
      tools: [search],
      rules: [
        { type: "MaxTotalCalls", tool: "*", max: 5, scope: "thread", exitBehavior: "end" },
        { type: "MaxTotalCalls", tool: "*", max: 2, scope: "run", exitBehavior: "end" },
      ],
      replies: [[{ name: "search", id: "1" }, { name: "search", id: "2" }], [{ name: "search", id: "3" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search"]);
      expect(o.lastText).toBe(
        "Stopped: call limit reached: at most 2 calls to all tools together per run, and 2 were made (rule MaxTotalCalls:*#1), so this run ends here.",
      );
    },
  },
  {
    id: "L17", peer: "langchain", same: true,
    title: "thread and run limits together: in a later run the thread limit is hit first and named (threadLimit 3, runLimit 2, two runs)",
    scenario: {
      tools: [search],
      rules: [
        { type: "MaxTotalCalls", tool: "*", max: 3, scope: "thread", exitBehavior: "end" },
        { type: "MaxTotalCalls", tool: "*", max: 2, scope: "run", exitBehavior: "end" },
      ],
      replies: [[{ name: "search", id: "1" }], [{ name: "search", id: "2" }], [{ name: "search", id: "3" }], [{ name: "search", id: "4" }], [{ name: "search", id: "5" }], "not reached"],
      steps: [{ input: "go" }, { input: "again" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search", "search"]);
      expect(o.toolText["3"]).toMatch(/per run/);
      expect(o.lastText).toBe(
        "Stopped: call limit reached: at most 3 calls to all tools together per thread, and 3 were made (rule MaxTotalCalls:*#0), so this run ends here.",
      );
    },
  },
  {
    id: "L17b", peer: "langchain", same: true,
    title: "a run limit above the thread limit is refused when the agent is built (threadLimit 2, runLimit 3)",
    scenario: {
      tools: [search],
      rules: [
        { type: "MaxTotalCalls", tool: "*", max: 2, scope: "thread", exitBehavior: "error" },
        { type: "MaxTotalCalls", tool: "*", max: 3, scope: "run", exitBehavior: "error" },
      ],
      replies: ["not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.executed).toEqual([]);
      expect(String((o.error as Error | undefined)?.message)).toMatch(
        /\[limit-scope\] rule MaxTotalCalls:\*#1 allows 3 calls to all tools together per run, more than rule MaxTotalCalls:\*#0 allows per thread \(2\): the run limit can never be reached\. Make the run limit at most 2/,
      );
      expect(o.buildError).toBe(true);
    },
  },
  {
    id: "L18", peer: "langchain", same: true,
    title: "exitBehavior continue: the limited tool is blocked (its refusal names the tool and the limit), the other tool of each turn runs on",
    scenario: {
      tools: [search, calculator],
      rules: [{ type: "MaxCalls", tool: "search", max: 2, scope: "thread", exitBehavior: "continue" }],
      replies: [
        [{ name: "search", id: "1" }, { name: "calculator", id: "2" }],
        [{ name: "search", id: "3" }, { name: "calculator", id: "4" }],
        [{ name: "search", id: "5" }, { name: "calculator", id: "6" }],
        "done",
      ],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "calculator", "search", "calculator", "calculator"]);
      expect(o.toolText["5"]).toBe(
        "Refused search by rule MaxCalls:search#0: call limit reached: search may be called at most 2 times per thread and was called 2 times. Allowed now: calculator.",
      );
      expect(o.lastText).toBe("done");
      noOrphans(o);
    },
  },
  {
    id: "L10", peer: "langchain", same: true,
    title: "exitBehavior error throws a typed error (ToolCallLimitExceededError → ToolCallLimitError)",
    scenario: {
      tools: [search],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 1, exitBehavior: "error" }],
      replies: [[{ name: "search", id: "1" }], [{ name: "search", id: "2" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search"]);
      expect(o.error).toBeInstanceOf(ToolCallLimitError);
      expect(o.error).toMatchObject({ code: "GG_ERR_TOOL_CALL_LIMIT", ruleId: "MaxTotalCalls:*#0", max: 1, current: 1, scope: "run" });
    },
  },
  {
    id: "L14", peer: "langchain", same: false,
    why: "LangChain's exitBehavior error raises in afterModel and leaves the turn's tool calls without ToolMessages (the next model call on that thread fails at the provider); ours answers every call of the turn in the checkpoint first, then throws the same typed error, and new input runs on",
    title: "exitBehavior error: the thread keeps no call without a ToolMessage, and the next input runs on",
    scenario: {
      tools: [search, calculator],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 1, exitBehavior: "error" }],
      replies: [[{ name: "search", id: "1" }], [{ name: "search", id: "2" }, { name: "calculator", id: "3" }], "after the error"],
      steps: [{ input: "go" }, { input: "again" }],
    },
    check: (o) => {
      expect(o.error).toBeInstanceOf(ToolCallLimitError);
      expect(ran(o)).toEqual(["search"]);
      expect(o.toolText["2"]).toBe(
        "Refused search by rule MaxTotalCalls:*#0: call limit reached: at most 1 call to all tools together per run, and 1 was made. Allowed now: no tool.",
      );
      expect(o.toolText["3"]).toBe(
        "Refused calculator by rule MaxTotalCalls:*#0: the run stopped with an error at this call limit (exitBehavior error) before calculator ran.",
      );
      expect(o.lastText).toBe("after the error");
      noOrphans(o);
      expect(o.messages.filter((m) => m.getType() === "tool")).toHaveLength(3);
    },
  },
  {
    id: "L11", peer: "langchain", same: false,
    why: "LangChain counts the whole turn first and blocks every matching call of a turn that goes over (limit 3, two turns of 2: only 2 run); ours checks call by call, so the 3rd runs and only the 4th is refused",
    title: "the turn that crosses the limit",
    scenario: {
      tools: [search],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 3 }],
      replies: [[{ name: "search", id: "1" }, { name: "search", id: "2" }], [{ name: "search", id: "3" }, { name: "search", id: "4" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["search", "search", "search"]);
      expect(o.toolText["4"]).toMatch(/call limit reached/);
      noOrphans(o);
    },
  },
  {
    id: "L12", peer: "langchain", same: false,
    why: "LangChain's exitBehavior end throws NotImplementedError when the exceeding turn calls several tools; ours refuses the exceeding call, runs the others and then ends",
    title: "exitBehavior end with several different tools in the exceeding turn",
    scenario: {
      tools: [search, calculator],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 1, exitBehavior: "end" }],
      replies: [[{ name: "search", id: "1" }, { name: "calculator", id: "2" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.error).toBeUndefined();
      expect(ran(o)).toEqual(["search"]);
      expect(o.lastText).toMatch(/^Stopped: call limit reached/);
      noOrphans(o);
    },
  },
  // ── LangChain humanInTheLoopMiddleware (whole-guard approval; per-tool config is t13a's) ──────
  {
    id: "H1", peer: "langchain", same: true,
    title: "approve: the call runs with its arguments",
    scenario: { tools: [{ name: "deploy", risk: "high" }], replies: [[{ name: "deploy", args: { env: "prod" }, id: "d" }], "deployed"], steps: [{ input: "go" }, { resume: { decisions: [{ type: "approve" }] } }] },
    check: (o) => {
      expect(o.executed).toEqual([{ tool: "deploy", args: { env: "prod" } }]);
      expect(o.lastText).toBe("deployed");
    },
  },
  {
    id: "H2", peer: "langchain", same: true,
    title: "edit: the edited call runs, not the original",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }],
      replies: [[{ name: "deploy", args: { env: "prod" }, id: "d" }], "deployed"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "edit", editedAction: { name: "deploy", args: { env: "staging" } } }] } }],
    },
    check: (o) => {
      expect(o.executed).toEqual([{ tool: "deploy", args: { env: "staging" } }]);
    },
  },
  {
    id: "H3", peer: "langchain", same: true,
    title: "reject: an error ToolMessage with the reviewer's message, and the model continues",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }],
      replies: [[{ name: "deploy", args: { env: "prod" }, id: "d" }], "understood"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "reject", message: "not on Fridays" }] } }],
    },
    check: (o) => {
      expect(ran(o)).toEqual([]);
      expect(o.toolText.d).toBe("Refused deploy by a human reviewer: not on Fridays. Do not retry this call unchanged.");
      expect(o.lastText).toBe("understood");
    },
  },
  {
    id: "H4", peer: "langchain", same: true,
    title: "several calls that need approval: one interrupt carries all of them",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }, { name: "drop", risk: "high" }],
      replies: [[{ name: "deploy", id: "a" }, { name: "drop", id: "b" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.interrupted).toBe(true);
      expect(ran(o)).toEqual([]);
    },
  },
  {
    id: "H5", peer: "langchain", same: true,
    title: "calls that need no approval run without an interrupt",
    scenario: { tools: [search], replies: [[{ name: "search", id: "s" }], "done"], steps: [{ input: "go" }] },
    check: (o) => {
      expect(o.interrupted).toBe(false);
      expect(ran(o)).toEqual(["search"]);
    },
  },
  {
    // LangChain's current hitl.test.ts ("should execute approved tools while returning rejection messages
    // for rejected tools", "should preserve order when some interrupt calls are rejected") expects this.
    // langchain 1.5.14, the version installed here, still drops the approved calls (docs/migration-langchain.md).
    id: "H6", peer: "langchain", same: true,
    title: "approve one call and reject the other in the same turn",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }, { name: "drop", risk: "high" }],
      replies: [[{ name: "deploy", id: "a" }, { name: "drop", id: "b" }], "done"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "approve" }, { type: "reject" }] } }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["deploy"]);
      expect(o.toolText.b).toMatch(/^Refused drop by a human reviewer/);
      noOrphans(o);
    },
  },
  // ── LangChain interruptOn per tool (t13a's feature, landed; scenarios from hitl.test.ts) ─────────
  {
    id: "H7", peer: "langchain", same: true,
    title: "interruptOn: { search: true } makes an otherwise allowed tool ask",
    scenario: { tools: [search], guard: { interruptOn: { search: true } }, replies: [[{ name: "search", id: "s" }], "done"], steps: [{ input: "go" }] },
    check: (o) => {
      expect(o.interrupted).toBe(true);
      expect(o.request?.actionRequests.map((a) => a.name)).toEqual(["search"]);
      expect(ran(o)).toEqual([]);
    },
  },
  {
    id: "H8", peer: "langchain", same: true,
    title: "a per-tool description string is what the reviewer reads",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }],
      guard: { interruptOn: { deploy: { description: "Deploy to production?" } } },
      replies: [[{ name: "deploy", id: "d" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => expect(o.request?.actionRequests[0]?.description).toBe("Deploy to production?"),
  },
  {
    id: "H9", peer: "langchain", same: false,
    why: "LangChain raises on a decision the tool does not allow and the run fails; ours refuses that resume and asks again, nothing recorded",
    title: "a decision outside the tool's allowedDecisions",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }],
      guard: { interruptOn: { deploy: { allowedDecisions: ["approve", "reject"] } } },
      replies: [[{ name: "deploy", args: { env: "prod" }, id: "d" }], "done"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "edit", editedAction: { name: "deploy", args: { env: "dev" } } }] } }],
    },
    check: (o) => {
      expect(ran(o)).toEqual([]);
      expect(o.error).toBeUndefined();
      expect(o.interrupted).toBe(true);
      expect(o.request?.reviewConfigs[0]?.allowedDecisions).toEqual(["approve", "reject"]);
    },
  },
  {
    id: "H10", peer: "langchain", same: false,
    why: "LangChain runs a tool left out of interruptOn (or set to false) without asking; ours never weakens the guard: a high-risk tool still asks",
    title: "interruptOn: { deploy: false } on a high-risk tool",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }],
      guard: { interruptOn: { deploy: false } },
      replies: [[{ name: "deploy", id: "d" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.interrupted).toBe(true);
      expect(ran(o)).toEqual([]);
    },
  },
  {
    id: "H11", peer: "langchain", same: true,
    title: "two tools interrupted at once: approve one, edit the other (edit is its only decision); both run, the edit with its arguments",
    scenario: {
      tools: [calculator, { name: "write_file" }],
      guard: { interruptOn: { calculator: true, write_file: { allowedDecisions: ["edit"], description: "File write operation requires approval" } } },
      replies: [[{ name: "calculator", args: { a: 42, b: 17 }, id: "c1" }, { name: "write_file", args: { filename: "greeting.txt" }, id: "c2" }], "done"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "approve" }, { type: "edit", editedAction: { name: "write_file", args: { filename: "safe.txt" } } }] } }],
    },
    check: (o) => {
      expect(o.executed).toEqual([
        { tool: "calculator", args: { a: 42, b: 17 } },
        { tool: "write_file", args: { filename: "safe.txt" } },
      ]);
      noOrphans(o);
    },
  },
  {
    id: "H12", peer: "langchain", same: true,
    title: "a description function sees the call, the state's messages and the runtime; its text is what the reviewer reads",
    scenario: {
      tools: [{ name: "write_file" }],
      guard: {
        interruptOn: {
          write_file: {
            description: (call, state, runtime) =>
              `Dynamic description for tool: ${call.name} (${call.id})\nFile: ${String(call.args.filename)}\nMessages: ${state.messages.length}, runtime: ${typeof runtime}`,
          },
        },
      },
      replies: [[{ name: "write_file", args: { filename: "dynamic.txt" }, id: "call_1" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) =>
      expect(o.request?.actionRequests[0]?.description).toBe("Dynamic description for tool: write_file (call_1)\nFile: dynamic.txt\nMessages: 2, runtime: object"),
  },
  {
    id: "H13", peer: "langchain", same: true,
    title: "argsSchema is passed on to the review config",
    scenario: {
      tools: [{ name: "write_file" }],
      guard: { interruptOn: { write_file: { allowedDecisions: ["edit"], argsSchema: { type: "object", properties: { filename: { type: "string" } } } } } },
      replies: [[{ name: "write_file", args: { filename: "t.txt" }, id: "w" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.request?.reviewConfigs[0]?.argsSchema).toEqual({ type: "object", properties: { filename: { type: "string" } } });
      expect(o.request?.reviewConfigs[0]?.allowedDecisions).toEqual(["edit"]);
    },
  },
  {
    id: "H14", peer: "langchain", same: true,
    title: "interleaved auto-approved and interrupted calls: only the interrupted ones are asked, in order; all run in the model's order",
    scenario: {
      tools: [calculator, { name: "write_file" }],
      guard: { interruptOn: { write_file: { allowedDecisions: ["approve"] }, calculator: false } },
      replies: [
        [
          { name: "calculator", args: { n: 1 }, id: "call_1" },
          { name: "write_file", args: { filename: "file1.txt" }, id: "call_2" },
          { name: "calculator", args: { n: 2 }, id: "call_3" },
          { name: "write_file", args: { filename: "file2.txt" }, id: "call_4" },
        ],
        "done",
      ],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "approve" }, { type: "approve" }] } }],
    },
    check: (o) => {
      expect(o.executed).toEqual([
        { tool: "calculator", args: { n: 1 } },
        { tool: "write_file", args: { filename: "file1.txt" } },
        { tool: "calculator", args: { n: 2 } },
        { tool: "write_file", args: { filename: "file2.txt" } },
      ]);
      const ai = o.messages.find((m) => m.getType() === "ai" && (m as { tool_calls?: unknown[] }).tool_calls?.length === 4) as { tool_calls: { id: string }[] } | undefined;
      expect(ai?.tool_calls.map((c) => c.id)).toEqual(["call_1", "call_2", "call_3", "call_4"]);
    },
  },
  {
    id: "H15", peer: "langchain", same: true,
    title: "a reject without a message: an error ToolMessage says a human rejected the call; the tool does not run",
    scenario: {
      tools: [{ name: "calculator", risk: "high" }],
      replies: [[{ name: "calculator", args: { a: 3, b: 4 }, id: "call_123" }], "ok"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "reject" }] } }],
    },
    check: (o) => {
      expect(ran(o)).toEqual([]);
      expect(o.toolText.call_123).toBe("Refused calculator by a human reviewer. Do not retry this call unchanged.");
      expect(o.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => m.status)).toEqual(["error"]);
    },
  },
  {
    id: "H16", peer: "langchain", same: false,
    why: "LangChain throws when fewer decisions than calls come back (\"Number of human decisions (1) does not match…\") and the run fails; ours takes it as a partial answer (OpenAI Agents SDK): the answered call goes ahead, the other is asked again, nothing runs unanswered",
    title: "one decision for two pending calls",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }, { name: "drop", risk: "high" }],
      replies: [[{ name: "deploy", id: "a" }, { name: "drop", id: "b" }], "done"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "approve" }] } }],
    },
    check: (o) => {
      expect(o.error).toBeUndefined();
      expect(ran(o)).toEqual(["deploy"]);
      expect(o.request?.actionRequests.map((a) => a.toolCallId)).toEqual(["b"]);
    },
  },
  // ── Letta ToolRulesSolver ──────────────────────────────────────────────────────────────────────
  {
    id: "E1", peer: "letta", same: true,
    title: "two init rules: the first call is one of them (InitialCall with alternatives)",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "prep_tool" }, { name: "other" }],
      rules: [{ type: "InitialCall", tool: "start_tool", alternatives: ["prep_tool"] }],
      replies: [[{ name: "other", id: "o" }], [{ name: "prep_tool", id: "p" }], [{ name: "other", id: "o2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText.o).toBe(
        "Refused other by rule InitialCall:start_tool#0: the first call must be one of start_tool, prep_tool. Allowed now: start_tool; prep_tool.",
      );
      expect(ran(o)).toEqual(["prep_tool", "other"]);
      // Two init rules: the first model call must call a tool, the model picks which (test_should_force_tool_call_init_rule_no_history).
      if (o.entry !== "node") anyToolAt(o, 0);
    },
  },
  {
    id: "E2", peer: "letta", same: true,
    title: "child rule: after start_tool only its children may be called",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }, { name: "helper_tool" }, { name: "final_tool" }],
      rules: [{ type: "ChildTools", tool: "start_tool", children: ["next_tool", "helper_tool"] }],
      replies: [[{ name: "start_tool", id: "s" }], [{ name: "final_tool", id: "f" }], [{ name: "helper_tool", id: "h" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText.f).toBe(
        "Refused final_tool by rule ChildTools:start_tool#0: after start_tool only next_tool, helper_tool may be called next. Allowed now: next_tool; helper_tool.",
      );
      expect(ran(o)).toEqual(["start_tool", "helper_tool"]);
    },
  },
  {
    id: "E3", peer: "letta", same: true, entries: modelEntries,
    title: "init → child → child → terminal chain; a single allowed next tool is forced (tool_choice)",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }, { name: "final_tool" }],
      rules: [
        { type: "InitialCall", tool: "start_tool" },
        { type: "ChildTools", tool: "start_tool", children: ["next_tool"] },
        { type: "ChildTools", tool: "next_tool", children: ["final_tool"] },
        { type: "Terminal", tool: "final_tool" },
      ],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "next_tool", id: "2" }], [{ name: "final_tool", id: "3" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["start_tool", "next_tool", "final_tool"]);
      forcedAt(o, 0, "start_tool");
      forcedAt(o, 1, "next_tool");
      forcedAt(o, 2, "final_tool");
    },
  },
  {
    id: "E4", peer: "letta", same: true,
    title: "conditional rule: output \"true\" allows only end_tool",
    scenario: {
      tools: [{ name: "start_tool", output: '{"message": "true"}' }, { name: "end_tool" }],
      rules: [{ type: "ConditionalNext", tool: "start_tool", outputMapping: { true: "end_tool", false: "start_tool" } }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "start_tool", id: "2" }], [{ name: "end_tool", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      if (o.entry === "node") {
        // GuardedToolNode does not call the model: the model's own choice is refused.
        expect(o.toolText["2"]).toBe(
          'Refused start_tool by rule ConditionalNext:start_tool#0: after start_tool (its output matched "true") only end_tool may be called next. Allowed now: end_tool.',
        );
        expect(ran(o)).toEqual(["start_tool", "end_tool"]);
      } else {
        // The single allowed next tool is forced; the model's own call comes after it.
        forcedAt(o, 1, "end_tool");
        expect(ran(o).slice(0, 2)).toEqual(["start_tool", "end_tool"]);
      }
    },
  },
  {
    id: "E5", peer: "letta", same: true,
    title: "conditional rule: output \"false\" allows only start_tool again",
    scenario: {
      tools: [{ name: "start_tool", output: '{"message": "false"}' }, { name: "end_tool" }],
      rules: [{ type: "ConditionalNext", tool: "start_tool", outputMapping: { true: "end_tool", false: "start_tool" } }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "end_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText["2"]).toMatch(/^Refused end_tool by rule ConditionalNext:start_tool#0: after start_tool \(its output matched "false"\) only start_tool/);
      // A rule leading back to its own tool is not forced (it would loop): the model's call is refused.
      expect(ran(o)).toEqual(["start_tool"]);
      if (o.entry !== "node") expect(o.toolChoices[1]).toBeUndefined();
    },
  },
  {
    id: "E6", peer: "letta", same: true,
    title: "conditional rule: no match and no default allows any tool; with requireOutputMapping none",
    scenario: {
      tools: [{ name: "start_tool", output: "maybe" }, { name: "end_tool" }],
      rules: [{ type: "ConditionalNext", tool: "start_tool", outputMapping: { yes: "end_tool" }, requireOutputMapping: true }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "end_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText["2"]).toBe(
        'Refused end_tool by rule ConditionalNext:start_tool#0: after start_tool (its output matched "maybe") only none may be called next. Allowed now: no tool.',
      );
    },
  },
  {
    id: "E6b", peer: "letta", same: true,
    title: "conditional rule: no match, no default child, no requireOutputMapping: any tool may come next, but some tool must be called",
    entries: modelEntries,
    scenario: {
      tools: [{ name: "start_tool", output: "maybe" }, { name: "end_tool" }, { name: "other_tool" }],
      rules: [{ type: "ConditionalNext", tool: "start_tool", outputMapping: { yes: "end_tool" } }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "other_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolChoices[0]).toBeUndefined();
      anyToolAt(o, 1);
      expect(o.toolChoices[2]).toBeUndefined();
      expect(ran(o)).toEqual(["start_tool", "other_tool"]);
      expect(o.lastText).toBe("done");
      noOrphans(o);
    },
  },
  {
    id: "E7", peer: "letta", same: true,
    title: "conditional rule: no match goes to default_child",
    scenario: {
      tools: [{ name: "start_tool", output: "other" }, { name: "end_tool" }, { name: "fallback" }],
      rules: [{ type: "ConditionalNext", tool: "start_tool", outputMapping: { yes: "end_tool" }, defaultChild: "fallback" }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "end_tool", id: "2" }], [{ name: "fallback", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      if (o.entry === "node") {
        expect(o.toolText["2"]).toMatch(/only fallback may be called next/);
        expect(ran(o)).toEqual(["start_tool", "fallback"]);
      } else {
        forcedAt(o, 1, "fallback");
        expect(ran(o).slice(0, 2)).toEqual(["start_tool", "fallback"]);
      }
    },
  },
  {
    id: "E8", peer: "letta", same: true,
    title: "max count per step: allowed exactly max times, then refused (MaxCalls per run)",
    scenario: {
      tools: [{ name: "start_tool" }],
      rules: [{ type: "MaxCalls", tool: "start_tool", max: 2 }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "start_tool", id: "2" }], [{ name: "start_tool", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["start_tool", "start_tool"]);
      expect(o.toolText["3"]).toMatch(/call limit reached/);
    },
  },
  {
    id: "E9", peer: "letta", same: true,
    title: "max count does not affect other tools",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }],
      rules: [{ type: "MaxCalls", tool: "start_tool", max: 1 }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "next_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => expect(ran(o)).toEqual(["start_tool", "next_tool"]),
  },
  {
    id: "E10", peer: "letta", same: true,
    title: "max count resets when the history is cleared (a new run)",
    scenario: {
      tools: [{ name: "start_tool" }],
      rules: [{ type: "MaxCalls", tool: "start_tool", max: 1 }],
      replies: [[{ name: "start_tool", id: "1" }], "first", [{ name: "start_tool", id: "2" }], "second"],
      steps: [{ input: "one" }, { input: "two" }],
    },
    check: (o) => expect(ran(o)).toEqual(["start_tool", "start_tool"]),
  },
  {
    id: "E11", peer: "letta", same: true, entries: modelEntries,
    title: "required before exit: the model is reminded, then the tool is forced",
    scenario: {
      tools: [{ name: "save_tool" }],
      rules: [{ type: "RequiredForExit", tool: "save_tool" }],
      replies: ["bye", "bye again", [{ name: "save_tool", id: "s" }], "saved"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["save_tool"]);
      expect(o.lastText).toBe("saved");
    },
  },
  {
    id: "E12", peer: "letta", same: false,
    why: "Letta registers a failed call in the history, so a failed required tool counts as done; ours requires it to succeed",
    title: "a failed required-before-exit call does not count as done",
    entries: modelEntries,
    scenario: {
      tools: [{ name: "save_tool", fails: true }],
      rules: [{ type: "RequiredForExit", tool: "save_tool" }],
      replies: [[{ name: "save_tool", id: "s" }], "bye", "bye", "bye", "bye"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      // Still pending after the failure: reminded, then forced once more (and failed again).
      expect(ran(o)).toEqual(["save_tool", "save_tool"]);
      expect(o.messages.some((m) => String(m.content).includes("Before you finish, you must call: save_tool"))).toBe(true);
    },
  },
  {
    // Letta's test_merge_and_validate_prefilled_args_overrides_llm_values: {a: 1, b: "hello"} + {a: 42} → {a: 42, b: "hello"}.
    id: "E13", peer: "letta", same: true,
    title: "init rule args override the model's values for their keys; the model's other keys stay",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "other" }],
      rules: [{ type: "InitialCall", tool: "start_tool", args: { mode: "fast" } }],
      replies: [[{ name: "start_tool", args: { mode: "slow", note: "x" }, id: "1" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => expect(o.executed).toEqual([{ tool: "start_tool", args: { mode: "fast", note: "x" } }]),
  },
  {
    id: "E14", peer: "letta", same: true, entries: modelEntries,
    title: "child args: the forced child gets the rule's arguments",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }],
      rules: [{ type: "ChildTools", tool: "start_tool", children: ["next_tool"], childArgs: { next_tool: { depth: 2 } } }],
      replies: [[{ name: "start_tool", id: "1" }], "ignores tool_choice", "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.executed).toEqual([{ tool: "start_tool", args: {} }, { tool: "next_tool", args: { depth: 2 } }]);
    },
  },
  {
    id: "E20", peer: "letta", same: true,
    title: "two init rules on one tool: their args merge, the later rule wins a shared key (test_multiple_rules_args_last_write_wins)",
    scenario: {
      tools: [{ name: "alpha" }, { name: "beta" }],
      rules: [
        { type: "InitialCall", tool: "alpha", args: { x: 1, y: "first" } },
        { type: "InitialCall", tool: "alpha", args: { y: "second", z: true } },
      ],
      replies: [[{ name: "alpha", args: { y: "model", w: 0 }, id: "1" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => expect(o.executed).toEqual([{ tool: "alpha", args: { x: 1, y: "second", z: true, w: 0 } }]),
  },
  {
    id: "E21", peer: "letta", same: true, entries: modelEntries,
    title: "several constraining rules: whichever is active forces its single next tool; none active, nothing forced (test_should_force_tool_call_multiple_constrained_rules_one_active)",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }, { name: "final_tool" }, { name: "prep_tool" }, { name: "helper_tool" }],
      rules: [
        { type: "ChildTools", tool: "start_tool", children: ["next_tool"] },
        { type: "ChildTools", tool: "next_tool", children: ["final_tool"] },
        { type: "ParentTools", tool: "prep_tool", children: ["helper_tool"] },
      ],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "next_tool", id: "2" }], [{ name: "final_tool", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolChoices[0]).toBeUndefined();
      forcedAt(o, 1, "next_tool");
      forcedAt(o, 2, "final_tool");
      expect(o.toolChoices[3]).toBeUndefined();
      expect(ran(o)).toEqual(["start_tool", "next_tool", "final_tool"]);
    },
  },
  {
    id: "E22", peer: "letta", same: true, entries: modelEntries,
    title: "a child rule leaving two tools makes the next model call call one of them (test_should_force_tool_call_child_rule_active)",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }, { name: "helper_tool" }, { name: "other" }],
      rules: [{ type: "ChildTools", tool: "start_tool", children: ["next_tool", "helper_tool"] }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "helper_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolChoices[0]).toBeUndefined();
      anyToolAt(o, 1);
      // Not after the child ran (the rule no longer constrains): test_should_force_tool_call_child_rule_inactive.
      expect(o.toolChoices[2]).toBeUndefined();
      expect(ran(o)).toEqual(["start_tool", "helper_tool"]);
    },
  },
  {
    id: "E23", peer: "letta", same: true, entries: modelEntries,
    title: "a parent rule with two children, right after the parent: one of them must be called (test_should_force_tool_call_parent_rule_active)",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }, { name: "helper_tool" }, { name: "other" }],
      rules: [{ type: "ParentTools", tool: "start_tool", children: ["next_tool", "helper_tool"] }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "next_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolChoices[0]).toBeUndefined();
      anyToolAt(o, 1);
      expect(o.toolChoices[2]).toBeUndefined();
      expect(ran(o)).toEqual(["start_tool", "next_tool"]);
    },
  },
  // Letta's ParentToolRule (`parent_last_tool`): children only right after the parent.
  {
    id: "E16", peer: "letta", same: true,
    title: "parent rule: a child is refused until its parent was the last call, and again after another call",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }, { name: "helper_tool" }],
      rules: [{ type: "ParentTools", tool: "start_tool", children: ["next_tool"] }],
      replies: [[{ name: "next_tool", id: "1" }], [{ name: "start_tool", id: "2" }], [{ name: "next_tool", id: "3" }], [{ name: "helper_tool", id: "4" }], [{ name: "next_tool", id: "5" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText["1"]).toBe(
        "Refused next_tool by rule ParentTools:start_tool#0: next_tool may be called only right after start_tool, and start_tool was not the last call. Allowed now: start_tool; helper_tool.",
      );
      expect(o.toolText["5"]).toMatch(/^Refused next_tool by rule ParentTools:start_tool#0: next_tool may be called only right after start_tool/);
      expect(ran(o)).toEqual(["start_tool", "next_tool", "helper_tool"]);
    },
  },
  {
    id: "E17", peer: "letta", same: true,
    title: "parent rule: right after the parent only its children may be called",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }, { name: "helper_tool" }, { name: "final_tool" }],
      rules: [{ type: "ParentTools", tool: "start_tool", children: ["next_tool", "helper_tool"] }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "final_tool", id: "2" }], [{ name: "helper_tool", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText["2"]).toBe(
        "Refused final_tool by rule ParentTools:start_tool#0: after start_tool only next_tool, helper_tool may be called next. Allowed now: next_tool; helper_tool.",
      );
      expect(ran(o)).toEqual(["start_tool", "helper_tool"]);
    },
  },
  {
    id: "E18", peer: "letta", same: true, entries: modelEntries,
    title: "parent rule with one child: after the parent the child is forced (should_force_tool_call)",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }],
      rules: [{ type: "ParentTools", tool: "start_tool", children: ["next_tool"] }],
      replies: [[{ name: "start_tool", id: "1" }], [{ name: "next_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolChoices[0]).toBeUndefined();
      forcedAt(o, 1, "next_tool");
      expect(ran(o)).toEqual(["start_tool", "next_tool"]);
    },
  },
  {
    id: "E19", peer: "letta", same: true,
    title: "parent and child in one model turn: the child starts after the parent has run",
    scenario: {
      tools: [{ name: "start_tool" }, { name: "next_tool" }],
      rules: [{ type: "ParentTools", tool: "start_tool", children: ["next_tool"] }],
      replies: [[{ name: "start_tool", id: "1" }, { name: "next_tool", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(ran(o)).toEqual(["start_tool", "next_tool"]);
      noOrphans(o);
    },
  },
];

/** Rule files the peers refuse are refused too (Letta's test_invalid_conditional_tool_rule). */
const VALIDATION = [
  {
    id: "E15", peer: "letta" as const, same: true,
    title: "a conditional rule without any output mapping is refused",
    run: () => expect(() => parseToolRules([{ type: "ConditionalNext", tool: "start_tool", outputMapping: {}, defaultChild: "end_tool" }])).toThrow(/outputMapping" must map at least one output to a tool/),
  },
  {
    id: "L13", peer: "langchain" as const, same: true,
    title: "a limit without max is refused, naming the field",
    run: () => expect(() => parseToolRules([{ type: "MaxTotalCalls", tool: "*" }])).toThrow('field "max" is required'),
  },
];

describe.each(SCENARIOS)("$id ($peer): $title", (s) => {
  const entries = s.entries ?? ENTRIES;
  it.each(entries.map((e) => [e]))("%s", async (entry) => {
    const outcome = await play(entry as Entry, s.scenario);
    s.check(outcome);
  });
});

describe.each(VALIDATION)("$id ($peer): $title", (s) => {
  it("is refused", () => s.run());
});

describe("peer scenario counts (for the migration guides)", () => {
  it("counts what behaves the same", () => {
    const all = [...SCENARIOS, ...VALIDATION];
    const count = (peer: string) => {
      const mine = all.filter((s) => s.peer === peer);
      return { same: mine.filter((s) => s.same).length, total: mine.length };
    };
    expect(count("langchain")).toEqual({ same: 28, total: 35 });
    expect(count("letta")).toEqual({ same: 23, total: 24 });
    for (const s of all) if (!s.same) expect((s as PeerScenario).why, s.id).toBeTruthy();
  });
});
