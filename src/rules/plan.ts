import { dependencyEdges, dependencyMap } from "./graph.js";
import { normaliseRules, WILDCARD } from "./normalize.js";
import { parseToolRules } from "./schema.js";
import type { ExecutionPlan, RuleScope, ToolRule } from "./types.js";

/** Mermaid node ids must be plain identifiers; labels keep the real tool name. */
function nodeId(tool: string, ids: Map<string, string>): string {
  let id = ids.get(tool);
  if (id === undefined) {
    id = `t${ids.size}_${tool.replace(/[^A-Za-z0-9_]/g, "_")}`;
    ids.set(tool, id);
  }
  return id;
}

function label(tool: string): string {
  return tool === WILDCARD ? "every tool" : tool.replace(/"/g, "#quot;");
}

/** The order the rules impose: initial tools, dependencies, terminal and exit tools, limits, as data and a Mermaid flowchart. */
export function executionPlan(rules: ToolRule[]): ExecutionPlan {
  const normalised = normaliseRules(parseToolRules(rules));
  const edges = dependencyEdges(normalised);
  const unique = (tools: string[]) => [...new Set(tools)];
  const initialTools = unique(
    normalised.flatMap((r) => (r.type === "InitialCall" ? [r.tool, ...(r.alternatives ?? [])] : [])),
  );
  // "Right after" edges of ChildTools / ConditionalNext rules (labelled with the output for the latter).
  const nextEdges = normalised.flatMap((r) =>
    r.type === "ChildTools"
      ? r.children.map((child) => ({ from: r.tool, to: child, label: "then" }))
      : r.type === "ParentTools"
        ? r.children.map((child) => ({ from: r.tool, to: child, label: "only then" }))
      : r.type === "ConditionalNext"
        ? [
            ...Object.entries(r.outputMapping).map(([output, to]) => ({ from: r.tool, to, label: output })),
            ...(r.defaultChild ? [{ from: r.tool, to: r.defaultChild, label: "otherwise" }] : []),
          ]
        : [],
  );
  const terminalTools = unique(normalised.filter((r) => r.type === "Terminal" || r.type === "TerminalIf").map((r) => r.tool));
  const exitRequirements = unique(
    normalised.filter((r) => r.type === "RequiredForExit" || r.type === "RequiredForExitIf").map((r) => r.tool),
  );
  const maxCalls: Record<string, { max: number; scope: RuleScope }> = {};
  const allowedOperations: Record<string, string[]> = {};
  for (const rule of normalised) {
    if (rule.type === "MaxCalls") {
      const scope = rule.scope ?? "run";
      const current = maxCalls[rule.tool];
      // Several limits on one tool: the tightest one is the one that matters.
      if (current === undefined || rule.max < current.max) maxCalls[rule.tool] = { max: rule.max, scope };
    }
    if (rule.type === "AllowedOperations") {
      const current = allowedOperations[rule.tool];
      allowedOperations[rule.tool] = current ? current.filter((op) => rule.operations.includes(op)) : unique(rule.operations);
    }
  }
  const dependencies = Object.fromEntries(dependencyMap(edges));

  const ids = new Map<string, string>();
  const lines = ["flowchart TD"];
  const nodes = unique([
    ...initialTools,
    ...edges.flatMap((e) => [e.before, e.after]),
    ...nextEdges.flatMap((e) => [e.from, e.to]),
    ...terminalTools,
    ...exitRequirements,
  ]);
  for (const tool of nodes) {
    const id = nodeId(tool, ids);
    const text = label(tool);
    if (initialTools.includes(tool)) lines.push(`  ${id}(["${text}"])`);
    else if (terminalTools.includes(tool)) lines.push(`  ${id}[["${text}"]]`);
    else lines.push(`  ${id}["${text}"]`);
  }
  for (const edge of edges) lines.push(`  ${nodeId(edge.before, ids)} --> ${nodeId(edge.after, ids)}`);
  for (const edge of nextEdges) lines.push(`  ${nodeId(edge.from, ids)} ==>|"${label(edge.label)}"| ${nodeId(edge.to, ids)}`);
  if (exitRequirements.length > 0) {
    lines.push(`  exit{{"end of run"}}`);
    for (const tool of exitRequirements) lines.push(`  ${nodeId(tool, ids)} -. required before .-> exit`);
  }
  if (initialTools.length > 0) lines.push(`  classDef initial fill:#e3f2fd`, `  class ${initialTools.map((t) => nodeId(t, ids)).join(",")} initial`);
  if (terminalTools.length > 0) lines.push(`  classDef terminal fill:#ffebee`, `  class ${terminalTools.map((t) => nodeId(t, ids)).join(",")} terminal`);

  return { initialTools, dependencies, terminalTools, exitRequirements, maxCalls, allowedOperations, mermaid: lines.join("\n") };
}
