// The docs as a user reads them (README.md, docs/*.md and the generated API reference in docs/api/):
// - they speak to users: no reference to this repository's test files, seed documents, issues,
//   work sessions or internal labels (a user cannot open them, and they say nothing about what to do);
// - every TypeScript/JavaScript block is marked: a complete program (```ts, type-checked against the
//   built package with strict NodeNext settings and skipLibCheck off, as a user's project would import it, then run
//   offline), an example file (`<!-- example: PATH -->`, kept equal to the file and run by its own test,
//   see readme.test.ts), or a fragment (```ts fragment, not run);
// - the `npx guarded-graph …` commands of the shell blocks run, in order, in a fresh directory, and
//   the `$ guarded-graph …` transcripts run block by block in a fresh project (the package in its
//   node_modules) and print the output lines they show (`…` elides);
// - every name a block imports from the package exists, every YAML/TOML block loads (a policy file,
//   or a scenario), and every LangGraph CLI version named is the pinned one.
//
// Needs a fresh build (`npm run build`): the blocks import "guarded-graph" as a user does, which
// resolves through package.json "exports" to dist/.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseScenario } from "../src/model/scenario.js";
import { parsePolicy } from "../src/policy/index.js";
import { exportedNames } from "./helpers/exports.js";
import { codeBlocks, docPaths, README_PATH, type CodeBlock } from "./helpers/readme.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");
const BIN = join(ROOT, "bin", "guarded-graph.js");

/** The pages a user reads: README.md, docs/*.md and docs/api/*.md (generated). */
function userPages(): string[] {
  const api = join(ROOT, "docs", "api");
  const reference = existsSync(api) ? readdirSync(api).filter((n) => n.endsWith(".md")).sort().map((n) => join(api, n)) : [];
  return [README_PATH, ...docPaths(), ...reference];
}

/**
 * What a page for users must not mention, with the reason. Each pattern is checked line by line
 * (code blocks included: a comment in an example is read too).
 */
