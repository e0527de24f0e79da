import { describe, expect, it } from "vitest";
import { resumeFromAnswers, type Answers } from "../src/cli/decisions.js";
import type { ApprovalRequest } from "../src/guard/approval/payload.js";

/** The CLI's decisions before anything is sent: --sticky, --sticky-args and --leave-rest (no process, no graph). */
const action = (id: string, name: string) => ({ name, args: { namespace: "staging" }, description: `${name} needs approval`, toolCallId: id, risk: "high", ruleId: "risk:high", reason: "high risk" });
const actions = [action("c1", "kubectl_delete"), action("c2", "kubectl_drain")];
const configs = actions.map((a) => ({ actionName: a.name, action_name: a.name, allowedDecisions: ["approve" as const, "edit" as const, "reject" as const] }));
const request: ApprovalRequest = {
  type: "guarded-graph/approval",
  actionRequests: actions,
  reviewConfigs: configs,
  action_requests: actions.map((a) => ({ name: a.name, args: a.args, description: a.description, tool_call_id: a.toolCallId, risk: a.risk, rule_id: a.ruleId, reason: a.reason })),
  review_configs: configs.map((c) => ({ action_name: c.actionName, allowed_decisions: [...c.allowedDecisions] })),
};
const answers = (extra: Partial<Answers>): Answers => ({ approve: [], approveAll: false, reject: [], edits: [], rejectRest: false, ...extra });

describe("CLI decisions", () => {
  it("--sticky applies to the command's own kind of decision only, with its argument pattern", () => {
    const resume = resumeFromAnswers(
      request,
      answers({ approve: ["c1"], reject: ["c2"], message: "no", sticky: { on: "approve", request: { scope: "thread", args: { namespace: "staging" } } } }),
      "alice",
    );
    expect(resume.decisions).toEqual({
      c1: { type: "approve", sticky: { scope: "thread", args: { namespace: "staging" } } },
      c2: { type: "reject", message: "no" },
    });
    const rejects = resumeFromAnswers(request, answers({ reject: ["c1", "c2"], message: "no", sticky: { on: "reject", request: { scope: "run" } } }), "bob");
    expect(rejects.decisions).toEqual({
      c1: { type: "reject", message: "no", sticky: { scope: "run" } },
      c2: { type: "reject", message: "no", sticky: { scope: "run" } },
    });
  });

  it("--leave-rest sends only the named decisions; without it the same answer is refused and nothing is sent", () => {
    expect(resumeFromAnswers(request, answers({ approve: ["c2"], leaveRest: true }), "alice").decisions).toEqual({ c2: { type: "approve" } });
    expect(() => resumeFromAnswers(request, answers({ approve: ["c2"] }), "alice")).toThrow(
      "refused: every pending call needs a decision and c1 (kubectl_delete) has none. Answer it in the same command (--approve ID, --reject ID), or pass --reject-rest to reject the rest (--leave-rest: answer them later). Nothing was sent.",
    );
    // A partial answer still names only pending calls.
    expect(() => resumeFromAnswers(request, answers({ approve: ["c9"], leaveRest: true }), "alice")).toThrow(/no pending call "c9"/);
  });
});
