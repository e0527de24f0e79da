import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  checkPolicy,
  loadPolicyFile,
  parsePolicy,
  permissionPolicy,
  planPolicy,
  policyJsonSchemaText,
  PolicyError,
  type LoadedPolicy,
} from "../src/policy/index.js";
import { policyExample } from "../examples/policy-devops.js";

const root = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const fixture = (name: string) => root(`test/fixtures/${name}`);

function parseError(text: string, format: "yaml" | "json" | "toml" = "yaml", source = "devops.yaml"): string {
  try {
    parsePolicy(text, format, source);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyError);
    return (error as Error).message;
  }
  throw new Error("expected the policy to be refused");
}

describe("policy files shipped in policies/", () => {
  it("every policies/*.yaml|json|toml loads and compiles", async () => {
    const files = (await readdir(root("policies"))).filter((f) => /\.(ya?ml|toml)$|(?<!schema)\.json$/.test(f));
    expect(files).toEqual(expect.arrayContaining(["devops.yaml", "etl.toml", "api-agent.toml"]));
    for (const file of files) {
      const loaded = await loadPolicyFile(root(`policies/${file}`));
      expect(() => permissionPolicy(loaded)).not.toThrow();
      expect(checkPolicy(loaded).errors).toEqual([]);
    }
  });

  it("devops.yaml carries the seed's risk categories", async () => {
    const loaded = await loadPolicyFile(root("policies/devops.yaml"));
    expect(loaded.precedence).toBe("deny-first");
    expect(loaded.toolRisk).toMatchObject({ kubectl_get: "low", kubectl_delete: "high", kubectl_drain: "high", bash: "high" });
    expect(checkPolicy(loaded).warnings).toEqual([]);
  });

  it("etl.toml is seed 001 Example 1", async () => {
    const loaded = await loadPolicyFile(root("policies/etl.toml"));
    expect(loaded.agent?.name).toBe("ETLProcessor");
    expect(loaded.toolRules).toEqual([
      { tool: "connect_database", type: "InitialCall", priority: 10 },
      { tool: "extract_data", type: "MustFollow", conditions: ["connect_database"], priority: 8 },
      { tool: "validate_data", type: "MustFollow", conditions: ["extract_data"], priority: 7 },
      { tool: "load_warehouse", type: "Terminal", priority: 9 },
      { tool: "close_database", type: "RequiredForExit", priority: 10 },
    ]);
  });

  it("api-agent.toml is seed 001 Example 2", async () => {
    const loaded = await loadPolicyFile(root("policies/api-agent.toml"));
    expect(loaded.toolRules).toEqual([
      { tool: "api_request", type: "MustFollow", conditions: ["authenticate"], priority: 5 },
      { tool: "format_response", type: "NoHeartbeat", priority: 1 },
      { tool: "send_notification", type: "Terminal", priority: 8 },
      { tool: "api_request", type: "MaxCalls", max: 3, scope: "run", priority: 5 },
    ]);
    expect(loaded.audit).toEqual({ sink: "jsonl", path: ".guarded-graph/audit.jsonl", redact: ["token", "password", "headers.authorization"] });
    expect(loaded.execution).toEqual({ maxConcurrency: 4, timeoutMs: 30000, maxResultChars: 10000 });
  });
});

