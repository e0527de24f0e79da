/**
 * No import circles in the library.
 *
 * The rule: every module under src/ (and every module of this repository that src/ reaches, such as
 * graphs/) is a node; an edge is ANY reference from one module to another: `import`, `import type`,
 * `export … from`, `export type … from`, a dynamic `import()` and a type-level `import("…")`. A
 * type-only edge counts because a circle of types is still modules that cannot be understood, moved
 * or tested one without the other; a dynamic import counts because deferring a load does not remove
 * the dependency. The graph must have no cycle. Fix a circle by moving the shared type or constant to
 * the module that owns it, not by a lazy import.
 *
 * The edges are the TypeScript compiler's own: `tsc --explainFiles` lists, for every file of the
 * program, each file that imports it and how (value, type or dynamic, all resolved by the compiler).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { findCycles } from "../src/rules/graph.js";

const ROOT = resolve(import.meta.dirname, "..");
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/**
 * The module graph of the program a tsconfig describes, as the compiler resolved it: file → files
 * it references. Only files below `root` and outside node_modules are nodes.
 */
function moduleGraph(project: string, root: string): Map<string, Set<string>> {
  let out: string;
  try {
    out = execFileSync(process.execPath, [TSC, "-p", project, "--noEmit", "--explainFiles", "--pretty", "false"], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch (error) {
    // Type errors exit non-zero; the explanation is printed all the same.
    out = String((error as { stdout?: unknown }).stdout ?? "");
    if (out === "") throw error;
  }
  const local = (path: string): string | undefined => {
    const absolute = isAbsolute(path) ? path : resolve(root, path);
    const rel = relative(root, absolute);
    return rel.startsWith("..") || rel.split(/[\\/]/).includes("node_modules") ? undefined : rel;
  };
  const graph = new Map<string, Set<string>>();
  let current: string | undefined;
  let files = 0;
  for (const line of out.split("\n")) {
    if (line.trim() === "") continue;
    if (!/^\s/.test(line)) {
      files += 1;
      current = local(line.trim());
      if (current !== undefined && !graph.has(current)) graph.set(current, new Set());
      continue;
    }
    const importer = /^\s+Imported via (?:"[^"]*"|'[^']*') from file '([^']+)'/.exec(line)?.[1];
    if (current === undefined || importer === undefined) continue;
    const from = local(importer);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)?.add(current);
  }
  if (files === 0) throw new Error(`tsc --explainFiles listed no file:\n${out.slice(0, 2000)}`);
  return graph;
}

/** One line per circle (one per strongly connected component): a closed path of modules. */
function circleReport(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const edges = [...graph].flatMap(([from, to]) => [...to].map((target) => ({ before: from, after: target, ruleId: "import" })));
  return findCycles(edges).map((c) => c.join(" -> "));
}

describe("import circles", () => {
  it("the checker counts every spelling of an import: type-only, re-exports, dynamic and import() types", () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-circles-"));
    try {
      const write = (name: string, text: string) => writeFileSync(join(dir, name), text);
      write("tsconfig.json", JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: [] }, include: ["*.ts"] }));
      write("package.json", JSON.stringify({ type: "module" }));
      // One file per spelling, each in a two-module circle with a.ts (a.ts refers back to all of them with a type query).
      const spellings: Record<string, string> = {
        "t1.ts": 'import type { A } from "./a.js";\nexport type T1 = A;\n',
        "t2.ts": 'import { type A } from "./a.js";\nexport type T2 = A;\n',
        "t3.ts": 'export type { A } from "./a.js";\nexport type T3 = 3;\n',
        "t4.ts": 'export * from "./a.js";\nexport type T4 = 4;\n',
        "t5.ts": 'export async function load() { return import("./a.js"); }\nexport type T5 = 5;\n',
        "t6.ts": 'export type T6 = import("./a.js").A;\n',
        "t7.ts": 'import { a } from "./a.js";\nexport const t7 = a;\nexport type T7 = 7;\n',
      };
      for (const [name, text] of Object.entries(spellings)) write(name, text);
      const names = Object.keys(spellings).map((n) => n.replace(/\.ts$/, ""));
      write("a.ts", `export type A = string;\nexport const a = 1;\n${names.map((n) => `export type Use${n} = import("./${n}.js").${n.toUpperCase()};`).join("\n")}\n`);
      write("free.ts", 'import type { A } from "./a.js";\nexport type Free = A;\n');
      const graph = moduleGraph(join(dir, "tsconfig.json"), dir);
      for (const n of names) expect([`${n}.ts`, [...(graph.get(`${n}.ts`) ?? [])]]).toEqual([`${n}.ts`, ["a.ts"]]);
      // All of them are in one circle with a.ts (one strongly connected component); free.ts is in none.
      const report = circleReport(graph);
      expect(report).toHaveLength(1);
      expect(report[0]).toMatch(/^(a|t\d)\.ts -> .* -> (a|t\d)\.ts$/);
      expect(report[0]).not.toContain("free.ts");
      // Remove the type queries from a.ts: no circle is left.
      write("a.ts", "export type A = string;\nexport const a = 1;\n");
      expect(circleReport(moduleGraph(join(dir, "tsconfig.json"), dir))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("src/ has no import circle (value or type, static or dynamic)", () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-circles-src-"));
    try {
      const project = join(dir, "tsconfig.json");
      writeFileSync(project, JSON.stringify({ extends: join(ROOT, "tsconfig.json"), include: [join(ROOT, "src")] }));
      const graph = moduleGraph(project, ROOT);
      expect([...graph.keys()].filter((f) => f.startsWith("src/")).length).toBeGreaterThan(100);
      expect(circleReport(graph)).toEqual([]);
      // The built-in tools use the sources (the source tool, the file tool's re-export), never the other way.
      const backwards = [...graph].flatMap(([from, to]) => (from.startsWith("src/sources/") ? [...to].filter((t) => t.startsWith("src/builtin/")).map((t) => `${from} -> ${t}`) : []));
      expect(backwards).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
