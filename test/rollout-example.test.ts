import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rolloutExample } from "../examples/policy-rollout.js";

describe("examples/policy-rollout.ts", () => {
  it("the shadow rule would deny the production deploy; replaying the candidate shows it and the deploy limit", async () => {
    const result = await rolloutExample(mkdtempSync(join(tmpdir(), "gg-rollout-")));
    expect(result.shadow).toEqual({ changed: 1, byRule: { "permission:prod-deploy": 1 } });
    // Under the candidate the production deploy does not run, so the limit of one deploy per run refuses the second staging deploy, not the first.
    expect(result.replay).toEqual({ changed: 2, byChange: { "allow → deny": 2 }, byRule: { "permission:prod-deploy": 1, "rule:MaxCalls:kubectl_deploy#0": 1 } });
  });
});
