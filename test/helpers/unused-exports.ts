// Lists every name a module under src/ exports that nothing else uses: not imported (directly or
// through a re-export chain) by another source file, test, example, graph, bench or doc, and not
// reachable from a public entry point (package.json "exports", the CLI's bin, langgraph.json).
//
// ts-unused-exports does not run with TypeScript 7, so this parses the project with TypeScript 7's own
// parser (the `typescript/unstable/sync` API: the program of a tsconfig, with real syntax trees) and
// follows ESM syntax by hand: `import {a as b}`, `import * as ns` (then `ns.x` / `ns.T`), default
// imports, `export {a} from`, `export * from`, `import("…")` (destructured or bound to a name), and
// `import("…").T` in types. Anything it cannot follow precisely counts as using every export of the
// module, so it may miss a dead export but never reports a used one.
//
// Usage: npx tsx test/helpers/unused-exports.ts [project dir]   (prints the list, exits 1 if any)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { API } from "typescript/unstable/sync";
import { SyntaxKind, type Identifier, type Node, type SourceFile, type StringLiteral } from "typescript/unstable/ast";

/** One re-exported name: `export { name as exported } from "from"` or `export * from "from"`. */
interface ReExport {
  readonly from: string;
  readonly name: string;
}

interface ModuleExports {
  /** Names declared here and exported (`export const x`, `export { x }`, `export default`). */
  readonly local: Set<string>;
  /** Names re-exported from another project module, by exported name. */
  readonly reexports: Map<string, ReExport>;
  /** Project modules re-exported whole (`export * from`). */
  readonly stars: string[];
}

export interface UnusedExport {
  /** Path relative to the project, with `/`. */
  readonly file: string;
  readonly name: string;
}

export interface UnusedExportsOptions {
  /** The project directory (package.json and tsconfig.json); defaults to the working directory. */
  readonly root?: string;
  /** Folders whose exports are checked (relative to root); defaults to ["src"]. */
  readonly checked?: readonly string[];
  /**
   * Used exports the syntax does not show, each `path#name` with the reason: a test asserts each
   * still exists, so the list cannot outlive its entries.
   */
  readonly extraRoots?: readonly string[];
}

/** Exports the code uses in ways an import statement does not show. */
export const EXTRA_ROOTS: readonly string[] = [
  // bin/guarded-graph.js imports dist/src/cli/main.js (or src/cli/main.ts) by URL and calls main().
  "src/cli/main.ts#main",
];

const isString = (node: Node | undefined): node is StringLiteral =>
  node !== undefined && (node.kind === SyntaxKind.StringLiteral || node.kind === SyntaxKind.NoSubstitutionTemplateLiteral);

const textOf = (node: Node): string => (node as Identifier | StringLiteral).text;

function hasModifier(node: Node, kind: SyntaxKind): boolean {
  const modifiers = (node as { modifiers?: readonly Node[] }).modifiers;
  return modifiers?.some((m) => m.kind === kind) ?? false;
}

function walk(node: Node, visit: (node: Node) => void): void {
  visit(node);
  node.forEachChild((child) => {
    walk(child, visit);
    return undefined;
  });
}

function bindingNames(name: Node): string[] {
  if (name.kind === SyntaxKind.Identifier) return [textOf(name)];
  const names: string[] = [];
  name.forEachChild((element) => {
    const bound = (element as { name?: Node }).name;
    if (bound) names.push(...bindingNames(bound));
    return undefined;
  });
  return names;
}

/** The source files of a package.json "exports" map, e.g. "./dist/src/index.js" -> "src/index.ts". */
function entryFiles(root: string): string[] {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports?: Record<string, unknown> };
  const files: string[] = [];
  for (const target of Object.values(manifest.exports ?? {})) {
    const importPath = typeof target === "object" && target !== null ? (target as { import?: unknown }).import : undefined;
    if (typeof importPath !== "string") continue;
    const source = importPath.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts");
    if (existsSync(join(root, source))) files.push(resolve(root, source));
  }
  return files;
}

/** Module specifiers a user writes (`guarded-graph`, `guarded-graph/memory`) -> source files. */
function packageSpecifiers(root: string): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; exports?: Record<string, unknown> };
  const map = new Map<string, string>();
  for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
    const importPath = typeof target === "object" && target !== null ? (target as { import?: unknown }).import : undefined;
    if (typeof importPath !== "string") continue;
    const source = resolve(root, importPath.replace(/^\.\/dist\//, "").replace(/\.js$/, ".ts"));
    map.set(subpath === "." ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, "")}`, source);
  }
  return map;
}

/** Graph modules named in langgraph.json ("./graphs/devops.ts:graph") are used by the LangGraph server. */
function langgraphRoots(root: string): string[] {
  const file = join(root, "langgraph.json");
  if (!existsSync(file)) return [];
  const config = JSON.parse(readFileSync(file, "utf8")) as { graphs?: Record<string, string>; auth?: { path?: string } };
  const refs = [...Object.values(config.graphs ?? {}), ...(config.auth?.path ? [config.auth.path] : [])];
  return refs.flatMap((ref) => {
    const [path, name] = ref.split(":");
    return path && name ? [`${resolve(root, path)}#${name}`] : [];
  });
}