describe("the seed's TOML forms, exactly as written in the seeds", () => {
  it("seed 001 Example 3 ([[agent.tool_rules]] with tool_name / rule_type)", async () => {
    const loaded = await loadPolicyFile(fixture("seed001-example3.toml"));
    expect(loaded.agent).toEqual({ name: "SmartAssistant", tools: ["search", "calculate", "send_email", "schedule"] });
    expect(loaded.toolRules).toEqual([
      { tool: "*", type: "NoHeartbeat", conditions: ["calculate", "format_text", "validate"], priority: 1 },
      { tool: "send_email", type: "Terminal", priority: 8 },
      { tool: "schedule", type: "MustFollow", conditions: ["search"], priority: 6 },
      { tool: "save_session", type: "RequiredForExit", priority: 9 },
    ]);
  });

  it("seed 001 DataProcessor config", async () => {
    const loaded = await loadPolicyFile(fixture("seed001-dataprocessor.toml"));
    expect(loaded.toolRules.map((r) => `${r.type}:${r.tool}`)).toEqual([
      "InitialCall:initialize_db",
      "MustFollow:validate_input",
      "NoHeartbeat:cache_lookup",
      "Terminal:generate_report",
      "RequiredForExit:close_connections",
    ]);
  });

  it("seed 000 top-level [[tool_rules]] with rule_type = { AllowedOperations = [...] }", async () => {
    const loaded = await loadPolicyFile(fixture("seed000-allowed-operations.toml"));
    expect(loaded.toolRules).toEqual([{ tool: "file", type: "AllowedOperations", operations: ["read", "append"], priority: 0 }]);
  });

  it("value-carrying rule types: MaxCalls, Cooldown (string, ms, serde secs/nanos), Periodic", async () => {
    const loaded = await loadPolicyFile(fixture("seed-value-rule-types.toml"));
    expect(loaded.toolRules).toEqual([
      { tool: "api_request", type: "MaxCalls", max: 3, priority: 5 },
      { tool: "send_notification", type: "Cooldown", durationMs: 30_000 },
      { tool: "poll_status", type: "Cooldown", durationMs: 30_000 },
      { tool: "heartbeat", type: "Cooldown", durationMs: 30_000 },
      { tool: "save_checkpoint", type: "Periodic", durationMs: 300_000 },
      { tool: "file", type: "AllowedOperations", operations: ["read", "append"] },
    ]);
  });

  it("native tool rules in YAML and JSON, with durations", () => {
    const yaml = parsePolicy(
      "tool_rules:\n  - { tool: extract_data, type: MustFollow, conditions: [connect_database], priority: 8 }\n  - { tool: ping, type: Periodic, duration: 1m30s }\n",
      "yaml",
      "x.yaml",
    );
    expect(yaml.toolRules).toEqual([
      { tool: "extract_data", type: "MustFollow", conditions: ["connect_database"], priority: 8 },
      { tool: "ping", type: "Periodic", durationMs: 90_000 },
    ]);
    const json = parsePolicy('{"tool_rules":[{"tool":"api_request","type":"MaxCalls","max":3,"scope":"thread"}]}', "json", "x.json");
    expect(json.toolRules).toEqual([{ tool: "api_request", type: "MaxCalls", max: 3, scope: "thread" }]);
  });
});

describe("loader errors name the file, the path inside it and what was expected", () => {
  const fourRules = (mode: string) =>
    `permissions:\n${["a", "b", "c"].map((id) => `  - { id: ${id}, tool: t, mode: allow }\n`).join("")}  - { id: d, tool: t, mode: ${mode} }\n`;

  it("bad enum value", () => {
    expect(parseError(fourRules("maybe"))).toBe('devops.yaml: permissions[3].mode: expected one of allow|deny|ask, got "maybe"');
  });

  it("missing field, wrong type, unknown key", () => {
    expect(parseError("permissions:\n  - { mode: deny }\n")).toBe("devops.yaml: permissions[0].tool: is required (or write the rule as a compact string in rule:)");
    expect(parseError("tools:\n  bash: { risk: 3 }\n")).toContain('tools.bash.risk: expected one of low|medium|high|always-deny, got 3');
    expect(parseError("permisions: []\n")).toBe('devops.yaml: (document): unknown key "permisions"');
  });

  it("seed-form tool rules: bad rule type, missing value, bad duration", () => {
    expect(parseError('[[agent.tool_rules]]\ntool_name = "x"\nrule_type = "Sometimes"\n', "toml", "a.toml")).toMatch(
      /^a\.toml: agent\.tool_rules\[0\]\.rule_type: expected one of NoHeartbeat\|.*\|AllowedOperations, got "Sometimes"$/,
    );
    expect(parseError('[[tool_rules]]\ntool_name = "x"\nrule_type = "MaxCalls"\n', "toml", "a.toml")).toBe(
      "a.toml: tool_rules[0].rule_type: MaxCalls needs a value: rule_type = { MaxCalls = 3 }",
    );
    expect(parseError('[[tool_rules]]\ntool_name = "x"\nrule_type = { Cooldown = "soon" }\n', "toml", "a.toml")).toContain(
      'tool_rules[0].rule_type.Cooldown: expected a duration like "30s", "1m30s" or "500ms"',
    );
  });

  it("native tool rules: field required or meaningless for the type", () => {
    expect(parseError("tool_rules:\n  - { tool: a, type: MaxCalls }\n")).toContain("tool_rules[0].max: is required for MaxCalls");
    expect(parseError("tool_rules:\n  - { tool: a, type: Terminal, max: 2 }\n")).toContain("tool_rules[0].max: has no meaning for Terminal");
  });

  it("killswitch section validated by KillswitchConfigSchema", () => {
    expect(parseError("killswitch: { url: not-a-url }\n")).toMatch(/^devops\.yaml: killswitch\.url: /);
    const ok = parsePolicy("killswitch: { url: 'http://127.0.0.1:9/policy', onFailure: ask-non-low }\n", "yaml", "k.yaml");
    expect(ok.killswitch).toMatchObject({ url: "http://127.0.0.1:9/policy", onFailure: "ask-non-low", ttlMs: 60_000 });
  });

  it("regexes RE2 cannot run are refused at load, naming file, rule and pattern", () => {
    expect(parseError("permissions:\n  - { id: lb, tool: t, args: '(?<=x)y', mode: deny }\n")).toMatch(
      /^devops\.yaml: permissions\[0\]\.args: regex "\(\?<=x\)y" refused: lookbehind is not supported/,
    );
  });

  it("syntax errors give the line; duplicate YAML keys are refused", () => {
    expect(parseError("permissions: [\n", "yaml")).toMatch(/^devops\.yaml: line \d+, column \d+: invalid YAML/);
    expect(parseError("a = \n", "toml", "p.toml")).toMatch(/^p\.toml: line 1, column \d+: invalid TOML/);
    expect(parseError("{", "json", "p.json")).toMatch(/^p\.json: invalid JSON/);
    expect(parseError("permissions:\n  - { tool: t, mode: allow, mode: deny }\n")).toMatch(/invalid YAML: Map keys must be unique/);
  });

  it("unknown file extensions and missing files", async () => {
    await expect(loadPolicyFile("policy.ini")).rejects.toThrow(/policy\.ini: unknown policy file type ".ini"/);
    await expect(loadPolicyFile(root("test/fixtures/missing.yaml"))).rejects.toThrow(/missing\.yaml: cannot read the policy file/);
  });
});

