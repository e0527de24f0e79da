// Ordinary commands, URLs and paths a coding agent issues, decided under the allow lists people write
// for them (test/fixtures/benign/corpus.ts names the trajectory, document or pattern of each). A guard
// that asks about these gets turned off: every covered entry must stay allowed, and every entry the
// lists do not cover is pinned with the reason it is not (a program no allow names, code the guard
// cannot read, a part only known when the line runs).
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { COMMANDS, NOT_COVERED, PATHS, policyYaml, URLS } from "./fixtures/benign/corpus.js";

const guard = permissionPolicy(parsePolicy(policyYaml(), "yaml", "benign-corpus.yaml"));
const allowed = { commands: 0, urls: 0, paths: 0 };

afterAll(() => {
  const rate = (n: number, of: number) => `${n}/${of} (${((100 * n) / of).toFixed(1)}%)`;
  console.log(`benign corpus allow rate: commands ${rate(allowed.commands, COMMANDS.length)}, URLs ${rate(allowed.urls, URLS.length)}, paths ${rate(allowed.paths, PATHS.length)}`);
});

describe("benign corpus: commands", () => {
  it("has no duplicate entries, and every pinned exception is in the corpus", () => {
    const texts = COMMANDS.map((c) => c.command);
    expect(new Set(texts).size).toBe(texts.length);
    for (const command of Object.keys(NOT_COVERED)) expect(texts, command).toContain(command);
  });

  it.each(COMMANDS.map((c) => [c.command, c] as const))("%s", (_text, c) => {
    const decision = guard.decide("Bash", { command: c.command });
    const pinned = NOT_COVERED[c.command];
    if (pinned === undefined) {
      expect(decision.mode, `${c.command} [${c.source}]: ${decision.reason ?? ""}`).toBe("allow");
      allowed.commands += 1;
    } else {
      expect(decision.mode, `${c.command}: ${pinned.why}`).toBe(pinned.mode);
      expect(decision.reason ?? "", c.command).toMatch(pinned.reason);
    }
  });
});

describe("benign corpus: URLs and paths", () => {
  it.each(URLS.map((u) => [u.url, u] as const))("WebFetch %s", (_url, u) => {
    const decision = guard.decide("WebFetch", { url: u.url });
    expect(decision.mode, `${u.url} [${u.source}]: ${decision.reason ?? ""}`).toBe(u.uncovered === true ? "ask" : "allow");
    if (decision.mode === "allow") allowed.urls += 1;
  });

  it.each(PATHS.map((p) => [`${p.tool} ${p.path}`, p] as const))("%s", (_name, p) => {
    const decision = guard.decide(p.tool, { file_path: p.path });
    expect(decision.mode, `${p.tool} ${p.path} [${p.source}]: ${decision.reason ?? ""}`).toBe("allow");
    allowed.paths += 1;
  });

  it("the same lists still refuse the files and hosts they deny", () => {
    expect(guard.decide("Read", { file_path: "/workspace/repo/.env" }).mode).toBe("deny");
    expect(guard.decide("Read", { file_path: "secrets/../secrets/key.pem" }).mode).toBe("deny");
    expect(guard.decide("Edit", { file_path: "package.json" }).mode).not.toBe("allow");
    expect(guard.decide("WebFetch", { url: "http://169.254.169.254/latest/meta-data/" }).mode).toBe("deny");
    expect(guard.decide("WebFetch", { url: "https://github.com.evil.example/x" }).mode).not.toBe("allow");
  });
});

