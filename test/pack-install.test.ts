// The package as a user gets it: `npm pack`, the tarball installed into a fresh project with only
// what a user installs (langchain, @langchain/langgraph, @langchain/core, zod, @types/node), every
// example type-checked there with strict, NodeNext and skipLibCheck: false, and run. One install
// is shared by all examples; the optional peers (better-sqlite3 …) are added afterwards for the
// examples that need them, after checking that their absence is reported by name.
//
// Needs a fresh build (`npm test` builds first; alone: `npm run build && npx vitest run test/pack-install.test.ts`).
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { spawn } from "node:child_process";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_AVAILABLE, CLI_BIN, freePort } from "./helpers/langgraph-dev.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..");
const TSC = join(ROOT, "node_modules", ".bin", "tsc");
const installed = (name: string): string =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

/** What a user installs next to guarded-graph (same versions as this repository's lockfile, so the npm cache serves them). */
const USER_PACKAGES = ["langchain", "@langchain/langgraph", "@langchain/core", "zod", "@types/node"];
const OPTIONAL_PEERS = ["better-sqlite3", "pg", "@langchain/openai", "@langchain/langgraph-checkpoint-sqlite", "@langchain/langgraph-checkpoint-postgres"];
/** Examples that need a running LangGraph server: type-checked here, run by test/langgraph-dev.test.ts. */
const NEEDS_SERVER = new Set(["cli-sdk-approval"]);
/** Examples that start an MCP server (examples/mcp/, run with tsx): type-checked here, run by test/mcp-example.test.ts. */
const NEEDS_MCP_SERVER = new Set(["mcp-notes"]);
/** Examples that open SQLite: run after better-sqlite3 is added. */
const NEEDS_SQLITE = new Set(["memory-quickstart"]);

let dir = "";
const examples = readdirSync(join(ROOT, "examples"))
  .filter((name) => name.endsWith(".ts"))
  .map((name) => name.slice(0, -3))
  .sort();

async function sh(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  try {
    const { stdout, stderr } = await run(cmd, args, { cwd: options.cwd ?? dir, env: { ...process.env, ...options.env }, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const node = (file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}) => sh(process.execPath, [file, ...args], { env });

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

function nativeBuilds(path: string): string[] {
  if (!existsSync(path)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory() && !entry.isSymbolicLink()) {
      if (entry.name === "build" && existsSync(join(child, "Release"))) found.push(child);
      else found.push(...nativeBuilds(child));
    }
  }
  return found;
}

/** Installed packages that declare an install-time script (npm 11 lists them and asks to allow them). */
function installScripts(modules: string): string[] {
  if (!existsSync(modules)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(modules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dirs = entry.name.startsWith("@") ? readdirSync(join(modules, entry.name)).map((n) => join(modules, entry.name, n)) : [join(modules, entry.name)];
    for (const pkgDir of dirs) {
      const manifest = join(pkgDir, "package.json");
      if (existsSync(manifest)) {
        const scripts = (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, string> }).scripts ?? {};
        if (["preinstall", "install", "postinstall"].some((k) => k in scripts)) found.push(pkgDir.slice(modules.length + 1));
      }
      found.push(...installScripts(join(pkgDir, "node_modules")));
    }
  }
  return found;
}

beforeAll(async () => {
  const built = join(ROOT, "dist", "src", "index.js");
  expect(existsSync(built), "dist is missing: run npm run build").toBe(true);
  expect(statSync(built).mtimeMs, "dist is older than src: run npm run build").toBeGreaterThanOrEqual(newestMtime(join(ROOT, "src")) - 1);

  dir = mkdtempSync(join(tmpdir(), "gg-pack-"));
  const pack = await sh("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], { cwd: ROOT });
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = join(dir, pack.stdout.trim().split("\n").at(-1) ?? "");

  const project = join(dir, "project");
  mkdirSync(join(project, "examples"), { recursive: true });
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user-project", private: true, type: "module" }));
  const install = await sh(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, ...USER_PACKAGES.map((name) => `${name}@${installed(name)}`)],
    { cwd: project },
  );
  expect(install.code, install.stderr).toBe(0);
  dir = project;
  for (const name of examples) copyFileSync(join(ROOT, "examples", `${name}.ts`), join(project, "examples", `${name}.ts`));
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        types: ["node"],
        outDir: "out",
        rootDir: ".",
      },
      include: ["examples", "checks"],
    }),
  );
  // Small scripts that check what the examples cannot show: the errors of a light install.
  mkdirSync(join(project, "checks"));
  writeFileSync(
    join(project, "checks", "missing-openai.ts"),
    `import { createModel, GuardedGraphError } from "guarded-graph";
try {
  await createModel({ env: { OPENAI_API_KEY: "sk-test" } });
  console.log("no error");
} catch (error) {
  if (!(error instanceof GuardedGraphError)) throw error;
  console.log(error.code + " " + error.message);
}
`,
  );
  writeFileSync(
    join(project, "checks", "missing-mcp.ts"),
    `import { GuardedGraphError } from "guarded-graph";
import { connectMcpTools } from "guarded-graph/mcp";
try {
  await connectMcpTools({ mcpServers: { fs: { command: "true" } } });
  console.log("no error");
} catch (error) {
  if (!(error instanceof GuardedGraphError)) throw error;
  console.log(error.code + " " + error.message);
}
`,
  );
}, 600_000);

