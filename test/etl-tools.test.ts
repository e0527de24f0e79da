import { describe, expect, it } from "vitest";
import { createEtlTools, createWarehouse, etlToolRules, type FakeWarehouse } from "../graphs/tools/etl.js";

function toolsOn(warehouse: FakeWarehouse) {
  const byName = new Map(createEtlTools(warehouse).map((tool) => [tool.name, tool]));
  return (name: string, args: Record<string, unknown>, callId = `${name}-call`): Promise<unknown> => {
    const tool = byName.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.invoke(args, { configurable: { thread_id: "etl-thread", tool_call_id: callId } });
  };
}

describe("ETL tools (seed 001, Example 1)", () => {
  it("runs connect → extract → validate → load → close on the fake warehouse", async () => {
    const warehouse = createWarehouse();
    const run = toolsOn(warehouse);
    expect(await run("connect_database", {})).toBe("connected to sales as conn-1");
    expect(await run("extract_data", { table: "orders" })).toBe("extracted 5 rows from orders");
    expect(await run("validate_data", { table: "orders" })).toBe("3 valid, 2 rejected rows in orders");
    expect(await run("load_warehouse", { table: "orders", target: "fact_orders" })).toBe("loaded 3 rows into warehouse table fact_orders");
    expect(warehouse.warehouse.fact_orders?.map((row) => row.id)).toEqual([1, 2, 5]);
    expect(await run("close_database", {})).toBe("closed conn-1");
    expect(warehouse.connection).toBeUndefined();
    expect(await run("close_database", {})).toBe("no connection was open");
  });

  it("fails each step whose prerequisite has not run, naming it", async () => {
    const run = toolsOn(createWarehouse());
    await expect(run("extract_data", { table: "orders" })).rejects.toThrow(/call connect_database first/);
    await run("connect_database", { database: "sales" });
    await expect(run("validate_data", { table: "orders" })).rejects.toThrow(/call extract_data first/);
    await run("extract_data", { table: "orders" });
    await expect(run("load_warehouse", { table: "orders" })).rejects.toThrow(/call validate_data first/);
    await expect(run("extract_data", { table: "invoices" })).rejects.toThrow(/table "invoices" does not exist.*orders, customers/);
    await expect(run("connect_database", { database: "hr" })).rejects.toThrow(/database "hr" does not exist/);
  });

  it("does not load twice when the same call re-runs (same idempotency key)", async () => {
    const warehouse = createWarehouse();
    const run = toolsOn(warehouse);
    await run("connect_database", {});
    await run("extract_data", { table: "customers", limit: 2 });
    await run("validate_data", { table: "customers" });
    await run("load_warehouse", { table: "customers" }, "load-1");
    expect(await run("load_warehouse", { table: "customers" }, "load-1")).toBe("already loaded 2 rows into customers");
    expect(warehouse.warehouse.customers).toHaveLength(2);
    await run("load_warehouse", { table: "customers" }, "load-2");
    expect(warehouse.warehouse.customers).toHaveLength(4);
  });

  it("etlToolRules are the seed's rules with its priorities", () => {
    const rules = etlToolRules();
    expect(rules.map((rule) => [rule.type, rule.tool, rule.conditions ?? [], rule.priority])).toEqual([
      ["InitialCall", "connect_database", [], 10],
      ["MustFollow", "extract_data", ["connect_database"], 8],
      ["MustFollow", "validate_data", ["extract_data"], 7],
      ["Terminal", "load_warehouse", [], 9],
      ["RequiredForExit", "close_database", [], 10],
    ]);
    const toolNames = new Set(createEtlTools().map((tool) => tool.name));
    for (const rule of rules) for (const name of [rule.tool, ...(rule.conditions ?? [])]) expect(toolNames.has(name)).toBe(true);
  });
});