describe("programs whose subcommand runs a command: the allow that names the program covers it when the command is allowed too", () => {
  // docker compose's own options (-f FILE, -p NAME, --profile P) come before its subcommand (Docker docs,
  // 'docker compose' CLI reference); poetry, pipenv, hatch, pdm, bundle, conda take options there too.
  const yaml = (allow: readonly string[]) =>
    `version: 1\npermissions:\n  - { rule: "Bash(rm:*)", mode: deny }\n  - { rule: "Bash(curl:*)", mode: deny }\n${allow.map((a) => `  - { rule: ${JSON.stringify(`Bash(${a})`)}, mode: allow }`).join("\n")}\n`;
  const decide = (allow: readonly string[], command: string) => permissionPolicy(parsePolicy(yaml(allow), "yaml", "wrappers.yaml")).decide("Bash", { command });

  it.each([
    ["docker compose run --rm web pytest", ["docker compose:*", "pytest:*"]],
    ["docker compose exec web ls /app", ["docker compose:*", "ls:*"]],
    ["docker compose -f docker-compose.test.yml run --rm app pytest -q", ["docker compose:*", "pytest:*"]],
    ["docker compose run --rm web", ["docker compose:*"]],
    ["docker-compose exec -T web ls", ["docker-compose:*", "ls:*"]],
    ["docker compose exec web pytest -q", ["docker compose exec web pytest:*"]],
    ["uv run pytest -q", ["uv run:*", "pytest:*"]],
    ["uv run pytest -q", ["uv run pytest:*"]],
  ] as const)("%s under %j: allow", (command, allow) => {
    expect(decide(allow, command).mode).toBe("allow");
  });

  it.each([
    ["docker compose exec web python evil.py", ["docker compose:*"], /compose exec runs the command it is given|no permission rule matched/],
    ["docker compose exec web ls", ["docker:*", "ls:*"], /docker compose exec runs the command it is given/],
    ["docker run --rm app ls", ["docker:*", "ls:*"], /docker run runs the command it is given/],
    ["uv run pytest -q", ["uv run:*"], /no permission rule matched/],
    ["docker compose --unknown-option exec web ls", ["docker compose:*", "ls:*"], /does not know \(--unknown-option\)/],
    ["poetry -C dir run pytest", ["poetry:*", "pytest:*"], /does not know \(-C/],
  ] as const)("%s under %j: not allowed", (command, allow, reason) => {
    const decision = decide(allow, command);
    expect(decision.mode).not.toBe("allow");
    expect(decision.reason ?? "").toMatch(reason);
  });

  // Options before the subcommand no longer hide the command it runs.
  it.each([
    ["docker compose -f x.yml exec web rm -rf /", ["docker compose:*"], "deny"],
    ["docker compose --profile dev run web rm -rf /", ["docker compose:*"], "deny"],
    ["docker compose -p proj exec web curl http://x", ["docker compose:*"], "deny"],
    ["docker-compose --project-name p run web rm -rf /", ["docker-compose:*"], "deny"],
    ["podman compose --file=x.yml exec web rm -rf /", ["podman:*"], "deny"],
    ["docker --context prod compose -f a.yml exec web rm x", ["docker:*"], "deny"],
    ["docker compose --weird exec web rm -rf /", ["docker compose:*"], "ask"],
    ["poetry -C dir run rm -rf /", ["poetry:*"], "ask"],
    ["pipenv --python 3.11 run rm -rf /", ["pipenv:*"], "ask"],
    ["hatch -e test run rm -rf /", ["hatch:*"], "ask"],
    ["bundle --verbose exec rm -rf /", ["bundle:*"], "ask"],
    ["conda -v run -n x rm -rf /", ["conda:*"], "ask"],
    ["pdm -v run rm -rf /", ["pdm:*"], "ask"],
    ["mise --cd d exec -- rm -rf /", ["mise:*"], "ask"],
    ["lxc --project p exec c -- rm -rf /", ["lxc:*"], "ask"],
  ] as const)("%s under %j: %s", (command, allow, mode) => {
    expect(decide(allow, command).mode).toBe(mode);
  });

  it.each([
    ["poetry --version", ["poetry:*"]],
    ["poetry -C dir install", ["poetry:*"]],
    ["docker compose -f x.yml up -d", ["docker compose:*"]],
    ["docker compose --profile dev logs web", ["docker compose:*"]],
  ] as const)("%s under %j: a subcommand that runs nothing stays allowed", (command, allow) => {
    expect(decide(allow, command).mode).toBe("allow");
  });
});
