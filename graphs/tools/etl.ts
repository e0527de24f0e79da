import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";
import type { GuardedTool } from "../../src/tools/types.js";
import type { ToolRule } from "../../src/rules/types.js";

export type Row = Record<string, string | number | null>;

/** In-memory source database and warehouse for the ETL demo. */
export interface FakeWarehouse {
  /** Source tables, by database then table. */
  sources: Record<string, Record<string, Row[]>>;
  /** Loaded warehouse tables. */
  warehouse: Record<string, Row[]>;
  /** The open connection, if any. */
  connection: { database: string; id: string } | undefined;
  /** Extracted (and later validated) rows per table, waiting for load. */
  staged: Record<string, { rows: Row[]; valid: Row[] | undefined }>;
  /** Idempotency keys of loads already applied, so a re-run never loads twice. */
  appliedLoads: Set<string>;
  connections: number;
}

/** A fresh in-memory warehouse with sample source tables, for `createEtlTools` and the ETL demo graph. */
export function createWarehouse(): FakeWarehouse {
  return {
    sources: {
      sales: {
        orders: [
          { id: 1, customer: "ada", amount: 120 },
          { id: 2, customer: "grace", amount: 75.5 },
          { id: 3, customer: null, amount: 40 },
          { id: 4, customer: "linus", amount: -10 },
          { id: 5, customer: "barbara", amount: 300 },
        ],
        customers: [
          { id: "ada", email: "ada@example.com" },
          { id: "grace", email: "grace@example.com" },
          { id: "linus", email: null },
        ],
      },
    },
    warehouse: {},
    connection: undefined,
    staged: {},
    appliedLoads: new Set(),
    connections: 0,
  };
}

/** A row is valid when it has no null field and no negative amount. */
function isValid(row: Row): boolean {
  return Object.values(row).every((value) => value !== null) && !(typeof row.amount === "number" && row.amount < 0);
}

function requireConnection(w: FakeWarehouse) {
  if (!w.connection) throw new Error("no open database connection: call connect_database first");
  return w.connection;
}

function sourceTable(w: FakeWarehouse, table: string): Row[] {
  const { database } = requireConnection(w);
  const rows = w.sources[database]?.[table];
  if (!rows) throw new Error(`table "${table}" does not exist in database "${database}" (tables: ${Object.keys(w.sources[database] ?? {}).join(", ")})`);
  return rows;
}

/** The five ETL tools (connect, extract, validate, load, close), acting on `warehouse`. */
export function createEtlTools(warehouse: FakeWarehouse = createWarehouse()): GuardedTool[] {
  const w = warehouse;
  const table = z.string().min(1).describe("Source table name, e.g. orders");
  const tools = [
    defineTool({
      name: "connect_database",
      description: "Open a connection to the source database.",
      schema: z.object({ database: z.string().min(1).default("sales").describe("Database name (default sales)") }),
      risk: "low",
      execute: (input) => {
        if (!w.sources[input.database]) throw new Error(`database "${input.database}" does not exist (databases: ${Object.keys(w.sources).join(", ")})`);
        w.connections += 1;
        w.connection = { database: input.database, id: `conn-${w.connections}` };
        return `connected to ${input.database} as ${w.connection.id}`;
      },
    }),
    defineTool({
      name: "extract_data",
      description: "Extract the rows of a source table into the staging area.",
      schema: z.object({ table, limit: z.number().int().positive().optional().describe("Most rows to extract") }),
      risk: "low",
      idempotent: true,
      execute: (input) => {
        const rows = sourceTable(w, input.table).slice(0, input.limit);
        w.staged[input.table] = { rows: structuredClone(rows), valid: undefined };
        return `extracted ${rows.length} rows from ${input.table}`;
      },
    }),
    defineTool({
      name: "validate_data",
      description: "Validate the staged rows of a table (no nulls, no negative amounts).",
      schema: z.object({ table }),
      risk: "low",
      idempotent: true,
      execute: (input) => {
        const staged = w.staged[input.table];
        if (!staged) throw new Error(`nothing staged for "${input.table}": call extract_data first`);
        staged.valid = staged.rows.filter(isValid);
        return `${staged.valid.length} valid, ${staged.rows.length - staged.valid.length} rejected rows in ${input.table}`;
      },
    }),
    defineTool({
      name: "load_warehouse",
      description: "Load the validated rows of a table into the warehouse.",
      schema: z.object({ table, target: z.string().min(1).optional().describe("Warehouse table (default: same name)") }),
      risk: "medium",
      execute: (input, context) => {
        const staged = w.staged[input.table];
        if (!staged?.valid) throw new Error(`"${input.table}" is not validated: call validate_data first`);
        const target = input.target ?? input.table;
        // Re-running the same call (same idempotency key) must not append the rows twice.
        if (w.appliedLoads.has(context.idempotencyKey)) return `already loaded ${staged.valid.length} rows into ${target}`;
        w.appliedLoads.add(context.idempotencyKey);
        w.warehouse[target] = [...(w.warehouse[target] ?? []), ...structuredClone(staged.valid)];
        return `loaded ${staged.valid.length} rows into warehouse table ${target}`;
      },
    }),
    defineTool({
      name: "close_database",
      description: "Close the source database connection.",
      schema: z.object({}),
      risk: "low",
      idempotent: true,
      execute: () => {
        const connection = w.connection;
        w.connection = undefined;
        return connection ? `closed ${connection.id}` : "no connection was open";
      },
    }),
  ];
  return tools as GuardedTool[];
}

/** The ETL demo's tool rules, with their priorities. */
export function etlToolRules(): ToolRule[] {
  return [
    { tool: "connect_database", type: "InitialCall", priority: 10 },
    { tool: "extract_data", type: "MustFollow", conditions: ["connect_database"], priority: 8 },
    { tool: "validate_data", type: "MustFollow", conditions: ["extract_data"], priority: 7 },
    { tool: "load_warehouse", type: "Terminal", priority: 9 },
    { tool: "close_database", type: "RequiredForExit", priority: 10 },
  ];
}
