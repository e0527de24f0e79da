// The API reference (docs/api.md, docs/api/*.md) is generated from the package's declarations by
// scripts/api-reference.ts. Here: the committed pages are what the generator writes now (regenerated
// in memory), and every name of every entry point is in them — counted three ways: the generator's
// syntax walk, an independent reading of the emitted .d.ts text (test/helpers/exports.ts), and the
// values the entry modules export at run time.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { committedPages, emitDeclarations, entryPoints, readApi, renderApiReference, type ApiEntry, type EntryPoint } from "../scripts/api-reference.js";
import { exportedNames } from "./helpers/exports.js";

const ROOT = join(import.meta.dirname, "..");
const declarations = emitDeclarations(ROOT);
afterAll(() => rmSync(declarations, { recursive: true, force: true }));
const api: Map<EntryPoint, ApiEntry[]> = readApi(ROOT, declarations);
const pages = renderApiReference(api);

/** The source module behind a built declaration file: dist/src/index.d.ts -> src/index.ts. */
const sourceOf = (types: string) => types.replace(/^dist\//, "").replace(/\.d\.ts$/, ".ts");

describe("API reference", () => {
  it("covers every entry point of package.json exports that has declarations", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    const withTypes = Object.values(manifest.exports).filter((t) => typeof t === "object" && t !== null && "types" in t).length;
    expect(entryPoints(ROOT).length).toBe(withTypes);
    expect([...api.keys()].map((e) => e.specifier)).toContain("guarded-graph");
    for (const entry of api.keys()) expect(pages.has(`docs/api/${entry.slug}.md`), entry.specifier).toBe(true);
  });

  it("is committed as generated (regenerate: npm run docs:api)", () => {
    const committed = committedPages(ROOT);
    expect([...committed.keys()].sort()).toEqual([...pages.keys()].sort());
    for (const [path, text] of pages) expect(committed.get(path), `${path} is out of date: run npm run docs:api`).toBe(text);
  });

  it("lists every name each entry point's declaration file exports, once, with its page heading", () => {
    for (const [entry, names] of api) {
      const dts = join(declarations, entry.types.replace(/^dist\//, ""));
      const expected = exportedNames(dts);
      expect(expected.length, entry.specifier).toBeGreaterThan(0);
      expect(names.map((e) => e.name).sort(), entry.specifier).toEqual([...expected].sort());
      const page = pages.get(`docs/api/${entry.slug}.md`) ?? "";
      for (const name of expected) expect(page, `${entry.specifier}: ${name}`).toContain(`\n### ${name}\n`);
    }
  });

  it("lists every value the entry modules export at run time, as a function, class or constant", async () => {
    for (const [entry, names] of api) {
      const module = (await import(join(ROOT, sourceOf(entry.types)))) as Record<string, unknown>;
      const byName = new Map(names.map((e) => [e.name, e]));
      for (const [name, value] of Object.entries(module)) {
        const listed = byName.get(name);
        expect(listed, `${entry.specifier}: ${name}`).toBeDefined();
        const kind = listed?.kind ?? "";
        if (typeof value === "function") expect(kind, `${entry.specifier}: ${name}`).toMatch(/^(function|class|const|let)\b/);
        else expect(kind, `${entry.specifier}: ${name}`).toMatch(/^(const|let|var|enum)\b/);
      }
    }
  }, 60_000);

  it("gives every function and class its declaration and a doc comment", () => {
    const undocumented: string[] = [];
    for (const [entry, names] of api) {
      for (const e of names) {
        if (e.kind === "function") expect(e.signature, e.name).toMatch(new RegExp(`^function ${e.name}\\b[^]*\\(`));
        if (e.kind === "class") expect(e.signature, e.name).toMatch(new RegExp(`^(abstract )?class ${e.name}\\b`));
        if ((e.kind === "function" || e.kind === "class") && e.doc === "") undocumented.push(`${entry.specifier}: ${e.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it("shows a class's public members and not its private ones", () => {
    const guard = api.get([...api.keys()].find((e) => e.specifier === "guarded-graph") as EntryPoint)?.find((e) => e.name === "GuardedToolNode");
    expect(guard?.signature).toMatch(/constructor\(options: /);
    const all = [...api.values()].flat().filter((e) => e.kind === "class");
    for (const e of all) expect(e.signature, e.name).not.toMatch(/^\s*private\s|#\w+[;:(]/m);
  });
});