const FORBIDDEN: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  { pattern: /\btest\/|\.test\.ts\b|\btest\/helpers\b|\btest\/fixtures\b/, what: "a test file of this repository" },
  { pattern: /\btest suite\b|\bthe tests? (shows?|proves?|pins?|checks?|runs?)\b|\b(tested|shown|checked|pinned|proved|proven) (in|by) (a |the )?`?test/i, what: "the test suite as the evidence" },
  { pattern: /\bseeds?\b|\bseed-\d+/i, what: "a seed document" },
  { pattern: /\bissue #?\d+\b|\bwhen the issue was filed\b/i, what: "an issue" },
  { pattern: /\b(this|the|a|previous|last|mid-) ?session\b(?! advisory)|\bmid-session\b|\bon this branch\b|\bother helpers\b|\bthe lead\b/i, what: "a work session or its people" },
  { pattern: /\bt\d{1,2}[a-z]\b|\b[LHW]\d{1,2}\b/, what: "an internal label (t13a, L11, H9, W2): say in words what it is" },
  {
    pattern: /(?<![./\w])src\/(guard|policy|provenance|messages|storage|rules|audit|cli|tools|memory|sources|builtin|killswitch|platform|middleware|mcp|model|errors|entry|optional)\b/,
    what: "a source file of this repository (not in the package): say what it does",
  },
];

interface Hit {
  readonly page: string;
  readonly line: number;
  readonly text: string;
  readonly what: string;
}

/** Every forbidden reference of a text, by line. */
function forbiddenReferences(page: string, text: string): Hit[] {
  const hits: Hit[] = [];
  text.split("\n").forEach((line, i) => {
    for (const { pattern, what } of FORBIDDEN) {
      const m = pattern.exec(line);
      if (m) hits.push({ page, line: i + 1, text: m[0], what });
    }
  });
  return hits;
}

const CODE_LANGS = new Set(["ts", "typescript", "js", "javascript", "mjs", "mts", "tsx"]);
const SHELL_LANGS = new Set(["sh", "bash", "shell", "console"]);

interface PageBlock extends CodeBlock {
  readonly page: string;
}

const pages = userPages();
const blocks: PageBlock[] = pages.flatMap((page) => codeBlocks(readFileSync(page, "utf8")).map((b) => ({ ...b, page: relative(ROOT, page) })));
const complete = blocks.filter((b) => CODE_LANGS.has(b.lang) && b.example === undefined && !b.flags.includes("fragment") && !b.page.startsWith("docs/api/"));
const where = (b: PageBlock) => `${b.page}:${b.line}`;

/** The `npx guarded-graph …` commands of a shell block, without trailing comments and pipes. */
function guardedGraphCommands(body: string): string[][] {
  const commands: string[][] = [];
  for (const raw of body.split("\n")) {
    const line = raw.replace(/\s+#.*$/, "").replace(/\s*\|.*$/, "").trim();
    if (!line.startsWith("npx guarded-graph ")) continue;
    const words = [...line.slice("npx guarded-graph ".length).matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
    commands.push(words);
  }
  return commands;
}

/** One `$ guarded-graph …` line of a transcript block, with the environment it sets and the output it shows. */
interface TranscriptStep {
  readonly env: Record<string, string>;
  readonly words: string[];
  readonly shown: string[];
}

/** The steps of a transcript (`$ [VAR=value …] guarded-graph …` lines, each followed by its output). */
function transcriptSteps(body: string): TranscriptStep[] {
  const steps: { env: Record<string, string>; words: string[]; shown: string[] }[] = [];
  for (const line of body.split("\n")) {
    if (line.startsWith("$ ")) {
      const words = [...line.slice(2).replace(/\s+#.*$/, "").matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
      const env: Record<string, string> = {};
      while (/^[A-Z_]+=/.test(words[0] ?? "")) {
        const [name = "", ...value] = (words.shift() ?? "").split("=");
        env[name] = value.join("=");
      }
      if (words.shift() !== "guarded-graph") throw new Error(`not a guarded-graph command: ${line}`);
      steps.push({ env, words, shown: [] });
    } else if (line.trim() !== "") steps.at(-1)?.shown.push(line);
  }
  return steps;
}

/** A shown output line as a pattern: `…` stands for any text, a timestamp for any timestamp, spaces for any spaces. */
function shownPattern(line: string): RegExp {
  const escaped = line
    .trim()
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*")
    .replace(/\d{4}-\d\d-\d\dT[\d:]+\\\.\d+Z/g, "\\S+")
    .replace(/\s+/g, "\\s+");
  return new RegExp(`^${escaped}$`);
}

/**
 * Commands that are safe to run from the docs in a scratch directory: offline (the scripted model,
 * SQLite in the directory), no server. Others (a `--url`, `--mcp` starting servers) are left to the
 * tests of their features.
 */
function runnable(words: readonly string[]): boolean {
  return ["run", "approve", "reject", "edit", "show", "threads", "audit", "init", "policy", "sticky"].includes(words[0] ?? "") && !words.some((w) => w === "--url" || w === "--mcp");
}

const scratch = mkdtempSync(join(ROOT, ".typecheck-docs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.[cm]?[jt]s$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Files a user reads in a shipped folder: code, policies, scenarios (not the agentdojo corpus, which is not shipped). */
function sourceFilesAndData(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === "agentdojo" ? [] : sourceFilesAndData(join(dir, e.name))) : /\.(ts|js|ya?ml|toml|md|json)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

async function sh(cmd: string, args: string[], cwd: string, timeout = 120_000, env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(cmd, args, {
      cwd,
      timeout,
      env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", GUARDED_GRAPH_DB: "", GUARDED_GRAPH_AUDIT: "", GUARDED_GRAPH_URL: "", GUARDED_GRAPH_SCENARIO: "", ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("the docs speak to users", () => {
  it("finds the pages and their code blocks", () => {
    expect(pages.length).toBeGreaterThanOrEqual(19);
    expect(blocks.filter((b) => CODE_LANGS.has(b.lang)).length).toBeGreaterThan(20);
  });

  it("the check catches each kind of reference (it can fail)", () => {
    const text = [
      "as test/approval.test.ts shows",
      "the test suite shows this",
      "seed 001's InitialCall",
      "the seed-004 tools",
      "before and after (issue 16)",
      "counted mid-session",
      "see (t13a)",
      "(L11) the turn that crosses a limit",
      "W2 in BENCHMARKS.md",
      "the code is in `src/provenance/`",
    ];
    expect(text.map((line) => forbiddenReferences("x.md", line).length)).toEqual(text.map(() => 1));
    expect(forbiddenReferences("x.md", "PostgreSQL: a session advisory lock; HTTP/2; RE2; an L-shaped path; BM25; --tools ./src/tools.ts").length).toBe(0);
  });

  it("no page mentions test files, seed documents, issues, sessions or internal labels; nor do the examples, policies and scenarios the package ships", () => {
    const shipped = ["examples", "policies", "scenarios"].flatMap((dir) => sourceFilesAndData(join(ROOT, dir)));
    expect(shipped.length).toBeGreaterThan(10);
    const hits = [...pages, ...shipped].flatMap((page) => forbiddenReferences(relative(ROOT, page), readFileSync(page, "utf8")));
    expect(hits.map((h) => `${h.page}:${h.line}: ${JSON.stringify(h.text)} (${h.what})`)).toEqual([]);
  });

  it("every TypeScript/JavaScript block is marked: a complete program, an example file, or ```ts fragment", () => {
    for (const b of blocks.filter((b) => CODE_LANGS.has(b.lang))) {
      expect(b.flags.filter((f) => f !== "fragment"), `${where(b)}: unknown flag`).toEqual([]);
      // A complete program imports what it uses; a block without a single import is a fragment or a shape.
      if (complete.includes(b)) expect(b.body, `${where(b)}: a complete program imports the package (else mark it \`\`\`ts fragment)`).toMatch(/^import /m);
    }
    expect(complete.length).toBeGreaterThan(0);
  });
});

