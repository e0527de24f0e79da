/**
 * AgentDojo replay benchmark: `npm run bench:agentdojo -- --data PATH [--policies DIR] [--setting NAME] [--suite NAME] [--json OUT] [--show]`.
 *
 * PATH holds AgentDojo's v1 traces and tools (traces-<suite>.json, tools-<suite>.json). The policies
 * are `<DIR>/<suite>.<setting>.yaml` (default DIR policies/agentdojo, setting "provenance").
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadPolicyFile } from "../../src/policy/file.js";
import { loadSuite, SUITES, type Suite } from "./data.js";
import { replaySuite, summarize, type SuiteResult, type Summary } from "./replay.js";

export async function runSettings(data: string, policies: string, setting: string, suites: readonly Suite[] = SUITES): Promise<SuiteResult[]> {
  const results: SuiteResult[] = [];
  for (const suite of suites) {
    const policy = await loadPolicyFile(join(policies, `${suite}.${setting}.yaml`));
    results.push(await replaySuite(await loadSuite(data, suite), policy));
  }
  return results;
}

export function formatSummary(setting: string, s: Summary): string {
  return [
    `setting ${setting}`,
    `  utility:  ${s.cleanRan}/${s.clean} clean tasks ran with no deny (${s.cleanDenied} denied); ${s.cleanNeedingApproval} needed approval (${s.approvals} approvals)`,
    `  security: of ${s.withToolCall} hijacks that call a tool (${s.hijacked} in all): denied ${s.denied}, asked ${s.asked}, executed without a human ${s.executed}; stopped after an attacker's change ran ${s.stoppedLate}`,
    `  evidence: ${s.withEvidence} of ${s.denied + s.asked} stopped hijacks name a value and where it first appears (${s.withOutput} a message or output, the rest "nowhere")`,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      data: { type: "string" },
      policies: { type: "string", default: "policies/agentdojo" },
      setting: { type: "string", multiple: true },
      json: { type: "string" },
      show: { type: "string" },
      suite: { type: "string", multiple: true },
    },
  });
  const suites = (values.suite ?? SUITES) as Suite[];
  const unknown = suites.filter((suite) => !(SUITES as readonly string[]).includes(suite));
  if (unknown.length > 0) {
    console.error(`unknown suite ${unknown.join(", ")}: expected ${SUITES.join(", ")}`);
    process.exit(2);
  }
  if (values.data === undefined) {
    console.error("usage: npm run bench:agentdojo -- --data PATH [--policies DIR] [--setting NAME ...] [--suite NAME ...] [--json OUT] [--show denied|asked|executed|clean]");
    process.exit(2);
  }
  const settings = values.setting ?? ["baseline", "provenance"];
  const out: Record<string, { summary: Summary; results: SuiteResult[] }> = {};
  for (const setting of settings) {
    const results = await runSettings(values.data, values.policies, setting, suites);
    const summary = summarize(results);
    out[setting] = { summary, results };
    console.log(formatSummary(setting, summary));
    for (const r of results) {
      const s = summarize([r]);
      console.log(`    ${r.suite.padEnd(10)} clean ${s.cleanRan}/${s.clean} approval ${s.cleanNeedingApproval} | hijacks denied ${s.denied} asked ${s.asked} executed ${s.executed}`);
    }
    if (values.show !== undefined) {
      for (const r of results) {
        for (const t of r.traces) {
          const clean = t.injectionTask === null;
          const match =
            values.show === "clean" ? clean && (t.denied || t.asks > 0) : !clean && t.hijack === values.show;
          if (!match) continue;
          const calls = clean ? t.calls.filter((c) => c.verdict !== "run" && c.by === "user") : t.stoppedBy ? [t.stoppedBy] : t.calls.filter((c) => c.by === "attacker");
          for (const c of calls) console.log(`      ${r.suite}/${t.userTask}/${t.injectionTask ?? "clean"} #${c.index} ${c.tool} ${c.verdict} ${c.ruleId}: ${c.reason}`);
        }
      }
    }
  }
  if (values.json !== undefined) await writeFile(values.json, `${JSON.stringify(out, null, 2)}\n`);
}
