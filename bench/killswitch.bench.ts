// Decision latency with the killswitch enabled (fresh cached policy from a local server) vs disabled.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import picomatch from "picomatch";
import { Killswitch } from "../src/killswitch/index.js";
import type { RiskLevel } from "../src/tools/types.js";

interface BenchRule {
  id: string;
  mode: "allow" | "deny" | "ask";
  tool: (name: string) => boolean;
  args: RegExp | undefined;
}

/** ~50 precompiled permission-style rules: a tool glob and, for some, an argument regex. */
function buildRules(): BenchRule[] {
  const families = ["kubectl", "git", "fs", "db", "http", "deploy", "email", "slack", "s3", "shell"];
  const rules: BenchRule[] = [];
  families.forEach((family, i) => {
    rules.push({ id: `${family}-read`, mode: "allow", tool: picomatch(`${family}_get*`), args: undefined });
    rules.push({ id: `${family}-list`, mode: "allow", tool: picomatch(`${family}_list*`), args: /"limit":\d+/ });
    rules.push({ id: `${family}-prod`, mode: "deny", tool: picomatch(`${family}_*`), args: /"namespace":"production"/ });
    rules.push({ id: `${family}-delete`, mode: "ask", tool: picomatch(`${family}_delete*`), args: undefined });
    rules.push({ id: `${family}-rm`, mode: i % 2 === 0 ? "deny" : "ask", tool: picomatch(`${family}_*`), args: /rm\s+-rf\s+\// });
  });
  return rules;
}

/** Deny > ask > allow over every matching rule; no match falls back to the risk default. */
function permissionCheck(rules: readonly BenchRule[], tool: string, args: string): "allow" | "deny" | "ask" {
  let result: "allow" | "deny" | "ask" | undefined;
  for (const rule of rules) {
    if (!rule.tool(tool)) continue;
    if (rule.args !== undefined && !rule.args.test(args)) continue;
    if (rule.mode === "deny") return "deny";
    if (rule.mode === "ask" || result === undefined) result = rule.mode;
  }
  return result ?? "ask";
}

const CALLS: { tool: string; args: string; risk: RiskLevel }[] = [
  { tool: "kubectl_get_pods", args: '{"namespace":"staging"}', risk: "low" },
  { tool: "kubectl_delete_pod", args: '{"namespace":"production","pod":"api-1"}', risk: "high" },
  { tool: "git_list_branches", args: '{"limit":20}', risk: "low" },
  { tool: "fs_write", args: '{"path":"/tmp/out.txt","content":"hello"}', risk: "medium" },
  { tool: "shell_run", args: '{"command":"rm -rf /"}', risk: "always-deny" },
  { tool: "email_send", args: '{"to":"a@example.com","subject":"hi"}', risk: "medium" },
  { tool: "db_get_row", args: '{"table":"users","id":7}', risk: "low" },
  { tool: "deploy_service", args: '{"service":"api","namespace":"staging"}', risk: "high" },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

export async function benchKillswitch(opts: { quick: boolean }): Promise<{
  name: string;
  ratio: number;
  enabledNsPerDecision: number;
  disabledNsPerDecision: number;
}> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", etag: '"bench"' });
    res.end(JSON.stringify({ denyTools: ["kubectl_drain*"], askTools: ["slack_*"] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const killswitch = new Killswitch({ url: `http://127.0.0.1:${port}/policy`, ttlMs: 600_000, maxAgeMs: 900_000 });
  try {
    await killswitch.start();
    if (killswitch.snapshot().status !== "ok") throw new Error(`killswitch not ok: ${killswitch.snapshot().reason}`);
    const rules = buildRules();
    let sink = 0; // keeps the work observable so it is not optimised away

    const run = (enabled: boolean, iterations: number): number => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < iterations; i++) {
        const call = CALLS[i & 7]!;
        const killed = enabled ? killswitch.decide(call.tool, call.risk) : null;
        const mode = killed !== null ? killed.mode : permissionCheck(rules, call.tool, call.args);
        sink += mode.length;
      }
      return Number(process.hrtime.bigint() - start) / iterations;
    };

    const rounds = opts.quick ? 7 : 21;
    const iterations = opts.quick ? 20_000 : 100_000;
    run(true, iterations); // warm-up of both paths
    run(false, iterations);
    const enabledNs: number[] = [];
    const disabledNs: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first so drift in machine load hits both sides alike.
      const first = round % 2 === 0;
      const a = run(first, iterations);
      const b = run(!first, iterations);
      const enabled = first ? a : b;
      const disabled = first ? b : a;
      enabledNs.push(enabled);
      disabledNs.push(disabled);
      ratios.push(enabled / disabled);
    }
    if (sink === 0) throw new Error("unreachable: no decisions made");
    return {
      name: "killswitch: decision latency enabled / disabled",
      ratio: median(ratios),
      enabledNsPerDecision: median(enabledNs),
      disabledNsPerDecision: median(disabledNs),
    };
  } finally {
    await killswitch.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchKillswitch({ quick: process.argv.includes("--quick") });
  console.log(
    `${result.name}: ratio ${result.ratio.toFixed(3)} (target <= 1.05); ` +
      `enabled ${result.enabledNsPerDecision.toFixed(0)} ns, disabled ${result.disabledNsPerDecision.toFixed(0)} ns per decision`,
  );
}
