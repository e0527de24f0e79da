import type { Guard, RawToolCall } from "../../src/guard/index.js";
import type { RuleState } from "../../src/rules/types.js";

/** CPU ms of the first decision of each tool name among `calls` (nothing kept for that tool yet), in call order; the names decided. */
export async function firstDecisions(guard: Guard, state: RuleState, calls: readonly RawToolCall[]): Promise<{ ms: number[]; seen: Set<string> }> {
  const ms: number[] = [];
  const seen = new Set<string>();
  for (const call of calls) {
    if (seen.has(call.name)) continue;
    seen.add(call.name);
    const t0 = process.cpuUsage();
    await guard.reviewTurn(state, [call]);
    const used = process.cpuUsage(t0);
    ms.push((used.user + used.system) / 1000);
  }
  return { ms, seen };
}