function markdownFiles(root: string): string[] {
  const files = readdirSync(root).filter((f) => f.endsWith(".md")).map((f) => join(root, f));
  const docs = join(root, "docs");
  if (existsSync(docs)) files.push(...readdirSync(docs).filter((f) => f.endsWith(".md")).map((f) => join(docs, f)));
  return files;
}

export function findUnusedExports(options: UnusedExportsOptions = {}): UnusedExport[] {
  const root = resolve(options.root ?? process.cwd());
  const checked = (options.checked ?? ["src"]).map((dir) => resolve(root, dir) + sep);
  const api = new API({ cwd: root });
  let files: SourceFile[];
  try {
    const snapshot = api.updateSnapshot({ openProjects: [join(root, "tsconfig.json")] });
    const project = snapshot.getProjects()[0];
    if (!project) throw new Error(`no TypeScript project at ${root}`);
    files = project.program
      .getSourceFileNames()
      .filter((name) => name.startsWith(root + sep) && !name.includes(`${sep}node_modules${sep}`))
      .map((name) => {
        const file = project.program.getSourceFile(name);
        if (!file) throw new Error(`no source file ${name}`);
        return file;
      });
  } finally {
    api.close();
  }

  const known = new Set(files.map((f) => resolve(f.fileName)));
  const specifiers = packageSpecifiers(root);
  const resolveSpecifier = (from: string, specifier: string): string | undefined => {
    const mapped = specifiers.get(specifier);
    if (mapped) return mapped;
    if (!specifier.startsWith(".")) return undefined;
    const base = resolve(dirname(from), specifier);
    for (const candidate of [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, join(base, "index.ts")]) {
      if (known.has(candidate)) return candidate;
    }
    return undefined;
  };

  // Pass 1: what each module exports.
  const modules = new Map<string, ModuleExports>();
  for (const file of files) {
    const path = resolve(file.fileName);
    const info: ModuleExports = { local: new Set(), reexports: new Map(), stars: [] };
    modules.set(path, info);
    for (const statement of file.statements) {
      if (statement.kind === SyntaxKind.ExportDeclaration) {
        const decl = statement as unknown as { exportClause?: Node; moduleSpecifier?: Node };
        const from = isString(decl.moduleSpecifier) ? resolveSpecifier(path, decl.moduleSpecifier.text) : undefined;
        if (isString(decl.moduleSpecifier) && from === undefined) continue; // a package's names: not ours
        if (!decl.exportClause) {
          if (from) info.stars.push(from);
        } else if (decl.exportClause.kind === SyntaxKind.NamespaceExport) {
          // `export * as ns from`: a name of its own, using every export of `from`.
          if (from) info.reexports.set(textOf((decl.exportClause as unknown as { name: Node }).name), { from, name: "*" });
        } else {
          for (const element of (decl.exportClause as unknown as { elements: readonly { propertyName?: Node; name: Node }[] }).elements) {
            const exported = textOf(element.name);
            const original = textOf(element.propertyName ?? element.name);
            if (from) info.reexports.set(exported, { from, name: original });
            else info.local.add(exported);
          }
        }
      } else if (statement.kind === SyntaxKind.ExportAssignment) {
        info.local.add("default");
      } else if (hasModifier(statement, SyntaxKind.ExportKeyword)) {
        if (hasModifier(statement, SyntaxKind.DefaultKeyword)) {
          info.local.add("default");
        } else if (statement.kind === SyntaxKind.VariableStatement) {
          const list = (statement as unknown as { declarationList: { declarations: readonly { name: Node }[] } }).declarationList;
          for (const declaration of list.declarations) for (const name of bindingNames(declaration.name)) info.local.add(name);
        } else {
          const name = (statement as unknown as { name?: Node }).name;
          if (name) info.local.add(textOf(name));
        }
      }
    }
  }

  const exportsOf = (path: string, seen = new Set<string>()): Set<string> => {
    const info = modules.get(path);
    const names = new Set<string>();
    if (!info || seen.has(path)) return names;
    seen.add(path);
    for (const star of info.stars) for (const name of exportsOf(star, seen)) if (name !== "default") names.add(name);
    for (const name of info.local) names.add(name);
    for (const name of info.reexports.keys()) names.add(name);
    return names;
  };

  // Pass 2: mark used names, following re-export chains to the declaring module.
  const used = new Set<string>();
  const markUsed = (path: string, name: string): void => {
    const key = `${path}#${name}`;
    if (used.has(key)) return;
    const info = modules.get(path);
    if (!info) return;
    if (name === "*") {
      for (const each of exportsOf(path)) markUsed(path, each);
      return;
    }
    used.add(key);
    if (info.local.has(name)) return;
    const reexport = info.reexports.get(name);
    if (reexport) return markUsed(reexport.from, reexport.name);
    for (const star of info.stars) if (exportsOf(star).has(name)) markUsed(star, name);
  };

  for (const entry of entryFiles(root)) markUsed(entry, "*");
  for (const ref of [...langgraphRoots(root), ...(options.extraRoots ?? EXTRA_ROOTS).map((r) => resolve(root, r))]) {
    const at = ref.lastIndexOf("#");
    markUsed(ref.slice(0, at), ref.slice(at + 1));
  }

  for (const file of files) {
    const path = resolve(file.fileName);
    // Uses of a namespace binding `ns` of module `target`: `ns.x` and `ns.T` use x and T; anything else uses all.
    const namespaceUses = (binding: Node, target: string): void => {
      const name = textOf(binding);
      walk(file, (node) => {
        if (node === binding || node.kind !== SyntaxKind.Identifier || textOf(node) !== name) return;
        const parent = node.parent as Node & { expression?: Node; name?: Node; left?: Node; right?: Node };
        if (parent.kind === SyntaxKind.PropertyAccessExpression && parent.expression === node && parent.name) markUsed(target, textOf(parent.name));
        else if (parent.kind === SyntaxKind.QualifiedName && parent.left === node && parent.right) markUsed(target, textOf(parent.right));
        else if ((parent.kind === SyntaxKind.PropertyAccessExpression || parent.kind === SyntaxKind.QualifiedName) && parent.name === node) return; // `other.ns`
        else markUsed(target, "*");
      });
    };
    walk(file, (node) => {
      if (node.kind === SyntaxKind.ImportDeclaration) {
        const decl = node as unknown as { importClause?: { name?: Node; namedBindings?: Node }; moduleSpecifier: Node };
        const target = isString(decl.moduleSpecifier) ? resolveSpecifier(path, decl.moduleSpecifier.text) : undefined;
        if (!target || !decl.importClause) return;
        if (decl.importClause.name) markUsed(target, "default");
        const bindings = decl.importClause.namedBindings;
        if (!bindings) return;
        if (bindings.kind === SyntaxKind.NamespaceImport) {
          namespaceUses((bindings as unknown as { name: Node }).name, target);
        } else {
          for (const element of (bindings as unknown as { elements: readonly { propertyName?: Node; name: Node }[] }).elements) {
            markUsed(target, textOf(element.propertyName ?? element.name));
          }
        }
      } else if (node.kind === SyntaxKind.ImportType) {
        const type = node as unknown as { argument: Node & { literal?: Node }; qualifier?: Node & { left?: Node } };
        const target = isString(type.argument.literal) ? resolveSpecifier(path, type.argument.literal.text) : undefined;
        if (!target) return;
        let qualifier = type.qualifier;
        while (qualifier?.kind === SyntaxKind.QualifiedName && qualifier.left) qualifier = qualifier.left as Node & { left?: Node };
        markUsed(target, qualifier ? textOf(qualifier) : "*");
      } else if (node.kind === SyntaxKind.CallExpression) {
        const call = node as unknown as { expression: Node; arguments: readonly Node[] };
        if (call.expression.kind !== SyntaxKind.ImportKeyword) return;
        const target = isString(call.arguments[0]) ? resolveSpecifier(path, call.arguments[0].text) : undefined;
        if (!target) return;
        let holder: Node = node.parent;
        while (holder.kind === SyntaxKind.AwaitExpression || holder.kind === SyntaxKind.ParenthesizedExpression) holder = holder.parent;
        const declared = holder.kind === SyntaxKind.VariableDeclaration ? (holder as unknown as { name: Node }).name : undefined;
        if (declared?.kind === SyntaxKind.ObjectBindingPattern) {
          for (const element of (declared as unknown as { elements: readonly { propertyName?: Node; name: Node; dotDotDotToken?: Node }[] }).elements) {
            markUsed(target, element.dotDotDotToken ? "*" : textOf(element.propertyName ?? element.name));
          }
        } else if (declared?.kind === SyntaxKind.Identifier) {
          namespaceUses(declared, target);
        } else if (holder.kind === SyntaxKind.PropertyAccessExpression && (holder as unknown as { name: Node }).name) {
          markUsed(target, textOf((holder as unknown as { name: Node }).name)); // (await import("x")).name
        } else {
          markUsed(target, "*");
        }
      }
    });
  }

  // Docs: code blocks that import the source by a relative path (docs/…md -> ../src/…).
  for (const doc of markdownFiles(root)) {
    const text = readFileSync(doc, "utf8");
    for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']([^"']+)["']/g)) {
      const target = resolveSpecifier(doc, m[2] ?? "");
      if (!target) continue;
      for (const part of (m[1] ?? "").split(",")) {
        const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]?.trim();
        if (name) markUsed(target, name);
      }
    }
  }

  const unused: UnusedExport[] = [];
  for (const [path, info] of modules) {
    if (!checked.some((dir) => path.startsWith(dir))) continue;
    for (const name of [...info.local, ...info.reexports.keys()]) {
      if (!used.has(`${path}#${name}`)) unused.push({ file: relative(root, path).split(sep).join("/"), name });
    }
  }
  return unused.sort((a, b) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const unused = findUnusedExports({ root: process.argv[2] ?? process.cwd() });
  for (const { file, name } of unused) console.log(`${file}: ${name}`);
  console.log(`${unused.length} unused export(s)`);
  process.exitCode = unused.length === 0 ? 0 : 1;
}
