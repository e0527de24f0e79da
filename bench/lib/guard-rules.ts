import type { PermissionRule } from "../../src/policy/index.js";
import type { ToolRule } from "../../src/rules/types.js";
import { IDLE_TOOL_NAMES, NOOP_TOOL_NAMES } from "./noop-tools.js";

/**
 * `count` permission rules shaped like a real policy: denies and asks on the called tools whose
 * argument conditions never hold for W1's arguments (so they are evaluated, not skipped), rules on
 * tools nobody calls, and allow rules that match. None refuses or asks for a W1 call.
 */
export function permissionRules(count: number): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (let i = 0; rules.length < count; i++) {
    const called = NOOP_TOOL_NAMES[i % NOOP_TOOL_NAMES.length]!;
    const idle = IDLE_TOOL_NAMES[i % IDLE_TOOL_NAMES.length]!;
    switch (i % 8) {
      case 0:
        rules.push({ id: `p${i}`, tool: called, where: { path: { glob: `/etc/${i}/**` } }, mode: "deny" });
        break;
      case 1:
        rules.push({ id: `p${i}`, tool: called, where: { path: { prefix: `/srv/secret-${i}/` } }, mode: "ask" });
        break;
      case 2:
        rules.push({ id: `p${i}`, tool: called, args: `token_${i}|password_${i}`, mode: "deny" });
        break;
      case 3:
        rules.push({ id: `p${i}`, tool: "noop_*", where: { query: { regex: `^drop\\s+table_${i}\\b` } }, mode: "deny" });
        break;
      case 4:
        rules.push({ id: `p${i}`, tool: idle, mode: i % 16 === 4 ? "deny" : "ask" });
        break;
      case 5:
        // A glob rule on tools the run never calls (a rule naming no tool at all is refused when the guard is built).
        rules.push({ id: `p${i}`, tool: "idle_*", where: { path: { prefix: `/other/${i}/` } }, mode: "deny" });
        break;
      case 6:
        rules.push({ id: `p${i}`, tool: called, where: { path: { prefix: "/workspace/" } }, mode: "allow" });
        break;
      default:
        rules.push({ id: `p${i}`, tool: called, where: { query: { in: [`q${i}`, `q${i + 1}`] } }, mode: "ask" });
    }
  }
  return rules;
}

/** `count` tool rules (limits far above what a run reaches, ordering on idle tools): none refuses a W1 call. */
export function toolRules(count: number): ToolRule[] {
  const rules: ToolRule[] = [];
  for (let i = 0; rules.length < count; i++) {
    const called = NOOP_TOOL_NAMES[i % NOOP_TOOL_NAMES.length]!;
    const idle = IDLE_TOOL_NAMES[i % IDLE_TOOL_NAMES.length]!;
    // Ordering among idle tools only, acyclic: idle_report follows and idle_deploy precedes the others.
    const first = IDLE_TOOL_NAMES[0];
    const last = IDLE_TOOL_NAMES[3];
    const middle = IDLE_TOOL_NAMES[1 + (i % 2)]!;
    switch (i % 5) {
      case 0:
        rules.push({ id: `t${i}`, type: "MaxCalls", tool: called, max: 1_000_000 });
        break;
      case 1:
        rules.push({ id: `t${i}`, type: "MaxCalls", tool: called, max: 10_000_000, scope: "thread" });
        break;
      case 2:
        rules.push({ id: `t${i}`, type: "MustFollow", tool: last, conditions: [middle] });
        break;
      case 3:
        rules.push({ id: `t${i}`, type: "ExclusiveGroup", tool: called, conditions: [idle] });
        break;
      default:
        rules.push({ id: `t${i}`, type: "MustPrecede", tool: first, conditions: [middle] });
    }
  }
  return rules;
}
