import { policyCommand } from "../../src/cli/commands/policy.js";

/** Runs `guarded-graph policy ARGV` in this process: its exit code and every line it printed (out and err, in order). */
export async function runPolicyCommand(argv: string[]): Promise<{ code: number; out: string[] }> {
  const out: string[] = [];
  const code = await policyCommand(argv, { out: (line) => out.push(line), err: (line) => out.push(line) });
  return { code, out };
}