describe("names the docs import", () => {
  it("every name a code block (fragments too) imports from the package is exported by that entry point", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; exports: Record<string, string | { types?: string }> };
    const exported = new Map<string, Set<string>>();
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target !== "object" || !target.types) continue;
      const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      exported.set(specifier, new Set(exportedNames(join(ROOT, target.types))));
    }
    const missing: string[] = [];
    let checked = 0;
    for (const b of blocks.filter((b) => CODE_LANGS.has(b.lang))) {
      for (const m of b.body.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(guarded-graph(?:\/[\w/-]+)?)"/g)) {
        const names = exported.get(m[2] ?? "");
        for (const part of (m[1] ?? "").split(",")) {
          const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]?.trim() ?? "";
          if (name === "") continue;
          checked++;
          if (!names?.has(name)) missing.push(`${where(b)}: ${name} from "${m[2]}"`);
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});

describe("policy files and scenarios the docs show", () => {
  it("every YAML/TOML block loads: as a scripted-model scenario when it has turns, else as a policy file", () => {
    const failures: string[] = [];
    let policies = 0;
    for (const b of blocks.filter((b) => ["yaml", "yml", "toml"].includes(b.lang) || (b.lang === "json" && /"permissions"/.test(b.body))).filter((b) => !b.flags.includes("fragment"))) {
      try {
        if (b.lang === "json") {
          // A Claude Code settings file, read as a policy.
          parsePolicy(b.body, "json", where(b));
          policies++;
        } else if (/^turns:/m.test(b.body)) parseScenario(parseYaml(b.body), where(b));
        else {
          parsePolicy(b.body, b.lang === "toml" ? "toml" : "yaml", where(b));
          policies++;
        }
      } catch (error) {
        failures.push(`${where(b)}: ${String(error).slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(policies).toBeGreaterThan(5);
  });
});

describe("environment variables the docs name", () => {
  it("every GUARDED_GRAPH_* variable of the docs is read by the code", () => {
    const code = ["src", "graphs", "bin"].flatMap((dir) => sourceFiles(join(ROOT, dir))).map((f) => readFileSync(f, "utf8")).join("\n");
    const named = new Set(pages.flatMap((page) => [...readFileSync(page, "utf8").matchAll(/\bGUARDED_GRAPH_[A-Z_]*[A-Z]\b/g)].map((m) => m[0])));
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((name) => !code.includes(name))).toEqual([]);
  });
});

describe("versions the docs name", () => {
  it("every `@langchain/langgraph-cli@VERSION` is the pinned one (package.json config.langgraphCli)", () => {
    const pinned = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { config: { langgraphCli: string } }).config.langgraphCli;
    const named = pages.flatMap((page) => [...readFileSync(page, "utf8").matchAll(/@langchain\/langgraph-cli@([\w.-]+)/g)].map((m) => `${relative(ROOT, page)}: ${m[1]}`));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((n) => !n.endsWith(`: ${pinned}`))).toEqual([]);
  });
});

describe("the runnable blocks run", () => {
  it("every complete TypeScript block type-checks against the built package (strict, NodeNext), then runs offline", async () => {
    const built = join(ROOT, "dist", "src", "index.js");
    expect(existsSync(built), "dist is missing: run npm run build").toBe(true);
    expect(statSync(built).mtimeMs, "dist is older than src: run npm run build").toBeGreaterThanOrEqual(newestMtime(join(ROOT, "src")) - 1);
    const files = complete.map((b) => {
      const name = `${b.page.replace(/[^\w]+/g, "-")}-${b.line}.ts`;
      writeFileSync(join(scratch, name), b.body);
      return { block: b, name };
    });
    // No `paths`: "guarded-graph" resolves as in a user's project, through package.json "exports".
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023"],
          types: ["node"],
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: files.map((f) => f.name),
      }),
    );
    const check = await sh(process.execPath, [TSC, "-p", join(scratch, "tsconfig.json"), "--pretty", "false"], scratch);
    expect(check.stdout + check.stderr, "type errors in the docs' complete blocks").toBe("");
    for (const { block, name } of files) {
      const result = await sh(process.execPath, ["--import", "tsx", join(scratch, name)], scratch, 60_000);
      expect(result.code, `${where(block)} exits 0:\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
  }, 300_000);

  it("the `npx guarded-graph …` commands of the shell blocks run in order, in a fresh directory, offline", async () => {
    const shell = blocks.filter((b) => SHELL_LANGS.has(b.lang) && guardedGraphCommands(b.body).length > 0);
    expect(shell.length).toBeGreaterThan(0);
    let ran = 0;
    for (const block of shell) {
      const dir = mkdtempSync(join(tmpdir(), "gg-docs-sh-"));
      try {
        for (const words of guardedGraphCommands(block.body)) {
          if (!runnable(words)) continue;
          const result = await sh(process.execPath, [BIN, ...words], dir);
          expect(result.code, `${where(block)}: npx guarded-graph ${words.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0);
          ran++;
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`docs: ran ${ran} guarded-graph commands from ${shell.length} shell blocks`);
    expect(ran).toBeGreaterThanOrEqual(4);
  }, 300_000);
});

describe("transcripts", () => {
  it("the `$ guarded-graph …` transcripts run in order in a fresh project, and print what they show (… for elided text)", async () => {
    const shell = blocks.filter((b) => SHELL_LANGS.has(b.lang) && !b.flags.includes("fragment") && /^\$ /m.test(b.body));
    expect(shell.length).toBeGreaterThan(0);
    const mismatches: string[] = [];
    let ran = 0;
    for (const block of shell) {
      // A user's project: the package installed in node_modules (paths like node_modules/guarded-graph/scenarios/… work).
      const dir = mkdtempSync(join(tmpdir(), "gg-docs-transcript-"));
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(ROOT, join(dir, "node_modules", "guarded-graph"), "dir");
      try {
        for (const step of transcriptSteps(block.body)) {
          const result = await sh(process.execPath, [BIN, ...step.words], dir, 120_000, step.env);
          ran++;
          const printed = `${result.stdout}\n${result.stderr}`.split("\n").map((l) => l.trim());
          for (const line of step.shown.filter((l) => l.trim() !== "…")) {
            if (!printed.some((p) => shownPattern(line).test(p))) mismatches.push(`${where(block)}: guarded-graph ${step.words.join(" ")}: not printed: ${line.trim()}\n${result.stdout}${result.stderr}`);
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(`docs: ran ${ran} transcript commands from ${shell.length} blocks`);
    expect(mismatches).toEqual([]);
  }, 300_000);

  it("reads a transcript: environment, words, shown lines; a shown line matches with … and timestamps as wildcards", () => {
    expect(transcriptSteps('$ A=b guarded-graph run x "two words"   # comment\nout 1\n…\n$ guarded-graph threads')).toEqual([
      { env: { A: "b" }, words: ["run", "x", "two words"], shown: ["out 1", "…"] },
      { env: {}, words: ["threads"], shown: [] },
    ]);
    expect(shownPattern("guard    allow  kubectl_get (call_0_0)  rule permission:k8s-read: …read-only kubectl").test("guard    allow  kubectl_get (call_0_0)  rule permission:k8s-read: read-only kubectl")).toBe(true);
    expect(shownPattern("ops-1   devops   2026-11-22T00:02:54.279Z  waiting for approval (1 call)").test("ops-1 devops 2027-01-01T10:00:00.000Z waiting for approval (1 call)")).toBe(true);
    expect(shownPattern("⏸  approval needed on thread ops-2: 2 pending calls").test("⏸  approval needed on thread ops-2: 1 pending call")).toBe(false);
  });
});

describe("guardedGraphCommands", () => {
  it("reads the words as a shell does: quotes, trailing comment, pipe", () => {
    expect(guardedGraphCommands('npx guarded-graph run devops "Tidy up" --thread t1   # streams\nnpx guarded-graph audit t1 --json | head\nnpm test')).toEqual([
      ["run", "devops", "Tidy up", "--thread", "t1"],
      ["audit", "t1", "--json"],
    ]);
    expect(basename(BIN)).toBe("guarded-graph.js");
  });
});
