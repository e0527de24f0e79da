import { describe, expect, it } from "vitest";
import { quickstart } from "../examples/guard-quickstart.js";

describe("README quickstart", () => {
  it("allows the read, denies production, asks for staging and runs it once approved", async () => {
    const result = await quickstart();
    expect(result.pending).toEqual([expect.stringMatching(/^call_staging: kubectl needs approval by rule risk:high: /)]);
    expect(result.answer).toMatch(/Deleted web/);
    expect(result.decisions).toEqual([
      "call_get allow (risk:low)",
      "call_prod deny (permission:prod)",
      "call_staging ask (risk:high)",
      "call_staging approve (risk:high)",
    ]);
    expect(result.deployments).toEqual({ db: 1 });
  });
});
