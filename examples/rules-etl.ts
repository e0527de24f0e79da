// Tool rules for an ETL agent (connect, extract, validate, load, close), checked the way the guard checks them.
import { fileURLToPath } from "node:url";
import { assertValidRules, executionPlan, rules, ToolRulesEngine } from "guarded-graph";

export const tools = new Map<string, readonly string[]>([
  ["connect_database", []],
  ["extract_data", []],
  ["validate_data", []],
  ["load_warehouse", []],
  ["close_database", []],
  ["file", ["read", "append", "patch", "save"]],
]);

export const etlRules = rules()
  .withInitialCall("connect_database")
  .withToolDependency("extract_data", "connect_database")
  .withToolDependency("validate_data", "extract_data")
  .withMustPrecede("validate_data", ["load_warehouse"])
  .withTerminalTool("load_warehouse")
  .withRequiredForExit("close_database")
  .withMaxCalls("extract_data", 3)
  .withAllowedOperations("file", ["read", "append"])
  .build();

export function runEtlExample(): string[] {
  assertValidRules(etlRules, tools); // throws, listing every problem, if the rules conflict
  const engine = new ToolRulesEngine(etlRules, { tools, now: () => 0 });
  const log: string[] = [];
  let state = engine.initialState();

  // What the model is shown at the first step: only the initial tool.
  log.push(`shown: ${engine.allowedTools(state, [...tools.keys()]).map((t) => t.name).join(", ")}`);

  // The backstop refuses anything else, naming the rule and what is allowed now.
  log.push(engine.checkCall(state, { tool: "load_warehouse" })?.message ?? "allowed");

  let n = 0;
  for (const tool of ["connect_database", "extract_data", "validate_data", "load_warehouse"]) {
    const violation = engine.checkCall(state, { tool });
    if (violation) throw new Error(violation.message);
    state = engine.record(state, { tool, callId: `call_${n++}`, success: true, at: 0 });
  }
  const end = engine.shouldTerminate(state);
  log.push(`terminate: ${end.terminate} (${end.ruleId}); still required: ${engine.pendingExitTools(state).join(", ")}`);
  log.push(engine.checkCall(state, { tool: "file", operation: "read" })?.message ?? "allowed");

  log.push(engine.usageSection({ file: "Paths are relative to the project root." }));
  log.push(executionPlan(etlRules).mermaid);
  return log;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(runEtlExample().join("\n\n"));
