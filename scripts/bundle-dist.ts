/**
 * The second build step (`npm run build` runs it after `tsc`): the JavaScript that tsc emitted into
 * dist/ is bundled, so that importing the package loads a handful of files instead of ~130. Node's
 * module loader pays per file (resolving, reading, compiling, linking); with one file per source
 * module that cost alone was about a tenth of `@langchain/langgraph`'s whole import.
 *
 * - Every `exports` target of package.json and the CLI (bin/guarded-graph.js loads
 *   dist/src/cli/main.js) is an entry point, bundled in ONE esbuild run with code splitting: the
 *   entries share chunks (dist/src/chunks/), so a class is one class whichever subpath it is
 *   imported from, and a subpath loads only the chunks it uses.
 * - Dependencies stay outside (`packages: "external"`), resolved from node_modules as before.
 * - src/deps/on-demand.ts stays a file of its own, reached through the package's private import
 *   `#on-demand`: its literal `require("<name>")` calls must reach a user's bundler as written
 *   (esbuild would rewrite them here).
 * - The .d.ts files are tsc's, unchanged; the .js files tsc emitted that no output uses are removed.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";
import type { Plugin } from "esbuild";

const ROOT = resolve(import.meta.dirname, "..");
const DIST = join(ROOT, "dist");
const ON_DEMAND = join(DIST, "src", "deps", "on-demand.js");

interface Manifest {
  exports: Record<string, string | { import?: string }>;
  imports?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;
if (manifest.imports?.["#on-demand"] !== `./${relative(ROOT, ON_DEMAND)}`) {
  throw new Error(`package.json "imports" must map #on-demand to ./${relative(ROOT, ON_DEMAND)}`);
}
const entries = new Set<string>([join(DIST, "src", "cli", "main.js")]);
for (const target of Object.values(manifest.exports)) {
  const file = typeof target === "string" ? target : target.import;
  if (file !== undefined && file.startsWith("./dist/") && file.endsWith(".js")) entries.add(join(ROOT, file));
}

const onDemandExternal: Plugin = {
  name: "on-demand-external",
  setup(b) {
    b.onResolve({ filter: /\/deps\/on-demand\.js$/ }, () => ({ path: "#on-demand", external: true }));
  },
};

const result = await build({
  entryPoints: [...entries],
  outdir: DIST,
  outbase: DIST,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  chunkNames: "src/chunks/[name]-[hash]",
  plugins: [onDemandExternal],
  metafile: true,
  logLevel: "warning",
});

const written = new Set(Object.keys(result.metafile.outputs).map((path) => resolve(ROOT, path)));
written.add(ON_DEMAND);
const stale = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return stale(path);
    return path.endsWith(".js") && !written.has(path) ? [path] : [];
  });
const removed = stale(DIST);
for (const path of removed) rmSync(path);
console.log(`bundled ${entries.size} entry points into ${written.size - 1} files; removed ${removed.length} unused module files`);