describe("checkPolicy", () => {
  const load = (text: string): LoadedPolicy => parsePolicy(text, "yaml", "c.yaml");

  it("warns about rules an unconditional deny shadows under deny-first", () => {
    const { warnings } = checkPolicy(
      load(`permissions:
  - { id: ok, tool: kubectl_get, mode: allow }
  - { id: no-kubectl, tool: "kubectl_*", mode: deny }
  - { id: cond, tool: "bash", where: { command: { prefix: rm } }, mode: deny }
  - { id: bash-ls, tool: bash, mode: allow }
`),
    );
    expect(warnings).toEqual([expect.stringMatching(/^permissions\[0\] \(ok\) can never fire: permissions\[1\] \(no-kubectl\) \(deny, no conditions\)/)]);
  });

  it("warns about rules after an unconditional rule under first-match", () => {
    const { warnings } = checkPolicy(
      load(`precedence: first-match
permissions:
  - { id: all, tool: "*", mode: ask }
  - { id: later, tool: deploy, where: { env: { equals: prod } }, mode: deny }
`),
    );
    expect(warnings).toEqual([expect.stringMatching(/^permissions\[1\] \(later\) can never fire: permissions\[0\] \(all\) comes first/)]);
  });

  it("with the tools known, rules and risk entries naming tools that do not exist are errors; duplicate ids warn", () => {
    const tools = new Map<string, string[]>([["read_file", []], ["bash", []]]);
    const { warnings, errors } = checkPolicy(
      load(`tools: { read_fil: { risk: low } }
permissions:
  - { id: x, tool: read_file, where: { path: { glob: "/etc/**" } }, mode: deny }
  - { id: x, tool: "kubectl_*", mode: deny }
`),
      tools,
    );
    expect(warnings).toEqual([expect.stringMatching(/^permissions\[1\] \(x\): duplicate id/)]);
    expect(errors).toEqual([
      expect.stringMatching(/^permissions\[1\] \(x\) names tool "kubectl_\*", which matches no known tool/),
      expect.stringMatching(/^tools\.read_fil: no tool named "read_fil" exists/),
    ]);
  });

  it("without the tools, a rule naming a tool the policy declares nowhere is a warning (a typo, say)", () => {
    const { warnings, errors } = checkPolicy(
      load(`tools: { kubectl_delete: { risk: high } }
permissions:
  - { id: typo, tool: kubectl_delet, where: { namespace: { equals: production } }, mode: deny }
  - { id: ok, tool: kubectl_delete, mode: ask }
`),
    );
    expect(errors).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^permissions\[0\] \(typo\) names tool "kubectl_delet", which the policy declares nowhere/)]);
  });

  it("a policy may set risk per operation; lowering a tool's own risk is an error unless lowerRisk says so", () => {
    const tools = new Map<string, string[]>([["kubectl", ["get", "delete"]]]);
    const declared = new Map([["kubectl", { risk: "medium" as const, operationRisk: { delete: "high" as const } }]]);
    const lowering = checkPolicy(load("tools: { kubectl: { risk: medium } }\n"), tools, declared);
    expect(lowering.errors).toEqual([]);
    const hole = checkPolicy(load("tools: { kubectl: { risk: low } }\n"), tools, declared);
    expect(hole.errors).toEqual(["tools.kubectl.risk: low is lower than the medium risk kubectl declares; write lowerRisk: true to mean it"]);
    const opLow = checkPolicy(load("tools: { kubectl: { operations: { delete: medium } } }\n"), tools, declared);
    expect(opLow.errors).toEqual([expect.stringMatching(/^tools\.kubectl\.operations\.delete: medium is lower than the high risk/)]);
    expect(checkPolicy(load("tools: { kubectl: { risk: low, lowerRisk: true } }\n"), tools, declared).errors).toEqual([]);
    expect(checkPolicy(load("tools: { kubectl: { operations: { drop: high } } }\n"), tools, declared).errors).toEqual([
      'tools.kubectl.operations.drop: kubectl has no operation "drop" (operations: get, delete)',
    ]);
  });

  it("prints how each compact rule string was read", () => {
    const { readings } = checkPolicy(
      load(`permissions:
  - { rule: "Bash(npm run test:*)", mode: allow }
  - { rule: "Read(./secrets/**)", mode: deny }
  - { rule: "kubectl_delete(namespace:production)", mode: deny }
  - { rule: "WebFetch(domain:example.com)", mode: allow }
`),
    );
    expect(readings).toEqual([
      'permissions[0]: Bash(npm run test:*) → Bash where every simple command in command starts with the words "npm run test" (main argument command, from Claude Code\'s convention for Bash)',
      'permissions[1]: Read(./secrets/**) → Read where file_path is a path matching "./secrets/**" (resolved against the policy\'s pathBase) (main argument file_path, from Claude Code\'s convention for Read)',
      'permissions[2]: kubectl_delete(namespace:production) → kubectl_delete where namespace equals "production"',
      'permissions[3]: WebFetch(domain:example.com) → WebFetch where the host of url matches "example.com"',
    ]);
  });

  it("reports tool-rule errors from the rules validator", () => {
    const { errors } = checkPolicy(
      load("tool_rules:\n  - { tool: a, type: MustFollow, conditions: [b] }\n  - { tool: b, type: MustFollow, conditions: [a] }\n"),
    );
    expect(errors.join("\n")).toMatch(/tool_rules: \[cycle\]/);
  });
});

