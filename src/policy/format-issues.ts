import type { z } from "zod";
import { formatPath } from "./errors.js";

type Issue = z.core.$ZodIssue;

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a table/object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** Among the alternatives of a union, the one the author most likely meant: fewest problems, deepest path. */
function closestAlternative(alternatives: readonly (readonly Issue[])[]): readonly Issue[] {
  let best: readonly Issue[] = alternatives[0] ?? [];
  const depth = (issues: readonly Issue[]) => Math.max(0, ...issues.map((issue) => issue.path.length));
  for (const candidate of alternatives.slice(1)) {
    if (candidate.length < best.length || (candidate.length === best.length && depth(candidate) > depth(best))) best = candidate;
  }
  return best;
}

function expectation(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case "invalid_value":
      return `expected ${issue.values.length === 1 ? JSON.stringify(issue.values[0]) : `one of ${issue.values.join("|")}`}, got ${describeValue(value)}`;
    case "invalid_type":
      return value === undefined ? `is required (expected ${issue.expected})` : `expected ${issue.expected}, got ${describeValue(value)}`;
    case "unrecognized_keys":
      return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}`;
    case "too_small":
      return `${issue.message} (got ${describeValue(value)})`;
    default:
      return issue.message;
  }
}

/**
 * One line per problem: `path: expected ..., got ...`. `root` is the parsed document, used to show
 * the offending value. Union failures report the alternative closest to what was written.
 */
export function formatIssues(issues: readonly Issue[], root: unknown, displayPrefix: readonly PropertyKey[] = []): string[] {
  return formatAt(issues, root, [], displayPrefix);
}

function formatAt(issues: readonly Issue[], root: unknown, base: readonly PropertyKey[], displayPrefix: readonly PropertyKey[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      lines.push(...formatAt(closestAlternative(issue.errors), root, path, displayPrefix));
      continue;
    }
    const where = formatPath([...displayPrefix, ...path]);
    const value = issue.code === "unrecognized_keys" ? undefined : valueAt(root, path);
    lines.push(`${where === "" ? "(document)" : where}: ${expectation(issue, value)}`);
  }
  return lines;
}
