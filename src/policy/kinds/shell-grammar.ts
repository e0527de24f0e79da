/**
 * The bash grammar (tree-sitter-bash through web-tree-sitter's WebAssembly build), loaded
 * synchronously on first use so that importing the package costs nothing and a policy's
 * synchronous `decide` can parse a command line the first time it meets one.
 *
 * web-tree-sitter's loaders are promise-based although, given the bytes, nothing in them has to
 * wait: compiling and instantiating WebAssembly is synchronous in Node (`new WebAssembly.Module`,
 * `new WebAssembly.Instance`). So the library is evaluated in a private realm (`node:vm`) whose
 * promise jobs run as soon as the evaluating script returns (`microtaskMode: "afterEvaluate"`), with
 * that realm's `WebAssembly.instantiate` done synchronously. When the loading script returns, the
 * parser is ready; nothing in the application's realm is touched.
 *
 * Files read (first match wins):
 * 1. the directory named by GUARDED_GRAPH_ASSETS_DIR;
 * 2. the directory of the running module (a bundle with the three files copied next to it);
 * 3. the installed packages: guarded-graph's `vendor/tree-sitter-bash/` and `web-tree-sitter`.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import type * as WebTreeSitter from "web-tree-sitter";
import { ErrorCode, GuardedGraphError } from "../../errors/index.js";
import { packageRoot } from "../../package-root.js";

/** The environment variable naming a directory that holds the three grammar files (for bundles). */
const ASSETS_DIR_ENV = "GUARDED_GRAPH_ASSETS_DIR";

const FILES = { library: "tree-sitter.cjs", core: "tree-sitter.wasm", grammar: "tree-sitter-bash.wasm" } as const;

interface GrammarFiles {
  readonly library: string;
  readonly core: string;
  readonly grammar: string;
}

function inDirectory(dir: string): GrammarFiles {
  return { library: join(dir, FILES.library), core: join(dir, FILES.core), grammar: join(dir, FILES.grammar) };
}

function complete(files: GrammarFiles): boolean {
  return existsSync(files.library) && existsSync(files.core) && existsSync(files.grammar);
}

function moduleDirectory(): string | undefined {
  try {
    return dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined;
  }
}

function installed(): GrammarFiles | string {
  try {
    const library = createRequire(import.meta.url).resolve("web-tree-sitter");
    const grammar = join(packageRoot(), "vendor", "tree-sitter-bash", FILES.grammar);
    return { library, core: join(dirname(library), FILES.core), grammar };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Where the grammar files are, or every place looked at. */
function locate(): GrammarFiles {
  const tried: string[] = [];
  const fromEnv = process.env[ASSETS_DIR_ENV];
  if (fromEnv !== undefined && fromEnv !== "") {
    const files = inDirectory(fromEnv);
    if (complete(files)) return files;
    // An explicit setting that does not hold the files is a mistake, not a hint to look elsewhere.
    throw missing([`${fromEnv} (from ${ASSETS_DIR_ENV})`]);
  }
  const here = moduleDirectory();
  if (here !== undefined) {
    const files = inDirectory(here);
    if (complete(files)) return files;
    tried.push(here);
  }
  const packaged = installed();
  if (typeof packaged !== "string" && complete(packaged)) return packaged;
  tried.push(typeof packaged === "string" ? `the installed packages (${packaged})` : `${dirname(packaged.grammar)} and ${dirname(packaged.library)}`);
  throw missing(tried);
}

function missing(tried: readonly string[]): GuardedGraphError {
  return new GuardedGraphError(
    ErrorCode.PACKAGE_FILES,
    `cannot load the bash grammar that command rules need: ${FILES.library}, ${FILES.core} (from web-tree-sitter) and ${FILES.grammar} ` +
      `(from guarded-graph's vendor/tree-sitter-bash/) were not found in ${tried.join("; ")}. ` +
      `In a bundle, copy the three files next to the bundle or set ${ASSETS_DIR_ENV} to the directory that holds them.`,
  );
}

interface LoadResult {
  parser?: WebTreeSitter.Parser;
  error?: unknown;
}

/** Evaluates web-tree-sitter in a private realm and returns a ready parser, synchronously. */
function load(): WebTreeSitter.Parser {
  const files = locate();
  const source = readFileSync(files.library, "utf8");
  const context = vm.createContext({ process, console, TextDecoder, TextEncoder, performance }, { name: "guarded-graph bash grammar", microtaskMode: "afterEvaluate" });
  const wrapper = vm.runInContext(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, context, { filename: files.library }) as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dirname: string,
  ) => void;
  const module = { exports: {} };
  wrapper(module.exports, createRequire(files.library), module, files.library, dirname(files.library));
  const result: LoadResult = {};
  Object.assign(context, {
    library: module.exports,
    core: new Uint8Array(readFileSync(files.core)),
    grammar: new Uint8Array(readFileSync(files.grammar)),
    result,
  });
  vm.runInContext(
    `
    // This realm only: instantiation from bytes or a module, done synchronously.
    WebAssembly.instantiate = (input, imports) => {
      const module = input instanceof WebAssembly.Module ? input : new WebAssembly.Module(input);
      const instance = new WebAssembly.Instance(module, imports);
      return Promise.resolve(input instanceof WebAssembly.Module ? instance : { module, instance });
    };
    library.Parser.init({
      instantiateWasm(imports, receive) {
        const module = new WebAssembly.Module(core);
        const instance = new WebAssembly.Instance(module, imports);
        receive(instance, module);
        return instance.exports;
      },
    })
      .then(() => library.Language.load(new Uint8Array(grammar)))
      .then((language) => {
        const parser = new library.Parser();
        parser.setLanguage(language);
        result.parser = parser;
      })
      .catch((error) => { result.error = error; });
    `,
    context,
  );
  if (result.parser !== undefined) return result.parser;
  const reason = result.error instanceof Error ? result.error.message : result.error === undefined ? "it did not finish synchronously" : String(result.error);
  throw new GuardedGraphError(ErrorCode.PACKAGE_FILES, `cannot load the bash grammar from ${files.grammar}: ${reason}`, { cause: result.error });
}

let parser: WebTreeSitter.Parser | undefined;

/** The bash parser, loaded on the first call (about 50 ms); throws a GuardedGraphError naming the missing files. */
export function shellParser(): WebTreeSitter.Parser {
  parser ??= load();
  return parser;
}
