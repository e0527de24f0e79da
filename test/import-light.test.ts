/**
 * Importing the package root loads only what a first decision needs. The policy-file parsers
 * (yaml, smol-toml), the RE2 engine (re2js), the glob matcher (picomatch), the bash grammar (web-tree-sitter), the killswitch's
 * HTTP client (undici), the memory diff library and the optional peers (databases, model
 * providers, MCP) load when a feature first uses them. A child process imports src/index.ts with a
 * module-resolution hook that reports every module it loads; none of those packages may be among
 * them. Nor does the import build zod schemas (about half of the CPU the root import once added
 * to a process that has `@langchain/langgraph`): a module declares a schema with `z.lazy`, built on
 * first parse; the probe counts every other schema factory (`z.object`, `z.string`, …) called while
 * the package is imported. (The import's time and memory are measured by bench/import-cost.ts, in
 * BENCHMARKS.md.)
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

const DEFERRED = [
  "yaml",
  "smol-toml",
  "re2js",
  "picomatch",
  "web-tree-sitter",
  "undici",
  "diff",
  "better-sqlite3",
  "pg",
  "@langchain/langgraph-checkpoint-sqlite",
  "@langchain/langgraph-checkpoint-postgres",
  "@langchain/openai",
  "@langchain/mcp-adapters",
];

// Runs in the loader's thread: every resolved URL goes to stderr, one per line.
const HOOKS = `export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  process.stderr.write("LOADED " + result.url + "\\n");
  return result;
}`;
const REGISTER = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

// Node built-ins that @langchain/langgraph does not load and only some features use (the URL and
// host readings, reading a JSONL audit log, following an audit log).
const DEFERRED_BUILTINS = ["node:net", "node:readline", "node:timers/promises"];

/** The packages (by name) and Node built-ins (as `node:<name>`) a process loads while importing `url`. */
function packagesLoadedBy(url: string): Set<string> {
  const result = spawnSync(process.execPath, ["--import", TSX, "--import", `data:text/javascript,${encodeURIComponent(REGISTER)}`, "-e", `import(${JSON.stringify(url)})`], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  const names = new Set<string>();
  for (const line of result.stderr.split("\n")) {
    const match = /^LOADED .*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line);
    if (match?.[1] !== undefined) names.add(match[1]);
    const builtin = /^LOADED (node:\S+)/.exec(line);
    if (builtin?.[1] !== undefined) names.add(builtin[1]);
  }
  return names;
}

// Also runs in the loader's thread: a module of this repository that imports "zod" gets the probe,
// zod with its schema factories recording their callers (test/fixtures/import-light/zod-probe.mjs).
const PROBE = pathToFileURL(join(ROOT, "test", "fixtures", "import-light", "zod-probe.mjs")).href;
const ZOD_HOOKS = `export async function resolve(specifier, context, next) {
  const parent = context.parentURL ?? "";
  if (specifier === "zod" && parent.startsWith(${JSON.stringify(pathToFileURL(ROOT).href + "/")}) && !parent.includes("/node_modules/") && parent !== ${JSON.stringify(PROBE)}) {
    return { url: ${JSON.stringify(PROBE)}, shortCircuit: true };
  }
  return next(specifier, context);
}`;
const REGISTER_ZOD = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(ZOD_HOOKS)}`)});`;

/** The zod schema factories (with their callers) that run while a process imports \`url\`. */
function schemasBuiltBy(url: string): string[] {
  const report = "process.stdout.write(JSON.stringify(globalThis.__zodBuiltAtImport ?? []))";
  const result = spawnSync(process.execPath, ["--import", TSX, "--import", `data:text/javascript,${encodeURIComponent(REGISTER_ZOD)}`, "-e", `import(${JSON.stringify(url)}).then(() => ${report})`], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as string[];
}

describe("the root import is light", () => {
  it("the check sees a package and a built-in a module imports statically", () => {
    const loaded = packagesLoadedBy(pathToFileURL(join(ROOT, "test", "fixtures", "import-light", "eager.ts")).href);
    expect(loaded.has("yaml") && loaded.has("re2js") && loaded.has("node:net")).toBe(true);
  }, 120_000);

  it("importing guarded-graph loads none of the packages only some features need", () => {
    const loaded = packagesLoadedBy(pathToFileURL(join(ROOT, "src", "index.ts")).href);
    expect(loaded.has("@langchain/langgraph")).toBe(true);
    expect(DEFERRED.filter((name) => loaded.has(name))).toEqual([]);
    expect(loaded.has("node:fs")).toBe(true);
    expect(DEFERRED_BUILTINS.filter((name) => loaded.has(name))).toEqual([]);
  }, 120_000);

  it("the schema probe sees a schema a module builds at import, and not one it defers", () => {
    const built = schemasBuiltBy(pathToFileURL(join(ROOT, "test", "fixtures", "import-light", "eager-schema.ts")).href);
    expect(built.map((call) => call.split(" ")[0]).sort()).toEqual(["number", "object", "string"]);
    expect(built.every((call) => call.includes("eager-schema.ts:5"))).toBe(true);
  }, 120_000);

  it("importing guarded-graph builds no zod schema (each is built on first use)", () => {
    expect(schemasBuiltBy(pathToFileURL(join(ROOT, "src", "index.ts")).href)).toEqual([]);
  }, 120_000);
});
