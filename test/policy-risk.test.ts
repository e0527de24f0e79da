// Issue 12 item 8: policy check / guardFromPolicy with the tools known, risk per operation, and no
// silent lowering of a tool's own risk.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { reviewCall } from "../src/guard/review.js";
import { parsePolicy } from "../src/policy/index.js";
import { defineTool } from "../src/tools/define-tool.js";

const kubectl = defineTool({
  name: "kubectl",
  description: "kubectl",
  schema: z.object({ operation: z.enum(["get", "delete"]), name: z.string() }),
  risk: "medium",
  operationRisk: { delete: "high" },
  execute: () => "ok",
});

async function review(policyText: string, operation: "get" | "delete") {
  const pg = await guardFromPolicy(parsePolicy(policyText, "yaml", "p.yaml"), { tools: [kubectl] });
  try {
    const reviewed = await reviewCall(pg.guard, pg.guard.initialRuleState(), { id: "c", name: "kubectl", args: { operation, name: "x" } });
    return reviewed;
  } finally {
    await pg.close();
  }
}

describe("risk from the policy and from the tool", () => {
  it("tools.X.risk: medium does not lower the tool's own delete: high (the delete still asks)", async () => {
    const reviewed = await review("tools: { kubectl: { risk: medium } }\n", "delete");
    expect(reviewed).toMatchObject({ outcome: "ask", risk: "high", ruleId: "risk:high" });
    expect((await review("tools: { kubectl: { risk: medium } }\n", "get")).outcome).toBe("run");
  });

  it("a policy may set risk per operation, raising it", async () => {
    const reviewed = await review("tools: { kubectl: { risk: medium, operations: { get: high } } }\n", "get");
    expect(reviewed).toMatchObject({ outcome: "ask", risk: "high" });
  });

  it("guardFromPolicy refuses a policy that lowers a tool's risk without lowerRisk, and takes it with lowerRisk", async () => {
    await expect(review("tools: { kubectl: { operations: { delete: low } } }\n", "delete")).rejects.toThrow(
      "p.yaml: tools.kubectl.operations.delete: low is lower than the high risk kubectl declares for delete; write lowerRisk: true to mean it",
    );
    const lowered = await review("tools: { kubectl: { operations: { delete: low }, lowerRisk: true } }\n", "delete");
    expect(lowered).toMatchObject({ outcome: "run", risk: "low" });
  });

  it("guardFromPolicy refuses a permission rule naming a tool that does not exist (a typo never fires)", async () => {
    await expect(review("permissions:\n  - { tool: kubectl_delet, mode: deny }\n", "get")).rejects.toThrow(/permissions\[0\] names tool "kubectl_delet", which matches no known tool/);
    // A compact rule reading an argument the tool does not have would never fire either: an error with the tools known.
    await expect(review("permissions:\n  - { rule: \"kubectl(namespace:production)\", mode: deny }\n", "get")).rejects.toThrow(
      /permissions\[0\]: kubectl\(namespace:production\) reads the argument "namespace", but tool kubectl has no argument "namespace" \(its arguments: operation, name\); the rule would never fire/,
    );
  });

  it("a call no rule matches, on a tool that declares no risk, asks", async () => {
    const plain = defineTool({ name: "plain", description: "p", schema: z.object({}), execute: () => "ok" });
    const pg = await guardFromPolicy(parsePolicy("version: 1\n", "yaml", "p.yaml"), { tools: [plain] });
    const reviewed = await reviewCall(pg.guard, pg.guard.initialRuleState(), { id: "c", name: "plain", args: {} });
    expect(reviewed).toMatchObject({ outcome: "ask", ruleId: "default:ask" });
    const pg2 = await guardFromPolicy(parsePolicy("defaultRisk: low\n", "yaml", "p.yaml"), { tools: [plain] });
    expect((await reviewCall(pg2.guard, pg2.guard.initialRuleState(), { id: "c", name: "plain", args: {} })).outcome).toBe("run");
    await pg.close();
    await pg2.close();
  });
});
