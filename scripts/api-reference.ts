// Writes the API reference (docs/api.md and docs/api/*.md) from the package's public entry points:
// every name each entry point of package.json "exports" gives, its kind, its declaration (functions
// with their overloads, classes with their public members, interfaces and types with their
// properties) and its doc comment.
//
// The declarations are the ones a user's editor sees: tsc emits the .d.ts files of the package
// (tsconfig.build.json, into a temporary directory, so the reference follows src/ without a build),
// and TypeScript's own parser (`typescript/unstable/sync`) reads them; `export *`, `export { a as b }
// from` and `import`-then-`export` chains are followed to the declaration.
//
// Usage: npm run docs:api           (writes the pages)
//        npm run docs:api -- --check (exits 1 when the committed pages differ)
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { API } from "typescript/unstable/sync";
import { SyntaxKind, type Node, type SourceFile } from "typescript/unstable/ast";

/** One public entry point: the subpath users import and the declaration file behind it. */
export interface EntryPoint {
  /** `guarded-graph`, `guarded-graph/memory`, … */
  readonly specifier: string;
  /** The file name of its page under docs/api/ (without `.md`). */
  readonly slug: string;
  /** The .d.ts file package.json "exports" names, relative to the package (`dist/src/index.d.ts`). */
  readonly types: string;
  /**
   * What it is for: the entry module's leading comment when it starts with the specifier
   * (`// "guarded-graph/memory": memory blocks, …`), else "".
   */
  readonly summary: string;
}

/** One exported name with what declares it. */
export interface ApiEntry {
  readonly name: string;
  readonly kind: string;
  /** The declarations as a user's editor shows them (overloads and merged declarations together). */
  readonly signature: string;
  /** The doc comment, as Markdown ("" when there is none). */
  readonly doc: string;
}

interface Manifest {
  readonly name: string;
  readonly exports: Record<string, string | { readonly types?: string }>;
}