describe("planPolicy", () => {
  it("lists permission rules in effect order, risk defaults and the tool-rule plan", async () => {
    const plan = planPolicy(await loadPolicyFile(root("policies/etl.toml")));
    expect(plan).toContain("(precedence: deny-first)");
    expect(plan).toContain("initial calls: connect_database");
    expect(plan).toContain("extract_data after: connect_database");
    expect(plan).toContain("required before exit: close_database");
    const devops = planPolicy(await loadPolicyFile(root("policies/devops.yaml")));
    const order = [...devops.matchAll(/^\s+\d+\. (\w+)\s+(\S+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(order.slice(0, 2)).toEqual(["deny:prod-protected", "deny:prod-protected-manifest"]);
    expect(order.at(-1)).toBe("allow:k8s-read");
  });
});

describe("published JSON Schema", () => {
  it("policies/policy.schema.json equals the generated schema (regenerate: npx tsx src/policy/json-schema.ts --write)", async () => {
    const committed = await readFile(root("policies/policy.schema.json"), "utf8");
    expect(committed).toBe(policyJsonSchemaText());
  });
});

describe("examples/policy-devops.ts", () => {
  it("decides as its comments say", async () => {
    const lines: string[] = [];
    const decisions = await policyExample((line) => lines.push(line));
    expect(decisions.map((d) => `${d.mode} ${d.ruleId}`)).toEqual([
      "allow permission:k8s-read",
      "ask permission:k8s-destructive",
      "deny permission:prod-protected",
      "deny permission:rm-recursive-root",
      "ask risk:high",
    ]);
    expect(lines).toHaveLength(5);
  });
});
