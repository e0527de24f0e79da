// The API reference (docs/api.md, docs/api/*.md) is generated from the package's declarations by
// scripts/api-reference.ts. Here: the committed pages are what the generator writes now (regenerated
// in memory), and every name of every entry point is in them — counted three ways: the generator's
// syntax walk, an independent reading of the emitted .d.ts text (test/helpers/exports.ts), and the
// values the entry modules export at run time.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { committedPages, emitDeclarations, entryPoints, readApi, renderApiReference, type ApiEntry, type EntryPoint } from "../scripts/api-reference.js";
import { exportedNames } from "./helpers/exports.js";
import { anchors } from "./helpers/readme.js";

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

  it("says what each entry point is for (its module's leading comment: // \"guarded-graph/x\": …)", () => {
    for (const entry of api.keys()) expect(entry.summary, `${entry.specifier}: start its module with // "${entry.specifier}": what it is for.`).toMatch(/^[A-Z].{20,}/);
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

  it("every link of the reference points at a page and heading that exist", () => {
    let checked = 0;
    for (const [path, text] of pages) {
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const [file = "", anchor] = (m[1] ?? "").split("#");
        const target = file === "" ? path : join(dirname(path), file).replace(/\\/g, "/");
        const page = pages.get(target);
        expect(page, `${path} -> ${m[1]}`).toBeDefined();
        if (anchor) expect(anchors(page ?? "").has(anchor), `${path} -> ${m[1]}`).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

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

describe("API reference generator on a package of its own", () => {
  it("follows every export form to its declaration, with overloads, merged declarations and public members only", () => {
    const root = mkdtempSync(join(tmpdir(), "gg-api-fixture-"));
    try {
      const write = (path: string, text: string) => {
        mkdirSync(dirname(join(root, path)), { recursive: true });
        writeFileSync(join(root, path), text);
      };
      write("package.json", JSON.stringify({ name: "pkg", exports: { ".": { types: "./dist/index.d.ts" }, "./extra": { types: "./dist/extra.d.ts", import: "./dist/extra.js" }, "./schema.json": "./schema.json" } }));
      write("tsconfig.build.json", JSON.stringify({ compilerOptions: { outDir: "dist" } }));
      const out = join(root, "emitted");
      write("emitted/index.d.ts", [
        'export * from "./a.js";',
        'export { inner as renamed } from "./b.js";',
        'import { viaImport } from "./b.js";',
        "/** Re-exported after an import. */",
        "declare const local: number;",
        "export { viaImport, local };",
        'export * as ns from "./b.js";',
        "export default local;",
      ].join("\n"));
      write("emitted/a.d.ts", [
        "/** Adds. */",
        "export declare function add(a: number): number;",
        "export declare function add(a: string): string;",
        "/** A class. */",
        "export declare class Box {",
        "    #secret;",
        "    private hidden;",
        "    /** @internal */",
        "    internalOnly(): void;",
        "    /** The value. */",
        "    readonly value: number;",
        "    constructor(value: number);",
        "}",
        "/** Both a value and a type. */",
        "export declare const Mode: { readonly a: \"a\" };",
        "export type Mode = \"a\";",
        "interface NotExported { x: 1 }",
      ].join("\n"));
      write("emitted/b.d.ts", "/** Inner doc. */\nexport interface inner {\n    /** A field. */\n    field: string;\n}\nexport declare function viaImport(): void;\n");
      write("emitted/extra.d.ts", 'export { add } from "./a.js";\n');
      const api = readApi(root, out);
      const byEntry = new Map([...api].map(([entry, names]) => [entry.specifier, new Map(names.map((e) => [e.name, e]))]));
      expect([...byEntry.keys()]).toEqual(["pkg", "pkg/extra"]);
      const main = byEntry.get("pkg") ?? new Map<string, ApiEntry>();
      expect([...main.keys()].sort()).toEqual(["Box", "Mode", "add", "default", "local", "ns", "renamed", "viaImport"]);
      expect(main.get("add")).toMatchObject({ kind: "function", doc: "Adds." });
      expect(main.get("add")?.signature).toBe("function add(a: number): number;\nfunction add(a: string): string;");
      expect(main.get("Box")?.signature).toBe("class Box {\n    /** The value. */\n    readonly value: number;\n    constructor(value: number);\n}");
      expect(main.get("Mode")).toMatchObject({ kind: "const + type", doc: "Both a value and a type." });
      expect(main.get("renamed")).toMatchObject({ kind: "interface", doc: "Inner doc." });
      expect(main.get("renamed")?.signature).toContain("/** A field. */");
      expect(main.get("local")).toMatchObject({ kind: "const", signature: "const local: number;", doc: "Re-exported after an import." });
      expect(main.get("viaImport")?.kind).toBe("function");
      expect(main.get("ns")?.kind).toBe("namespace");
      expect(main.get("default")?.kind).toBe("default export");
      expect([...(byEntry.get("pkg/extra")?.keys() ?? [])]).toEqual(["add"]);
      const pages = renderApiReference(api);
      expect([...pages.keys()]).toEqual(["docs/api.md", "docs/api/pkg.md", "docs/api/pkg-extra.md"]);
      expect(pages.get("docs/api/pkg.md")).toContain("### Box\n\n*class*\n\n```ts\nclass Box {");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
