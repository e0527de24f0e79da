import { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../src/policy/file.js";
import { parseToolRules } from "../src/rules/schema.js";
import { ENTRIES, play } from "./helpers/peer-harness.js";
import type { Entry, Outcome, Scenario } from "./helpers/peer-harness.js";

/**
 * Issue 14, "Text the model reads": what the model and the reviewer read, observed through each
 * entry point, exact. Every refusal says "Refused" once and "Allowed now" at most once (no refusal
 * wrapped in another), a limit refusal says "limit", an approval description names the rule and the
 * risk once and never repeats a sentence, and a rule without `max` names the field.
 */

const toolTexts = (o: Outcome) => o.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => String(m.content));
const count = (text: string, part: string) => text.split(part).length - 1;

/** The invariants every refusal and description must keep, whatever produced it. */
function expectSingleSentences(o: Outcome): void {
  for (const text of toolTexts(o).filter((t) => t.startsWith("Refused"))) {
    expect(count(text, "Refused"), `${o.entry}: ${text}`).toBe(1);
    expect(count(text, "Allowed now"), `${o.entry}: ${text}`).toBeLessThanOrEqual(1);
    expect(text, o.entry).not.toMatch(/\.\.|rule rule:/);
  }
  for (const d of o.request?.actionRequests.map((a) => a.description) ?? []) {
    expect(count(d, "needs approval"), `${o.entry}: ${d}`).toBe(1);
    expect(d.match(/\b(low|medium|high|always-deny) risk\b/g)?.length ?? 0, `${o.entry}: ${d}`).toBeLessThanOrEqual(1);
    expect(d, o.entry).not.toMatch(/\.\.|rule rule:/);
    const sentences = d.split(/(?<=\.) /);
    expect(new Set(sentences).size, `${o.entry}: ${d}`).toBe(sentences.length);
  }
}

interface TextScenario {
  id: string;
  title: string;
  entries?: readonly Entry[];
  scenario: Scenario;
  check: (o: Outcome) => void;
}

const SCENARIOS: TextScenario[] = [
  {
    id: "T1",
    title: "a refusal at call start (a same-turn prerequisite failed) is one sentence with the rule's reason",
    scenario: {
      tools: [{ name: "load", fails: true }, { name: "validate" }],
      rules: [{ type: "MustFollow", tool: "validate", conditions: ["load"] }],
      replies: [[{ name: "load", id: "1" }, { name: "validate", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) =>
      expect(o.toolText["2"]).toBe(
        "Refused validate at the moment it was to start (rule MustFollow:validate#0): validate may only run after load succeeded, and load has not. It did not run.",
      ),
  },
  {
    id: "T2",
    title: "a disabled tool's refusal says limit, once",
    scenario: {
      tools: [{ name: "api" }, { name: "search" }],
      rules: [{ type: "MaxCalls", tool: "api", max: 0 }],
      replies: [[{ name: "api", id: "1" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText["1"]).toBe("Refused api by rule MaxCalls:api#0: call limit reached: api is disabled (limit 0 per run). Allowed now: search.");
      expect(count(o.toolText["1"] ?? "", "limit")).toBe(2);
    },
  },
  {
    id: "T3",
    title: "a total limit's refusal says limit and counts in the singular",
    scenario: {
      tools: [{ name: "api" }],
      rules: [{ type: "MaxTotalCalls", tool: "*", max: 1 }],
      replies: [[{ name: "api", id: "1" }], [{ name: "api", id: "2" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) =>
      expect(o.toolText["2"]).toBe(
        "Refused api by rule MaxTotalCalls:*#0: call limit reached: at most 1 call to all tools together per run, and 1 was made. Allowed now: no tool.",
      ),
  },
  {
    id: "T4",
    title: "exitBehavior end: the refusal and the closing message each say limit once",
    scenario: {
      tools: [{ name: "api" }],
      rules: [{ type: "MaxCalls", tool: "api", max: 1, exitBehavior: "end" }],
      replies: [[{ name: "api", id: "1" }], [{ name: "api", id: "2" }], "not reached"],
      steps: [{ input: "go" }],
    },
    check: (o) => {
      expect(o.toolText["2"]).toBe(
        "Refused api by rule MaxCalls:api#0: call limit reached: api may be called at most 1 time per run and was called 1 time. Allowed now: no tool.",
      );
      expect(o.lastText).toBe(
        "Stopped: call limit reached: api may be called at most 1 time per run and was called 1 time (rule MaxCalls:api#0), so this run ends here.",
      );
    },
  },
  {
    id: "T5",
    title: "approval descriptions: the risk default, interruptOn and a rule that asks, each said once",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }, { name: "search" }, { name: "api" }],
      guard: { interruptOn: { search: true } },
      rules: [{ type: "MaxCalls", tool: "api", max: 0, onViolation: "ask" }],
      replies: [[{ name: "deploy", id: "1" }, { name: "search", id: "2" }, { name: "api", id: "3" }], "done"],
      steps: [{ input: "go" }],
    },
    check: (o) =>
      expect(o.request?.actionRequests.map((a) => a.description)).toEqual([
        "deploy needs approval by rule risk:high: no permission rule matched deploy; high risk tools are asked about by default.",
        "search needs approval by rule interruptOn:search: every call of this tool is put to a reviewer (low risk).",
        "api needs approval by rule MaxCalls:api#0: call limit reached: api is disabled (limit 0 per run) (low risk).",
      ]),
  },
  {
    id: "T6",
    title: "a description asked again after a refused resume carries the error once, then the description",
    scenario: {
      tools: [{ name: "deploy", risk: "high" }],
      replies: [[{ name: "deploy", id: "1" }], "done"],
      steps: [{ input: "go" }, { resume: { decisions: [{ type: "approve" }, { type: "approve" }] } }],
    },
    check: (o) =>
      expect(o.request?.actionRequests[0]?.description).toBe(
        "Your last answer was refused and nothing was done: invalid approval resume: expected at most 1 decision(s), one per pending call in order [1 (deploy)], got 2. Answer again. deploy needs approval by rule risk:high: no permission rule matched deploy; high risk tools are asked about by default.",
      ),
  },
];

describe.each(SCENARIOS)("$id: $title", (s) => {
  it.each((s.entries ?? ENTRIES).map((e) => [e]))("%s", async (entry) => {
    const o = await play(entry as Entry, s.scenario);
    s.check(o);
    expectSingleSentences(o);
  });
});

describe("a limit without max names the field, in every form", () => {
  const message = (run: () => unknown) => {
    try {
      run();
      return "accepted";
    } catch (error) {
      return (error as Error).message;
    }
  };
  it.each([["MaxCalls", "api"], ["MaxTotalCalls", "*"]])("%s", (type, tool) => {
    expect(message(() => parseToolRules([{ type, tool }]))).toBe(`invalid tool rules: rule 0 (${type} on ${tool}): field "max" is required (a whole number, 0 or more)`);
    expect(message(() => parsePolicy(`version: 1\ntool_rules:\n  - { tool: "${tool}", type: ${type} }\n`, "yaml", "p.yaml"))).toBe(`p.yaml: tool_rules[0].max: is required for ${type}`);
  });
  it("the seed's TOML form says which value it needs", () => {
    expect(message(() => parsePolicy("version = 1\n[[tool_rules]]\ntool_name = 'api'\nrule_type = 'MaxCalls'\n", "toml", "p.toml"))).toBe(
      "p.toml: tool_rules[0].rule_type: MaxCalls needs a value: rule_type = { MaxCalls = 3 }",
    );
  });
});
