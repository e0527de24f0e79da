import { redactArgs } from "./redact.js";
import { canonicalArgs, MAX_MATCH_DEPTH, MAX_MATCH_INPUT_CHARS } from "../policy/canonical.js";

/** What an iterative walk found, stopping as soon as a limit is crossed (never recursive, so never a stack overflow). */
interface ArgsShape {
  /** Deepest nesting seen (a lower bound when `exceeded`). */
  depth: number;
  /** String and key characters plus one per value seen (a lower bound when `exceeded`). */
  chars: number;
  exceeded: "depth" | "size" | undefined;
}

/** Measures `args` without recursion; stops at the first limit crossed. Cycles run into the depth limit. */
export function measureArgs(args: unknown, limits: { maxDepth: number; maxChars: number }): ArgsShape {
  // Two parallel stacks (value, level): no tuple per value on the review's hot path.
  const values: unknown[] = [args];
  const levels: number[] = [0];
  let depth = 0;
  let chars = 0;
  while (values.length > 0) {
    const value = values.pop();
    const level = levels.pop()!;
    chars += 1;
    if (level > depth) depth = level;
    if (depth > limits.maxDepth) return { depth, chars, exceeded: "depth" };
    if (typeof value === "string") chars += value.length;
    else if (typeof value === "object" && value !== null) {
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i -= 1) {
          values.push(value[i]);
          levels.push(level + 1);
        }
      } else {
        for (const key of Object.keys(value)) {
          chars += key.length;
          values.push((value as Record<string, unknown>)[key]);
          levels.push(level + 1);
        }
      }
    }
    if (chars > limits.maxChars) return { depth, chars, exceeded: "size" };
  }
  return { depth, chars, exceeded: undefined };
}

const SUMMARY_KEYS = 20;
const SUMMARY_KEY_CHARS = 64;

/**
 * A bounded, value-free description of arguments too deep or too large to record: their type,
 * top-level key names (at most 20, each cut to 64 characters), and how deep / how large they are
 * at least. Holds no values, so nothing the redaction list protects can leak through it.
 */
export function argsSummary(args: unknown, shape: ArgsShape): Record<string, unknown> {
  const type = Array.isArray(args) ? "array" : args === null ? "null" : typeof args;
  const keys =
    typeof args === "object" && args !== null && !Array.isArray(args)
      ? Object.keys(args)
          .slice(0, SUMMARY_KEYS)
          .map((key) => (key.length > SUMMARY_KEY_CHARS ? `${key.slice(0, SUMMARY_KEY_CHARS - 1)}…` : key))
      : [];
  return {
    $summary: shape.exceeded === "depth" ? "arguments nested too deep to record" : "arguments too large to record",
    type,
    keys,
    depthAtLeast: shape.depth,
    charsAtLeast: shape.chars,
  };
}

/**
 * The `args` text of an audit record: canonical JSON of the redacted arguments, or, for
 * arguments deeper than MAX_MATCH_DEPTH or longer than MAX_MATCH_INPUT_CHARS, a bounded summary.
 * Never throws on any JSON-like input (deep, huge, cyclic).
 */
export function auditArgsText(args: unknown, redact: readonly string[]): string {
  const shape = measureArgs(args, { maxDepth: MAX_MATCH_DEPTH, maxChars: MAX_MATCH_INPUT_CHARS });
  if (shape.exceeded === undefined) {
    try {
      return canonicalArgs(redactArgs(args, redact));
    } catch {
      // a cycle inside the limits, or a value whose toJSON throws: summarised below
    }
  }
  return JSON.stringify(argsSummary(args, shape));
}
