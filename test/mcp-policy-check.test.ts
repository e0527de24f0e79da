// `guarded-graph policy check FILE --mcp CONFIG`: the tools of the configured MCP servers (a real
// server, test/fixtures/mcp, over stdio and over streamable HTTP) are known to the check, so rules
// naming unknown MCP tools or arguments, arguments read as the wrong kind (a URL as a path), trust in
// a server with no tools and risks lower than an annotation's are errors.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../src/cli/errors.js";
import { startHttpServer, type HttpFixture } from "./fixtures/mcp/fs-server.js";
import { runPolicyCommand } from "./helpers/policy-command.js";
import { nodeArgsFor } from "./helpers/ts-entry.js";

const SERVER = fileURLToPath(new URL("./fixtures/mcp/fs-server.ts", import.meta.url));

let dir: string;
let http: HttpFixture;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gg-mcp-check-"));
  http = await startHttpServer(dir);
  writeFileSync(join(dir, "stdio.json"), JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: nodeArgsFor(SERVER, dir) } } }));
  writeFileSync(join(dir, "http.json"), JSON.stringify({ mcpServers: { fs: { type: "http", url: http.url } } }));
}, 120_000);

afterAll(async () => {
  await http.close();
  rmSync(dir, { recursive: true, force: true });
});

function policy(name: string, yaml: string): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

const GOOD = `
mcp:
  trustAnnotations: [fs]
permissions:
  - { id: etc, rule: "mcp__fs__delete_file(path:/etc/**)", mode: deny }
  - { id: evil, tool: mcp__fs__describe_url, where: { url: { domain: evil.example } }, mode: deny }
  - { id: reads, rule: "mcp__fs__read_file", mode: allow }
`;

const BAD = `
mcp:
  trustAnnotations: [github]
tools:
  mcp__fs__delete_file: { risk: low }
permissions:
  - { id: typo-tool, rule: "mcp__fs__remove_file(path:/etc/**)", mode: deny }
  - { id: typo-field, tool: mcp__fs__delete_file, where: { file: { path: /etc/** } }, mode: deny }
  - { id: url-as-path, tool: mcp__fs__describe_url, where: { url: { path: /etc/** } }, mode: deny }
`;

describe.each(["stdio", "http"])("policy check --mcp over %s", (transport) => {
  it("a policy that fits the server's tools passes", async () => {
    const { code, out } = await runPolicyCommand(["check", policy(`good-${transport}.yaml`, GOOD), "--mcp", join(dir, `${transport}.json`)]);
    expect(out.filter((line) => line.startsWith("error"))).toEqual([]);
    expect(code).toBe(0);
  }, 120_000);

  it("unknown MCP tools and arguments, a URL argument read as a path, an untrusted server name and a risk below the annotation's are errors", async () => {
    const { code, out } = await runPolicyCommand(["check", policy(`bad-${transport}.yaml`, BAD), "--mcp", join(dir, `${transport}.json`), "--json"]);
    expect(code).toBe(1);
    const { errors } = JSON.parse(out.join("\n")) as { errors: string[] };
    const expected = [
      /typo-tool.*"mcp__fs__remove_file", which matches no known tool \(known: .*mcp__fs__delete_file/,
      /typo-field.*tool mcp__fs__delete_file has no argument "file" \(its arguments: path\)/,
      /url-as-path.*reads it as a path, but mcp__fs__describe_url's schema says url is a URL/,
      /mcp\.trustAnnotations names the server "github", but no tool is named mcp__github__TOOL \(known servers: fs\)/,
      /tools\.mcp__fs__delete_file\.risk: low is lower than the high risk mcp__fs__delete_file declares/,
    ];
    for (const pattern of expected) expect(errors.some((e) => pattern.test(e)), `${pattern}\n${errors.join("\n")}`).toBe(true);
    expect(errors).toHaveLength(expected.length);
  }, 120_000);

  it("without --mcp the same rules are only warnings: the tools are not known", async () => {
    const { code } = await runPolicyCommand(["check", policy(`bad-nomcp-${transport}.yaml`, BAD.replace("trustAnnotations: [github]", "trustAnnotations: []"))]);
    expect(code).toBe(0);
  });
});

describe("policy explain --mcp", () => {
  it("explains an MCP call with the risk its annotations give under the policy's trust", async () => {
    const strict = policy("explain-strict.yaml", "permissions: []\n");
    const trusting = policy("explain-trusting.yaml", "mcp: { trustAnnotations: [fs] }\n");
    const explain = async (file: string, tool: string) => (await runPolicyCommand(["explain", file, "--tool", tool, "--args", '{"path":"/tmp/x"}', "--mcp", join(dir, "stdio.json")])).out.join("\n");
    expect(await explain(strict, "mcp__fs__delete_file")).toMatch(/Decision: ask by risk:high[\s\S]*risk high/);
    expect(await explain(strict, "mcp__fs__tidy_file")).toMatch(/Decision: ask by default:ask/);
    expect(await explain(trusting, "mcp__fs__tidy_file")).toMatch(/Decision: allow by risk:low[\s\S]*risk low/);
  }, 120_000);
});

describe("policy check --mcp refuses a configuration it cannot read back from tool names", () => {
  it("a server name with __ is an error, as is a server that cannot be reached", async () => {
    writeFileSync(join(dir, "sep.json"), JSON.stringify({ mcpServers: { "my__fs": { command: process.execPath, args: nodeArgsFor(SERVER, dir) } } }));
    await expect(runPolicyCommand(["check", policy("g1.yaml", "permissions: []\n"), "--mcp", join(dir, "sep.json")])).rejects.toThrow(/contains "__"/);
    writeFileSync(join(dir, "down.json"), JSON.stringify({ mcpServers: { fs: { type: "http", url: "http://127.0.0.1:9/mcp" } } }));
    await expect(runPolicyCommand(["check", policy("g2.yaml", "permissions: []\n"), "--mcp", join(dir, "down.json")])).rejects.toBeInstanceOf(CliError);
  }, 120_000);
});
