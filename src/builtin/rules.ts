import type { ToolRule } from "../rules/types.js";
import { guardSpecOf } from "../tools/registry.js";
import type { AnyTool } from "../tools/types.js";

/** ContinueLoop for the memory, source and file tools; Terminal for send_message (the run ends after it). */
export function defaultToolRules(): ToolRule[] {
  return [
    ...["block", "block_edit", "recall", "source", "file", "context", "search"].map(
      (tool): ToolRule => ({ type: "ContinueLoop", tool, id: `builtin:continue:${tool}` }),
    ),
    { type: "Terminal", tool: "send_message", id: "builtin:terminal:send_message" },
  ];
}

/** The "Tool usage rules" prompt section from each tool's usage rule. */
export function renderToolUsageRules(tools: readonly AnyTool[]): string {
  const lines = tools.flatMap((tool) => {
    const rule = guardSpecOf(tool).usageRule;
    return rule ? [`- ${tool.name}: ${rule}`] : [];
  });
  return lines.length ? `## Tool usage rules\n${lines.join("\n")}` : "";
}
