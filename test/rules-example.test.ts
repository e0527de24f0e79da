import { describe, expect, it } from "vitest";
import { runEtlExample } from "../examples/rules-etl.js";
import { benchRules } from "../bench/rules.bench.js";

describe("examples/rules-etl.ts", () => {
  it("runs the README example end to end", () => {
    const log = runEtlExample();
    expect(log[0]).toBe("shown: connect_database");
    expect(log[1]).toContain("Refused load_warehouse by rule InitialCall:connect_database#0: connect_database must be called first, before any other tool.");
    expect(log[2]).toBe("terminate: true (Terminal:load_warehouse#4); still required: close_database");
    expect(log[3]).toContain("only pending exit tools may run: close_database");
    expect(log[4]).toMatch(/^## Tool usage rules\n\n- `file`: Paths are relative/);
    expect(log[4]).toContain("- `file` is limited to these operations: read, append");
    expect(log[5]).toMatch(/^flowchart TD\n/);
  });
});

describe("bench/rules.bench.ts", () => {
  it("measures checkCall over 1,000 rules (quick mode; speed is reported, not asserted)", async () => {
    const result = await benchRules({ quick: true });
    expect(result.rules).toBe(1000);
    expect(result.checksPerSecond).toBeGreaterThan(0);
    expect(result.name).toMatch(/^rules\.checkCall \(\d+% refused\)$/);
  });
});
