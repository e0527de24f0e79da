import { readdirSync } from "node:fs";
import { extname, join, resolve } from "node:path";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import { deployMessages } from "../messages/index.js";
import { packageRoot } from "../package-root.js";

const POLICY_EXTENSIONS = new Set([".yaml", ".yml", ".toml", ".json"]);
const POLICY_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The server's own policy set: GUARDED_GRAPH_POLICY_DIR, else the package's `policies/`. */
export function policyDirectory(env: Record<string, string | undefined> = process.env): string {
  const dir = env.GUARDED_GRAPH_POLICY_DIR?.trim();
  return dir ? resolve(dir) : join(packageRoot(), "policies");
}

/** Policy names in `dir` (file name without extension; JSON schemas `*.schema.json` are not policies), with their files. */
export function policyFiles(dir: string): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name.endsWith(".schema.json")) continue;
    const extension = extname(entry.name).toLowerCase();
    if (!POLICY_EXTENSIONS.has(extension)) continue;
    const name = entry.name.slice(0, -extension.length);
    if (!POLICY_NAME.test(name)) continue;
    byName.set(name, [...(byName.get(name) ?? []), entry.name].sort());
  }
  return byName;
}

/**
 * The file of the policy an assistant names (`configurable.policy`), from the server's set only: a
 * name is a plain word, never a path or a policy body; an unknown or ambiguous name is refused.
 */
export function resolvePolicyName(value: unknown, dir: string = policyDirectory()): string {
  if (typeof value !== "string") throw new GuardedGraphError(ErrorCode.POLICY, deployMessages.policyNameNotString());
  if (!POLICY_NAME.test(value)) throw new GuardedGraphError(ErrorCode.POLICY, deployMessages.badPolicyName(value.slice(0, 80)));
  const files = policyFiles(dir);
  const found = files.get(value);
  if (found === undefined) throw new GuardedGraphError(ErrorCode.POLICY, deployMessages.unknownPolicyName(value, [...files.keys()].sort()));
  if (found.length > 1) throw new GuardedGraphError(ErrorCode.POLICY, deployMessages.ambiguousPolicyName(value, found));
  return join(dir, found[0] as string);
}

/**
 * Why a request's config names no usable policy (`configurable.policy`), or undefined when it names
 * none or a known one. The auth handler refuses such assistants and runs when they are created.
 */
export function policyNameProblem(config: unknown, dir: string = policyDirectory()): string | undefined {
  const configurable = typeof config === "object" && config !== null ? (config as { configurable?: unknown }).configurable : undefined;
  const requested = typeof configurable === "object" && configurable !== null ? (configurable as { policy?: unknown }).policy : undefined;
  if (requested === undefined || requested === null) return undefined;
  try {
    resolvePolicyName(requested, dir);
    return undefined;
  } catch (error) {
    if (error instanceof GuardedGraphError) return error.message;
    throw error;
  }
}