/** The entry points of package.json "exports" that have declarations (not JSON files). */
export function entryPoints(root: string): EntryPoint[] {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest;
  const out: EntryPoint[] = [];
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const types = typeof target === "object" ? target.types : undefined;
    if (types === undefined || !types.endsWith(".d.ts")) continue;
    const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, "")}`;
    const slug = subpath === "." ? manifest.name : `${manifest.name}-${subpath.replace(/^\.\//, "").replace(/\//g, "-")}`;
    out.push({ specifier, slug, types: types.replace(/^\.\//, ""), summary: summaryOf(root, types.replace(/^\.\//, ""), specifier) });
  }
  return out;
}

/** The leading `// "specifier": …` comment of an entry's source module, as one line ("" without one). */
function summaryOf(root: string, types: string, specifier: string): string {
  const build = JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8")) as { compilerOptions?: { outDir?: string } };
  const source = join(root, relative(build.compilerOptions?.outDir ?? "dist", types).replace(/\.d\.ts$/, ".ts"));
  let text: string;
  try {
    text = readFileSync(source, "utf8");
  } catch {
    return "";
  }
  const lines: string[] = [];
  // The first sentence-ending line closes the summary.
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break;
    lines.push(line.replace(/^\/\/\s?/, ""));
    if (/\.\s*$/.test(line)) break;
  }
  const comment = lines.join(" ").replace(/\s+/g, " ").trim();
  const prefix = `"${specifier}":`;
  if (!comment.startsWith(prefix)) return "";
  const summary = comment.slice(prefix.length).trim().replace(/\|/g, "\\|");
  return summary.charAt(0).toUpperCase() + summary.slice(1);
}

/** Emits the package's declaration files into a new temporary directory and returns it. */
export function emitDeclarations(root: string): string {
  const out = mkdtempSync(join(tmpdir(), "gg-api-"));
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  try {
    execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--emitDeclarationOnly", "--declarationMap", "false", "--outDir", out], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    rmSync(out, { recursive: true, force: true });
    const e = error as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`the declarations do not compile (fix these first):\n${String(e.stdout ?? "")}${String(e.stderr ?? "")}`);
  }
  return out;
}

/** Where a built path (`dist/src/index.d.ts`) lies in the emitted tree. */
function emitted(out: string, root: string, types: string): string {
  const build = JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8")) as { compilerOptions?: { outDir?: string } };
  const outDir = build.compilerOptions?.outDir ?? "dist";
  return join(out, relative(outDir, types));
}

// ---- syntax ----

type Named = Node & { readonly name?: Node };
const textOf = (node: Node | undefined): string => (node as { text?: string } | undefined)?.text ?? "";
const modifiersOf = (node: Node): readonly Node[] => (node as { modifiers?: readonly Node[] }).modifiers ?? [];
const hasModifier = (node: Node, kind: SyntaxKind) => modifiersOf(node).some((m) => m.kind === kind);

const DECLARATION_KINDS: ReadonlyMap<SyntaxKind, string> = new Map([
  [SyntaxKind.FunctionDeclaration, "function"],
  [SyntaxKind.ClassDeclaration, "class"],
  [SyntaxKind.InterfaceDeclaration, "interface"],
  [SyntaxKind.TypeAliasDeclaration, "type"],
  [SyntaxKind.EnumDeclaration, "enum"],
  [SyntaxKind.ModuleDeclaration, "namespace"],
]);

/** A declaration statement (or the variable statement holding a declared name). */
interface Declaration {
  readonly statement: Node;
  readonly kind: string;
  readonly file: SourceFile;
}

interface ModuleScope {
  /** Names declared in the file (exported or not). */
  readonly declared: Map<string, Declaration[]>;
  /** Names imported: local name -> (module, imported name or "*"). */
  readonly imported: Map<string, { readonly from: string; readonly name: string }>;
  /** Exported name -> how to find it. */
  readonly exported: Map<string, { readonly from?: string; readonly name: string }>;
  /** `export * from` targets. */
  readonly stars: string[];
}

class DeclarationIndex {
  private readonly scopes = new Map<string, ModuleScope>();

  constructor(private readonly files: ReadonlyMap<string, SourceFile>) {}

  /** Every exported name of a module with its declarations (sorted by name). */
  exportsOf(path: string, seen = new Set<string>()): Map<string, Declaration[]> {
    const out = new Map<string, Declaration[]>();
    if (seen.has(path)) return out;
    seen.add(path);
    const scope = this.scope(path);
    for (const star of scope.stars) for (const [name, decls] of this.exportsOf(star, seen)) if (name !== "default" && !out.has(name)) out.set(name, decls);
    for (const [name, target] of scope.exported) {
      const decls = target.from === undefined ? this.local(path, target.name) : this.exported(target.from, target.name);
      if (decls.length > 0) out.set(name, decls);
    }
    return out;
  }

  private exported(path: string, name: string): Declaration[] {
    return this.exportsOf(path).get(name) ?? [];
  }

  private local(path: string, name: string): Declaration[] {
    const scope = this.scope(path);
    const declared = scope.declared.get(name);
    if (declared) return declared;
    const imported = scope.imported.get(name);
    if (imported && imported.name !== "*") return this.exported(imported.from, imported.name);
    return [];
  }

  private scope(path: string): ModuleScope {
    const cached = this.scopes.get(path);
    if (cached) return cached;
    const file = this.files.get(path);
    if (!file) throw new Error(`the declarations do not include ${path}`);
    const scope: ModuleScope = { declared: new Map(), imported: new Map(), exported: new Map(), stars: [] };
    const target = (specifier: Node | undefined): string | undefined => {
      const text = textOf(specifier);
      if (!text.startsWith(".")) return undefined; // another package's names
      const base = resolve(dirname(path), text.replace(/\.js$/, ""));
      for (const candidate of [`${base}.d.ts`, join(base, "index.d.ts")]) if (this.files.has(candidate)) return candidate;
      throw new Error(`cannot resolve ${text} from ${path}`);
    };
    const declare = (name: string, decl: Declaration) => scope.declared.set(name, [...(scope.declared.get(name) ?? []), decl]);
    for (const statement of file.statements) {
      const exportedHere = hasModifier(statement, SyntaxKind.ExportKeyword);
      const kind = DECLARATION_KINDS.get(statement.kind);
      if (kind !== undefined) {
        const name = textOf((statement as Named).name);
        declare(name, { statement, kind, file });
        if (exportedHere) scope.exported.set(hasModifier(statement, SyntaxKind.DefaultKeyword) ? "default" : name, { name });
      } else if (statement.kind === SyntaxKind.VariableStatement) {
        const list = (statement as unknown as { declarationList: Node & { declarations: readonly Named[]; flags: number } }).declarationList;
        const keyword = /^\s*(?:export\s+)?(?:declare\s+)?(const|let|var)\b/.exec(statement.getText(file))?.[1] ?? "const";
        for (const d of list.declarations) {
          const name = textOf(d.name);
          declare(name, { statement, kind: keyword, file });
          if (exportedHere) scope.exported.set(name, { name });
        }
      } else if (statement.kind === SyntaxKind.ImportDeclaration) {
        const decl = statement as unknown as { importClause?: { name?: Node; namedBindings?: Node & { name?: Node; elements?: readonly { propertyName?: Node; name: Node }[] } }; moduleSpecifier: Node };
        const from = target(decl.moduleSpecifier);
        const clause = decl.importClause;
        if (!from || !clause) continue;
        if (clause.name) scope.imported.set(textOf(clause.name), { from, name: "default" });
        const bindings = clause.namedBindings;
        if (bindings?.kind === SyntaxKind.NamespaceImport) scope.imported.set(textOf(bindings.name), { from, name: "*" });
        else for (const element of bindings?.elements ?? []) scope.imported.set(textOf(element.name), { from, name: textOf(element.propertyName ?? element.name) });
      } else if (statement.kind === SyntaxKind.ExportDeclaration) {
        const decl = statement as unknown as { exportClause?: Node & { name?: Node; elements?: readonly { propertyName?: Node; name: Node }[] }; moduleSpecifier?: Node };
        const from = decl.moduleSpecifier ? target(decl.moduleSpecifier) : undefined;
        if (decl.moduleSpecifier && from === undefined) continue;
        if (!decl.exportClause) {
          if (from) scope.stars.push(from);
        } else if (decl.exportClause.kind === SyntaxKind.NamespaceExport) {
          // `export * as ns from "./x.js"`: the namespace is listed as one name, its statement shown.
          const name = textOf(decl.exportClause.name);
          declare(name, { statement, kind: "namespace", file });
          scope.exported.set(name, { name });
        } else {
          for (const element of decl.exportClause.elements ?? []) {
            const name = textOf(element.name);
            const original = textOf(element.propertyName ?? element.name);
            scope.exported.set(name, from === undefined ? { name: original } : { from, name: original });
          }
        }
      } else if (statement.kind === SyntaxKind.ExportAssignment) {
        // `export default x;` (or `export = x;`): listed as `default`, its statement shown.
        declare("default", { statement, kind: "default export", file });
        scope.exported.set("default", { name: "default" });
      }
    }
    this.scopes.set(path, scope);
    return scope;
  }
}

// ---- rendering one declaration ----

/** The doc comment of a declaration, without the comment markers ("" when there is none). */
function docOf(node: Node, file: SourceFile): string {
  const jsDoc = node.jsDoc?.at(-1);
  if (!jsDoc) return "";
  const raw = file.text.slice(jsDoc.getStart(file), jsDoc.end);
  return raw
    .replace(/^\/\*\*\s?/, "")
    .replace(/\s*\*\/$/, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join("\n")
    .trim();
}

/** A member a user cannot reach: `private`, `#name`, or marked `@internal`. */
function hidden(member: Node, file: SourceFile): boolean {
  const name = (member as Named).name;
  return hasModifier(member, SyntaxKind.PrivateKeyword) || name?.kind === SyntaxKind.PrivateIdentifier || /@internal\b/.test(docOf(member, file));
}

/** The declaration's text as written in the .d.ts, without `export`/`declare` and private members. */
function declarationText(decl: Declaration, name: string): string {
  const { statement, file } = decl;
  const start = statement.getStart(file);
  let text = file.text.slice(start, statement.end);
  if (statement.kind === SyntaxKind.ClassDeclaration) {
    const members = (statement as unknown as { members: readonly Node[] }).members;
    // Cut hidden members, last first so the earlier offsets hold.
    for (const member of [...members].reverse()) {
      if (!hidden(member, file)) continue;
      const from = file.text.lastIndexOf("\n", member.getStart(file, true)) + 1;
      const to = file.text.indexOf("\n", member.end - 1);
      text = text.slice(0, from - start) + text.slice((to === -1 ? member.end : to + 1) - start);
    }
  }
  if (statement.kind === SyntaxKind.VariableStatement) {
    const list = (statement as unknown as { declarationList: { declarations: readonly Named[] } }).declarationList;
    const d = list.declarations.find((x) => textOf(x.name) === name);
    if (d) text = `${decl.kind} ${file.text.slice(d.getStart(file), d.end)};`;
  }
  // `import("@langchain/langgraph").CompiledStateGraph` reads as `CompiledStateGraph`: the qualifier
  // (emitted for inferred types) names the module, which the reader's editor shows on hover.
  return dedent(text.replace(/^(export\s+)?(default\s+)?(declare\s+)?/, "").replace(/\bimport\("[^"]+"\)\./g, ""));
}

function dedent(text: string): string {
  const lines = text.split("\n");
  const indents = lines.slice(1).filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const closing = /^ *\}/.exec(lines.at(-1) ?? "")?.[0].length ?? 0;
  const cut = Math.min(closing, ...(indents.length ? indents : [0]));
  return lines.map((l, i) => (i === 0 ? l : l.slice(Math.min(cut, /^ */.exec(l)?.[0].length ?? 0)))).join("\n");
}

function entryOf(name: string, decls: readonly Declaration[]): ApiEntry {
  const kinds = [...new Set(decls.map((d) => d.kind))];
  // A value and a type of the same name (`const X` + `type X`) or merged declarations: both shown.
  const kind = kinds.includes("class") ? "class" : kinds.join(" + ");
  const signature = decls.map((d) => declarationText(d, name)).join("\n");
  const doc = decls.map((d) => docOf(d.statement, d.file)).find((text) => text !== "") ?? "";
  return { name, kind, signature, doc };
}

// ---- the reference ----

/** The names of every entry point with their declarations, read from emitted declaration files. */
export function readApi(root: string, declarations: string): Map<EntryPoint, ApiEntry[]> {
  const entries = entryPoints(root);
  const files = entries.map((e) => emitted(declarations, root, e.types));
  writeFileSync(join(declarations, "tsconfig.json"), JSON.stringify({ compilerOptions: { noEmit: true, types: [], skipLibCheck: true, module: "NodeNext", moduleResolution: "NodeNext" }, files }));
  const api = new API({ cwd: declarations });
  const sources = new Map<string, SourceFile>();
  try {
    const project = api.updateSnapshot({ openProjects: [join(declarations, "tsconfig.json")] }).getProjects()[0];
    if (!project) throw new Error(`no TypeScript project in ${declarations}`);
    for (const name of project.program.getSourceFileNames()) {
      if (!resolve(name).startsWith(resolve(declarations))) continue;
      const file = project.program.getSourceFile(name);
      if (file) sources.set(resolve(name), file);
    }
  } finally {
    api.close();
  }
  const index = new DeclarationIndex(sources);
  const out = new Map<EntryPoint, ApiEntry[]>();
  entries.forEach((entry, i) => {
    const names = index.exportsOf(resolve(files[i] ?? ""));
    out.set(
      entry,
      [...names].sort(([a], [b]) => a.localeCompare(b, "en")).map(([name, decls]) => entryOf(name, decls)),
    );
  });
  return out;
}

const KIND_ORDER = ["function", "class", "const", "let", "var", "enum", "interface", "type", "namespace"];
const kindRank = (kind: string) => {
  const i = KIND_ORDER.findIndex((k) => kind.startsWith(k));
  return i === -1 ? KIND_ORDER.length : i;
};
const KIND_TITLES: Record<string, string> = {
  function: "Functions",
  class: "Classes",
  const: "Constants",
  let: "Variables",
  var: "Variables",
  enum: "Enums",
  interface: "Interfaces",
  type: "Types",
  namespace: "Namespaces",
};
const slugOf = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-");

/** The entries of a page grouped by kind (functions, classes, …), in the order the page shows them. */
function groupsOf(names: readonly ApiEntry[]): Map<string, ApiEntry[]> {
  const groups = new Map<string, ApiEntry[]>();
  for (const e of [...names].sort((a, b) => kindRank(a.kind) - kindRank(b.kind) || a.name.localeCompare(b.name, "en"))) {
    const title = KIND_TITLES[KIND_ORDER[kindRank(e.kind)] ?? ""] ?? "Other";
    groups.set(title, [...(groups.get(title) ?? []), e]);
  }
  return groups;
}

/**
 * The heading anchor of each entry of a page, as GitHub makes them: the heading lowercased, and a
 * `-1`, `-2` … suffix for a repeated one (`permissionPolicy` then `PermissionPolicy`).
 */
function anchorsOf(names: readonly ApiEntry[]): Map<ApiEntry, string> {
  const seen = new Map<string, number>();
  const out = new Map<ApiEntry, string>();
  for (const [title, group] of groupsOf(names)) {
    seen.set(slugOf(title), (seen.get(slugOf(title)) ?? -1) + 1);
    for (const e of group) {
      const base = slugOf(e.name);
      const n = (seen.get(base) ?? -1) + 1;
      seen.set(base, n);
      out.set(e, n === 0 ? base : `${base}-${n}`);
    }
  }
  return out;
}

const GENERATED = "<!-- Generated by `npm run docs:api` from the package's declarations: edit the doc comments in src/, not this file. -->";

function renderEntry(entry: EntryPoint, names: readonly ApiEntry[]): string {
  const groups = groupsOf(names);
  const anchors = anchorsOf(names);
  const lines = [
    GENERATED,
    "",
    `# \`${entry.specifier}\``,
    "",
    `\`import { … } from "${entry.specifier}";\` — ${names.length} names. [All entry points](../api.md).`,
    "",
    ...(entry.summary === "" ? [] : [entry.summary, ""]),
  ];
  for (const [title, group] of groups) {
    lines.push(`${title}: ${group.map((e) => `[\`${e.name}\`](#${anchors.get(e)})`).join(", ")}`, "");
  }
  for (const [title, group] of groups) {
    lines.push(`## ${title}`, "");
    for (const e of group) {
      lines.push(`### ${e.name}`, "", `*${e.kind}*`, "", "```ts", e.signature.trimEnd(), "```", "");
      if (e.doc !== "") lines.push(e.doc, "");
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

function renderIndex(api: ReadonlyMap<EntryPoint, readonly ApiEntry[]>): string {
  const lines = [
    GENERATED,
    "",
    "# API reference",
    "",
    "Every name the package exports, by entry point, with its declaration and doc comment. Anything not",
    "listed here is internal and may change between versions. `guarded-graph/policy-schema.json` is the",
    "JSON Schema of policy files (point your editor's YAML/JSON schema setting at it).",
    "",
    "| Entry point | Names | What |",
    "|---|---|---|",
  ];
  for (const [entry, names] of api) lines.push(`| [\`${entry.specifier}\`](api/${entry.slug}.md) | ${names.length} | ${entry.summary} |`);
  return `${lines.join("\n")}\n`;
}

/** The reference pages, by path relative to the package: docs/api.md and docs/api/<entry>.md. */
export function renderApiReference(api: ReadonlyMap<EntryPoint, readonly ApiEntry[]>): Map<string, string> {
  const pages = new Map<string, string>([["docs/api.md", renderIndex(api)]]);
  for (const [entry, names] of api) pages.set(`docs/api/${entry.slug}.md`, renderEntry(entry, names));
  return pages;
}

/** Emits the declarations, reads them and renders the pages (nothing is written). */
export function generateApiReference(root: string): { readonly api: Map<EntryPoint, ApiEntry[]>; readonly pages: Map<string, string> } {
  const declarations = emitDeclarations(root);
  try {
    const api = readApi(root, declarations);
    return { api, pages: renderApiReference(api) };
  } finally {
    rmSync(declarations, { recursive: true, force: true });
  }
}

/** The pages as committed: docs/api.md and every docs/api/*.md. */
export function committedPages(root: string): Map<string, string> {
  const pages = new Map<string, string>();
  const read = (path: string) => {
    try {
      pages.set(path, readFileSync(join(root, path), "utf8"));
    } catch {
      // not written yet
    }
  };
  read("docs/api.md");
  let names: string[] = [];
  try {
    names = readdirSync(join(root, "docs", "api"));
  } catch {
    names = [];
  }
  for (const name of names.filter((n) => n.endsWith(".md")).sort()) read(`docs/api/${name}`);
  return pages;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = resolve(import.meta.dirname, "..");
  const { pages } = generateApiReference(root);
  if (process.argv.includes("--check")) {
    const committed = committedPages(root);
    const stale = [...new Set([...pages.keys(), ...committed.keys()])].filter((p) => pages.get(p) !== committed.get(p));
    if (stale.length > 0) {
      console.error(`the API reference is out of date (${stale.join(", ")}): run npm run docs:api`);
      process.exit(1);
    }
    console.log("the API reference is up to date");
  } else {
    rmSync(join(root, "docs", "api"), { recursive: true, force: true });
    mkdirSync(join(root, "docs", "api"), { recursive: true });
    for (const [path, text] of pages) writeFileSync(join(root, path), text);
    console.log(`wrote ${[...pages.keys()].join(", ")}`);
  }
}
