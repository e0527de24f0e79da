/**
 * Child processes that run a TypeScript entry of the tests (a worker, an MCP server): the entry is
 * bundled once with esbuild — the project's own sources in, npm packages left as imports — and the
 * child runs the bundle with plain `node`. A child started with `node --import tsx` spends about
 * 1.5 s compiling the sources before its first line; the crash tests start hundreds of them.
 *
 * The bundle is named by its content's hash under node_modules/.cache, so the test files running at
 * once share one file and an edited source gets a new one; it is written to a temporary name and
 * renamed, so a reader never sees half a file. No source map: reading one costs each child 0.2 s, and
 * a stack trace from the bundle still names the functions.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// Inside the project, so that the bundle's package imports resolve from its node_modules.
const CACHE = join(ROOT, "node_modules", ".cache", "guarded-graph-test-entries");

const built = new Map<string, string>();

/** The path of a runnable bundle of `entry` (a .ts file); build once per process and source state. */
export function bundledEntry(entry: string): string {
  const known = built.get(entry);
  if (known !== undefined) return known;
  const result = buildSync({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    // The sources' `require("<package>")` of on-demand dependencies needs a real require in ESM.
    banner: { js: "import { createRequire as __ggCreateRequire } from 'node:module'; const require = __ggCreateRequire(import.meta.url);" },
    write: false,
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild produced no output for ${entry}`);
  const hash = createHash("sha256").update(output.contents).digest("hex").slice(0, 16);
  const file = join(CACHE, `${basename(entry).replace(/\.ts$/, "")}-${hash}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(CACHE, { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, output.contents);
    renameSync(temporary, file);
  }
  // The real path: an entry that checks it was run directly (argv[1] against its import.meta.url, which
  // node resolves through links) must see the same path, also where node_modules is a link.
  const real = realpathSync(file);
  built.set(entry, real);
  return real;
}

/** `node` arguments that run `entry` with `args` (for spawn(process.execPath, …) and MCP stdio configs). */
export function nodeArgsFor(entry: string, ...args: string[]): string[] {
  return [bundledEntry(entry), ...args];
}