afterAll(() => {
  if (dir) rmSync(join(dir, ".."), { recursive: true, force: true });
});

/** A guard with command rules (deny `Bash(rm:*)`, allow `Bash(ls:*)`) run by an agent; prints what ran and each decision. */
function commandRuleScript(moduleSystem: "esm" | "cjs"): string {
  const imports =
    moduleSystem === "esm"
      ? `import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createGuardedAgent, defineTool, MemoryAuditSink, PermissionPolicy } from "guarded-graph";
import { z } from "zod";
`
      : `const { AIMessage, HumanMessage } = require("@langchain/core/messages");
const { fakeModel } = require("@langchain/core/testing");
const { createGuardedAgent, defineTool, MemoryAuditSink, PermissionPolicy } = require("guarded-graph");
const { z } = require("zod");
`;
  return `${imports}
async function main() {
  const ran = [];
  const bash = defineTool({
    name: "Bash",
    description: "Run a shell command",
    schema: z.object({ command: z.string() }),
    risk: "low",
    execute: ({ command }) => { ran.push(command); return "ran " + command; },
  });
  const permissions = new PermissionPolicy([
    { rule: "Bash(rm:*)", mode: "deny", reason: "no deleting" },
    { rule: "Bash(ls:*)", mode: "allow" },
  ]);
  const model = fakeModel()
    .respondWithTools([
      { name: "Bash", args: { command: "rm -rf /tmp/x" }, id: "call_rm" },
      { name: "Bash", args: { command: "ls -la && rm -f y" }, id: "call_hidden_rm" },
      { name: "Bash", args: { command: "ls -la" }, id: "call_ls" },
    ])
    .respond(new AIMessage("done"));
  const audit = new MemoryAuditSink();
  const agent = createGuardedAgent({ model, tools: [bash], permissions, audit });
  await agent.invoke({ messages: [new HumanMessage("tidy up")] }, { configurable: { thread_id: "t" } });
  const decisions = (await audit.query({ threadId: "t" })).filter((r) => r.event === "decision").map((r) => r.toolCallId + ":" + r.decision);
  console.log(JSON.stringify({ ran, decisions }));
}
main().catch((error) => { console.error(error); process.exitCode = 1; });
`;
}
const COMMAND_RULE_OUTPUT = JSON.stringify({ ran: ["ls -la"], decisions: ["call_rm:deny", "call_hidden_rm:deny", "call_ls:allow"] });

