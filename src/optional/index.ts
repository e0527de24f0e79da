/**
 * Optional peer dependencies, loaded on first use. A light install (`npm install guarded-graph
 * langchain`) has none of them; asking for a feature that needs one throws a
 * MissingDependencyError (GG_ERR_MISSING_DEPENDENCY) naming the package to install.
 *
 * better-sqlite3 and pg are CommonJS: required synchronously (the same module instance an ESM
 * import would give), so constructors that open a database stay synchronous. The LangChain
 * packages are dual ESM/CommonJS: imported dynamically, so they share the application's
 * @langchain/core instead of loading its CommonJS copy.
 *
 * Types here come from the packages' own typings (devDependencies) and must not reach a public
 * declaration: public options use the structural types in ./types.ts.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import type Pg from "pg";
import { MissingDependencyError } from "../errors/index.js";

const require = createRequire(import.meta.url);

/** True when `error` says that `name` itself (not something it depends on) cannot be found. */
function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") return false;
  const message = String((error as { message?: unknown }).message);
  return message.includes(`'${name}'`) || message.includes(`"${name}"`) || message.includes(`'${name}/`) || message.includes(`package '${name}`);
}

function requireOptional<T>(name: string, feature: string): T {
  try {
    return require(name) as T;
  } catch (error) {
    if (isMissing(error, name)) throw new MissingDependencyError(name, feature, { cause: error });
    throw error;
  }
}

/** Imports an optional ESM package; `load` must be `() => import("<name>")` with the literal name. */
export async function importOptional<T>(name: string, feature: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, name)) throw new MissingDependencyError(name, feature, { cause: error });
    throw error;
  }
}

/**
 * Runs every loader a feature needs and, when some packages are missing, throws one
 * MissingDependencyError naming all of them (one install instead of one per attempt).
 */
export async function loadAllOptional<T extends readonly unknown[]>(feature: string, loaders: { readonly [K in keyof T]: () => T[K] | Promise<T[K]> }): Promise<T> {
  const missing: string[] = [];
  const causes: unknown[] = [];
  const results = await Promise.all(
    (loaders as readonly (() => unknown)[]).map(async (load) => {
      try {
        return await load();
      } catch (error) {
        if (!(error instanceof MissingDependencyError)) throw error;
        missing.push(...error.packageNames);
        causes.push(error);
        return undefined;
      }
    }),
  );
  if (missing.length > 0) throw new MissingDependencyError(missing, feature, { cause: causes.length === 1 ? causes[0] : new AggregateError(causes) });
  return results as unknown as T;
}

/** The better-sqlite3 Database constructor. */
export function loadBetterSqlite3(feature: string): typeof BetterSqlite3 {
  return requireOptional<typeof BetterSqlite3>("better-sqlite3", feature);
}

/** The pg module (Pool, Client). */
export function loadPg(feature: string): typeof Pg {
  return requireOptional<typeof Pg>("pg", feature);
}