describe("npm pack, installed into a fresh project", { timeout: 600_000 }, () => {
  it("installs light: no optional peer, nothing compiled, no source map, no TypeScript source", () => {
    for (const name of OPTIONAL_PEERS) expect(existsSync(join(dir, "node_modules", name)), `${name} was installed`).toBe(false);
    expect(nativeBuilds(join(dir, "node_modules"))).toEqual([]);
    // Nothing for npm to warn about: no installed package runs a script at install time.
    expect(installScripts(join(dir, "node_modules"))).toEqual([]);
    // The shell grammar ships with the package (vendored wasm and its licence).
    expect(existsSync(join(dir, "node_modules", "guarded-graph", "vendor", "tree-sitter-bash", "tree-sitter-bash.wasm"))).toBe(true);
    expect(existsSync(join(dir, "node_modules", "guarded-graph", "vendor", "tree-sitter-bash", "LICENSE"))).toBe(true);
    const pkg = join(dir, "node_modules", "guarded-graph");
    expect(existsSync(join(pkg, "dist", "src", "index.js"))).toBe(true);
    expect(existsSync(join(pkg, "src"))).toBe(false);
    expect(existsSync(join(pkg, "langgraph.json"))).toBe(false);
    expect(existsSync(join(pkg, "policies", "policy.schema.json"))).toBe(true);
  });

  it("ships what the docs run and nothing the package never reads; the metadata is complete", () => {
    const pkg = join(dir, "node_modules", "guarded-graph");
    for (const name of examples) expect(existsSync(join(pkg, "examples", `${name}.ts`)), name).toBe(true);
    for (const file of ["scenarios/devops-demo.yaml", "policies/devops.yaml", "policies/etl.toml", "vendor/tree-sitter-bash/tree-sitter-bash.wasm"]) expect(existsSync(join(pkg, file)), file).toBe(true);
    expect(existsSync(join(pkg, "policies", "agentdojo"))).toBe(false);
    const dangling: string[] = [];
    const walk = (rel: string): void => {
      for (const entry of readdirSync(join(pkg, rel), { withFileTypes: true })) {
        const child = join(rel, entry.name);
        if (entry.isDirectory()) walk(child);
        else if (entry.name.endsWith(".map") || (entry.name.endsWith(".js") && readFileSync(join(pkg, child), "utf8").includes("sourceMappingURL"))) dangling.push(child);
      }
    };
    walk("dist");
    expect(dangling).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as Record<string, unknown>;
    for (const field of ["repository", "homepage", "bugs", "keywords", "license", "engines"]) expect(manifest[field], field).toBeDefined();
  });

  it("ships no stale module: every packed dist/src and dist/graphs file is built from a source file that exists", () => {
    const pkg = join(dir, "node_modules", "guarded-graph");
    const stale: string[] = [];
    const chunks: string[] = [];
    const scripts: string[] = [];
    const walk = (rel: string): void => {
      for (const entry of readdirSync(join(pkg, rel), { withFileTypes: true })) {
        const child = join(rel, entry.name);
        if (entry.isDirectory()) walk(child);
        else {
          if (child.endsWith(".js")) scripts.push(child);
          // The bundler's shared chunks (scripts/bundle-dist.ts) have no source file of their own.
          if (/^dist[\\/]src[\\/]chunks[\\/]chunk-[\w-]+\.js$/.test(child)) chunks.push(child);
          else if (!existsSync(join(ROOT, child.replace(/^dist[\\/]/, "").replace(/\.d\.ts$|\.js$/, ".ts")))) stale.push(child);
        }
      }
    };
    for (const built of ["dist/src", "dist/graphs"]) if (existsSync(join(pkg, built))) walk(built);
    expect(stale, "rebuild dist from scratch: npm run build").toEqual([]);
    // A chunk is current when another packed module imports it (each build writes a new set).
    const texts = new Map(scripts.map((s) => [s, readFileSync(join(pkg, s), "utf8")]));
    const orphans = chunks.filter((chunk) => ![...texts].some(([s, text]) => s !== chunk && text.includes(`/${basename(chunk)}"`)));
    expect(orphans, "rebuild dist from scratch: npm run build").toEqual([]);
  });

  it("type-checks every example with strict, NodeNext and skipLibCheck: false, without the optional peers", async () => {
    const result = await sh(process.execPath, [TSC, "-p", "."]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
    for (const name of examples) expect(existsSync(join(dir, "out", "examples", `${name}.js`)), name).toBe(true);
  });

  it("every example imports guarded-graph by name, never the repository's files", () => {
    for (const name of examples) {
      const text = readFileSync(join(ROOT, "examples", `${name}.ts`), "utf8");
      const specifiers = [...text.matchAll(/from "([^"]+)"/g)].map((m) => m[1] ?? "");
      expect(specifiers.filter((s) => s.startsWith(".")), name).toEqual([]);
    }
  });

  it("resolves the subpaths and the policy schema by name", async () => {
    const script = join(dir, "resolve.mjs");
    writeFileSync(
      script,
      `for (const s of ["guarded-graph", "guarded-graph/memory", "guarded-graph/testing", "guarded-graph/graphs", "guarded-graph/middleware", "guarded-graph/mcp", "guarded-graph/platform", "guarded-graph/auth", "guarded-graph/graphs/devops", "guarded-graph/graphs/etl", "guarded-graph/graphs/memory"]) {
  const m = await import(s);
  console.log(s, Object.keys(m).length);
}
const { readFileSync } = await import("node:fs");
const schema = JSON.parse(readFileSync(new URL(import.meta.resolve("guarded-graph/policy-schema.json")), "utf8"));
console.log("schema", schema.$schema !== undefined);
`,
    );
    const result = await node(script);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(
      /^guarded-graph \d+\nguarded-graph\/memory \d+\nguarded-graph\/testing \d+\nguarded-graph\/graphs \d+\nguarded-graph\/middleware \d+\nguarded-graph\/mcp \d+\nguarded-graph\/platform \d+\nguarded-graph\/auth 1\nguarded-graph\/graphs\/devops \d+\nguarded-graph\/graphs\/etl \d+\nguarded-graph\/graphs\/memory \d+\nschema true\n$/,
    );
  });

  it("runs every example that needs neither a server nor SQLite, each printing what it shows", async () => {
    const expected: Record<string, RegExp> = {
      "audit-log": /\[REDACTED\][\s\S]*"decision": "allow"/,
      "claude-settings": /curl https:\/\/example\.com"\} -> deny \(permission:user:deny\[0\]\)[\s\S]*"skill":"deploy","args":"production"\} -> deny/,
      "guard-from-policy": /agent tool: Refused kubectl_delete by rule permission:prod-protected[\s\S]*middleware: Listed staging[\s\S]*nodeGuard: true/,
      "guard-quickstart": /call_prod deny \(permission:prod\)[\s\S]*call_staging approve/,
      "killswitch-basic": /deploy_service: deny \(killswitch:restricted\)/,
      "middleware-basic": /asked: delete_deployment[\s\S]*tool: deleted staging\/web/,
      "migrate-langchain": /tool: deployed web\ntool: Refused search[\s\S]*last: Stopped: call limit reached/,
      "migrate-letta": /tool: deployed\ntool: notes saved/,
      "policy-devops": /bash \{"command":"sudo rm -fr {2}\/"\} -> deny/,
      "policy-inline": /mode: 'deny',\s+ruleId: 'permission:secrets'/,
      "policy-rollout": /"shadow": \{\s+"changed": 1,[\s\S]*"allow → deny": 2/,
      principals: /refused: 'approvers:finance: "frank" ran the call of refund and may not approve it[\s\S]*'approve by fiona for frank'/,
      "provenance-bank": /large: deny/,
      "provenance-fields": /refund: allow[\s\S]*subject: deny[\s\S]*dora: allow[\s\S]*linked: deny/,
      "rules-etl": /shown: connect_database/,
      "runtime-offline-model": /human: Tidy up the cluster\nai: /,
      "runtime-storage": /kind: 'memory'/,
      "state-schema-tool-node": /tool: pong from a\.example\n[\s\S]*tool: Refused ping by MaxCalls rule one-ping[\s\S]*the tool ran for: a\.example\n$/,
    };
    const light = examples.filter((name) => !NEEDS_SERVER.has(name) && !NEEDS_SQLITE.has(name) && !NEEDS_MCP_SERVER.has(name));
    expect(light.sort()).toEqual(Object.keys(expected).sort());
    const results = await Promise.all(
      light.map(async (name) => [name, await node(join("out", "examples", `${name}.js`), name === "runtime-storage" ? ["memory:"] : [])] as const),
    );
    for (const [name, result] of results) {
      expect(result.stderr, name).toBe("");
      expect(result.code, name).toBe(0);
      expect(result.stdout, name).toMatch(expected[name] as RegExp);
    }
  });

  it("names the optional package a feature needs when it is missing", async () => {
    const storage = await node(join("out", "examples", "runtime-storage.js"), [`sqlite:${join(dir, "c.db")}`]);
    expect(storage.code).not.toBe(0);
    // Both packages SQLite storage needs, in one message and one install command.
    expect(storage.stderr).toContain(
      'needs the optional packages "better-sqlite3" and "@langchain/langgraph-checkpoint-sqlite": run npm install better-sqlite3 @langchain/langgraph-checkpoint-sqlite',
    );
    expect(storage.stderr).toContain("GG_ERR_MISSING_DEPENDENCY");
    // The CLI blames what chose the storage: here its default, not a --db nobody passed.
    const cliStorage = await sh(join(dir, "node_modules", ".bin", "guarded-graph"), ["threads"], { env: { GUARDED_GRAPH_DB: "" } });
    expect(cliStorage.code).toBe(1);
    expect(cliStorage.stderr).toContain("the default storage (sqlite:.guarded-graph/checkpoints.db)");
    expect(cliStorage.stderr).toContain("run npm install better-sqlite3 @langchain/langgraph-checkpoint-sqlite");
    expect(cliStorage.stderr).not.toContain("--db refused");
    const openai = await node(join("out", "checks", "missing-openai.js"));
    expect(openai.stdout.trim()).toBe(
      'GG_ERR_MISSING_DEPENDENCY an OpenAI model (OPENAI_API_KEY or OPENAI_BASE_URL) needs the optional package "@langchain/openai": run npm install @langchain/openai',
    );
    const mcp = await node(join("out", "checks", "missing-mcp.js"));
    expect(mcp.stdout.trim()).toBe(
      'GG_ERR_MISSING_DEPENDENCY MCP tools (connectMcpTools, policy check --mcp) needs the optional package "@langchain/mcp-adapters": run npm install @langchain/mcp-adapters',
    );
  });

  it("runs the SQLite examples once better-sqlite3 is installed", async () => {
    // --ignore-scripts and this repository's compiled binding stand in for the prebuilt binary
    // npm would download (only the npm registry is reachable here).
    const add = await sh("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", `better-sqlite3@${installed("better-sqlite3")}`, `@langchain/langgraph-checkpoint-sqlite@${installed("@langchain/langgraph-checkpoint-sqlite")}`]);
    expect(add.code, add.stderr).toBe(0);
    const release = join("node_modules", "better-sqlite3", "build", "Release");
    mkdirSync(join(dir, release), { recursive: true });
    copyFileSync(join(ROOT, release, "better_sqlite3.node"), join(dir, release, "better_sqlite3.node"));

    const memory = await node(join("out", "examples", "memory-quickstart.js"));
    expect(memory.stderr).toBe("");
    expect(memory.stdout).toMatch(/Ada prefers short answers/);
    const storage = await node(join("out", "examples", "runtime-storage.js"), [`sqlite:${join(dir, "c.db")}`]);
    expect(storage.stderr).toBe("");
    expect(storage.stdout).toMatch(/kind: 'sqlite'[\s\S]*ran: true/);
  });

  it("the installed CLI checks the bundled policy and plays the DevOps demo graph from dist (SQLite storage)", async () => {
    const bin = join(dir, "node_modules", ".bin", "guarded-graph");
    const policy = join(dir, "node_modules", "guarded-graph", "policies", "devops.yaml");
    const plan = await sh(bin, ["policy", "check", policy]);
    expect(plan.stdout, plan.stderr).toMatch(/✓ .*devops\.yaml: no errors/);
    const demo = await sh(bin, ["demo", "--yes"], { env: { OPENAI_API_KEY: "", OPENAI_BASE_URL: "", GUARDED_GRAPH_DB: "", GUARDED_GRAPH_AUDIT: "" } });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/audit:\s+1 allowed, 1 denied, 1 asked, 1 human answer/);
  });
  it("ESM: a fresh ES module project runs a guard with command rules (the bash grammar loads on first use)", async () => {
    writeFileSync(join(dir, "checks", "command-rule.mjs"), commandRuleScript("esm"));
    const result = await node(join("checks", "command-rule.mjs"));
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(COMMAND_RULE_OUTPUT);
  });

  it("CommonJS: require('guarded-graph') and every subpath load (no top-level await anywhere), and the guard runs", async () => {
    const app = join(dir, "..", "cjs-app");
    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "cjs-app", private: true, type: "commonjs" }));
    // A CommonJS project of its own, resolving the packages installed above (NODE_PATH would also do).
    symlinkSync(join(dir, "node_modules"), join(app, "node_modules"), "dir");
    writeFileSync(join(app, "index.js"), commandRuleScript("cjs"));
    writeFileSync(
      join(app, "subpaths.js"),
      `for (const s of ["guarded-graph", "guarded-graph/memory", "guarded-graph/testing", "guarded-graph/graphs", "guarded-graph/middleware", "guarded-graph/platform", "guarded-graph/auth", "guarded-graph/graphs/devops", "guarded-graph/graphs/etl", "guarded-graph/graphs/memory"]) console.log(s, Object.keys(require(s)).length > 0);\n`,
    );
    expect(process.features.require_module, "this Node cannot require ES modules").toBe(true);
    const subpaths = await sh(process.execPath, ["subpaths.js"], { cwd: app });
    expect(subpaths.stderr).toBe("");
    expect(subpaths.stdout.trim().split("\n").every((line) => line.endsWith(" true"))).toBe(true);
    const result = await sh(process.execPath, ["index.js"], { cwd: app });
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(COMMAND_RULE_OUTPUT);
  });

  it("esbuild bundle: names the missing grammar files, then runs with them copied next to the bundle or named by GUARDED_GRAPH_ASSETS_DIR", async () => {
    // esbuild in a project of its own, so the user project above stays free of install scripts.
    const bundler = join(dir, "..", "bundler");
    mkdirSync(bundler, { recursive: true });
    writeFileSync(join(bundler, "package.json"), JSON.stringify({ name: "bundler", private: true }));
    const add = await sh("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", `esbuild@${installed("esbuild")}`], { cwd: bundler });
    expect(add.code, add.stderr).toBe(0);
    writeFileSync(join(dir, "checks", "command-rule.mjs"), commandRuleScript("esm"));
    // Far from any node_modules: the bundle has only itself and what is copied next to it.
    const out = mkdtempSync(join(tmpdir(), "gg-bundle-"));
    try {
      const build = await sh(
        join(bundler, "node_modules", ".bin", "esbuild"),
        [
          join("checks", "command-rule.mjs"),
          "--bundle",
          "--platform=node",
          "--format=esm",
          "--log-level=error",
          // The optional peers this light install lacks stay outside the bundle (loaded only when used).
          ...OPTIONAL_PEERS.map((name) => `--external:${name}`),
          "--banner:js=import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
          `--outfile=${join(out, "app.mjs")}`,
        ],
      );
      expect(build.code, build.stderr).toBe(0);
      const bare = await sh(process.execPath, ["app.mjs"], { cwd: out });
      expect(bare.code).not.toBe(0);
      expect(bare.stderr).toContain("cannot load the bash grammar");
      expect(bare.stderr).toContain("GUARDED_GRAPH_ASSETS_DIR");

      const assets = [
        join(dir, "node_modules", "web-tree-sitter", "tree-sitter.cjs"),
        join(dir, "node_modules", "web-tree-sitter", "tree-sitter.wasm"),
        join(dir, "node_modules", "guarded-graph", "vendor", "tree-sitter-bash", "tree-sitter-bash.wasm"),
      ];
      const elsewhere = join(out, "assets");
      mkdirSync(elsewhere);
      for (const file of assets) copyFileSync(file, join(elsewhere, basename(file)));
      const named = await sh(process.execPath, ["app.mjs"], { cwd: out, env: { GUARDED_GRAPH_ASSETS_DIR: elsewhere } });
      expect(named.stderr).toBe("");
      expect(named.stdout.trim()).toBe(COMMAND_RULE_OUTPUT);

      for (const file of assets) copyFileSync(file, join(out, basename(file)));
      const nextTo = await sh(process.execPath, ["app.mjs"], { cwd: out });
      expect(nextTo.stderr).toBe("");
      expect(nextTo.stdout.trim()).toBe(COMMAND_RULE_OUTPUT);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
  it.runIf(CLI_AVAILABLE)(
    "serves the user's own graph from the installed package: init, langgraph dev, /ok without a key, an approval through the SDK, the audit records",
    async () => {
      const served = join(dir, "served");
      mkdirSync(served);
      writeFileSync(join(served, "package.json"), JSON.stringify({ name: "served", private: true, type: "module" }));
      writeFileSync(
        join(served, "tools.ts"),
        `import { defineTool } from "guarded-graph";
import { z } from "zod";

export const tools = [
  defineTool({ name: "list_services", description: "List services", schema: z.object({}), risk: "low", execute: () => "web, api" }),
  defineTool({ name: "restart_service", description: "Restart a service", schema: z.object({ name: z.string() }), risk: "high", execute: ({ name }) => \`restarted \${name}\` }),
];
`,
      );
      writeFileSync(
        join(served, "policy.yaml"),
        "version: 1\npermissions:\n  - { id: restarts, tool: restart_service, mode: ask, reason: restarts need a human }\n  - { id: reads, tool: list_services, mode: allow }\n",
      );
      writeFileSync(
        join(served, "scenario.yaml"),
        "name: restart\nturns:\n  - text: Listing.\n    tool_calls:\n      - { name: list_services, args: {} }\n  - text: Restarting web.\n    tool_calls:\n      - { name: restart_service, args: { name: web } }\n  - text: Done.\n",
      );
      const bin = join(dir, "node_modules", ".bin", "guarded-graph");
      const init = await sh(bin, ["init", "--dir", "served", "--name", "ops"]);
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain("wrote served/langgraph.json, served/graph.ts, served/auth.ts");
      // The written modules type-check against the installed package (strict, NodeNext).
      writeFileSync(
        join(served, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, types: ["node"], noEmit: true }, include: ["*.ts"] }),
      );
      const types = await sh(process.execPath, [TSC, "-p", "."], { cwd: served });
      expect(types.stdout + types.stderr).toBe("");
      const again = await sh(bin, ["init", "--dir", "served"]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain("already exist; pass --force");

      const KEY = "served-graph-key-0123456789";
      const port = await freePort();
      const apiUrl = `http://127.0.0.1:${port}`;
      let log = "";
      const server = spawn(CLI_BIN as string, ["dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser"], {
        cwd: served,
        env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", GUARDED_GRAPH_AUDIT: "", GUARDED_GRAPH_API_KEYS: `ops-user:${KEY}`, GUARDED_GRAPH_SCENARIO: "./scenario.yaml" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      server.stdout?.on("data", (d: Buffer) => (log += d.toString()));
      server.stderr?.on("data", (d: Buffer) => (log += d.toString()));
      try {
        for (const deadline = Date.now() + 150_000; ; ) {
          if (server.exitCode !== null) throw new Error(`langgraph dev exited:\n${log}`);
          if (await fetch(`${apiUrl}/info`).then((r) => r.ok, () => false)) break;
          if (Date.now() > deadline) throw new Error(`langgraph dev did not answer:\n${log}`);
          await new Promise((r) => setTimeout(r, 300));
        }
        // The health probe needs no key; everything else does.
        expect((await fetch(`${apiUrl}/ok`)).status).toBe(200);
        expect((await fetch(`${apiUrl}/threads/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);

        const client = new Client({ apiUrl, apiKey: KEY });
        const thread = await client.threads.create();
        await client.runs.wait(thread.thread_id, "ops", { input: { messages: [{ type: "human", content: "restart web" }] } });
        const waiting = await client.threads.getState(thread.thread_id);
        const request = waiting.tasks.flatMap((task) => task.interrupts ?? [])[0]?.value as { actionRequests?: { name: string; ruleId: string }[] } | undefined;
        expect(request?.actionRequests?.map((a) => `${a.name}:${a.ruleId}`), log.slice(-3000)).toEqual(["restart_service:permission:restarts"]);
        await client.runs.wait(thread.thread_id, "ops", { command: { resume: { decisions: [{ type: "approve" }] } } });
        const final = await client.threads.getState(thread.thread_id);
        expect(final.next).toEqual([]);
        const messages = (final.values as { messages: { type: string; content: unknown }[] }).messages;
        expect(messages.filter((m) => m.type === "tool").map((m) => m.content)).toEqual(["web, api", "restarted web"]);

        // The audit log is on without configuration (served/.guarded-graph/audit.jsonl), read by the installed CLI.
        const audit = await sh(bin, ["audit", thread.thread_id], { cwd: served, env: { GUARDED_GRAPH_AUDIT: "" } });
        expect(audit.code, audit.stderr).toBe(0);
        expect(audit.stdout).toMatch(/decision allow +list_services/);
        expect(audit.stdout).toMatch(/decision ask +restart_service .*rule=permission:restarts/);
        expect(audit.stdout).toMatch(/human +approve +restart_service .*actor=ops-user/);
        expect(audit.stdout).toMatch(/outcome +success +restart_service/);
        const remote = await sh(bin, ["audit", thread.thread_id, "--url", apiUrl, "--api-key", KEY, "--json"], { cwd: served, env: { GUARDED_GRAPH_AUDIT: "" } });
        expect(remote.code, remote.stderr).toBe(0);
        expect(remote.stdout.trim().split("\n")).toHaveLength(audit.stdout.trim().split("\n").length);
        const unknown = await sh(bin, ["audit", "no-such-thread", "--url", apiUrl, "--api-key", KEY], { cwd: served });
        expect(unknown.code).not.toBe(0);
        expect(unknown.stderr).toContain("reading thread no-such-thread");
      } finally {
        if (server.pid !== undefined && server.exitCode === null) {
          const exited = new Promise((r) => server.once("exit", r));
          process.kill(-server.pid, "SIGTERM");
          await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
          if (server.exitCode === null) process.kill(-server.pid, "SIGKILL");
        }
      }
    },
    300_000,
  );
});
