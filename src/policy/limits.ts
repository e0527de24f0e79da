import { argsSummary, measureArgs } from "../audit/summary.js";
import { refusals } from "../messages/index.js";

/**
 * Deepest argument nesting a call may have; deeper calls are refused before anything else reads
 * them. Kept at the depth rules inspect (32): LangGraph refuses to deserialise a checkpoint nested
 * deeper than 50 levels, and a message adds about 8 levels around a call's arguments.
 */
const MAX_ARGS_DEPTH = 32;
/** Longest arguments (string and key characters, plus one per value) a call may have. */
const MAX_ARGS_CHARS = 1_000_000;

/** The key under which a tool call's oversized arguments are replaced by their summary (see boundedArgs). */
const OVERSIZED_ARGS_KEY = "$oversizedArguments";

interface OversizedArguments {
  /** `the arguments are nested deeper than 64 levels` */
  reason: string;
  /** The sentence the model reads. */
  message(tool: string): string;
  /** A bounded, value-free stand-in for the arguments (kept in state and audit instead of them). */
  summary: Record<string, unknown>;
}

/**
 * Checks the size and depth of a call's arguments without recursion. Undefined when they are
 * within MAX_ARGS_DEPTH and MAX_ARGS_CHARS; otherwise why, and a summary to keep instead.
 */
export function checkArgumentLimits(args: unknown): OversizedArguments | undefined {
  if (typeof args === "object" && args !== null && Object.hasOwn(args, OVERSIZED_ARGS_KEY)) {
    // Already replaced by its summary when the model's message entered the state.
    const summary = (args as Record<string, unknown>)[OVERSIZED_ARGS_KEY];
    const bounded = typeof summary === "object" && summary !== null ? (summary as Record<string, unknown>) : {};
    const reason = typeof bounded.reason === "string" ? bounded.reason.slice(0, 200) : "the arguments were too deep or too large to keep";
    return { reason, message: (tool) => refusals.oversizedArguments(tool, reason), summary: { [OVERSIZED_ARGS_KEY]: bounded } };
  }
  // Most arguments are small and shallow: a walk without allocation says so; only the rest are measured.
  if (withinLimits(args, 0, MAX_ARGS_CHARS) >= 0) return undefined;
  const shape = measureArgs(args, { maxDepth: MAX_ARGS_DEPTH, maxChars: MAX_ARGS_CHARS });
  if (shape.exceeded === undefined) return undefined;
  const reason = refusals.oversizedArgumentsReason(shape.exceeded, shape.exceeded === "depth" ? MAX_ARGS_DEPTH : MAX_ARGS_CHARS);
  return { reason, message: (tool) => refusals.oversizedArguments(tool, reason), summary: argsSummary(args, shape) };
}

/** Set by `withinLimits` when it meets a null (reset by `argumentLimitsShape`). */
let sawNull = false;

/** `argumentLimitsShape`: within the limits, no null anywhere. */
export const WITHIN_NO_NULL = 0;
/** `argumentLimitsShape`: within the limits, some null. */
const WITHIN_WITH_NULL = 1;
/** `argumentLimitsShape`: perhaps over the limits, or already replaced by their summary: `checkArgumentLimits` tells. */
export const PERHAPS_OVER = -1;

/**
 * One walk of a call's arguments, without allocation: PERHAPS_OVER when `checkArgumentLimits` may
 * refuse them (then it is the one to ask), else whether they hold a null anywhere (WITHIN_NO_NULL
 * arguments have no strict-mode null to drop, see `withoutStrictNulls`).
 */
export function argumentLimitsShape(args: unknown): number {
  if (typeof args === "object" && args !== null && Object.hasOwn(args, OVERSIZED_ARGS_KEY)) return PERHAPS_OVER;
  sawNull = false;
  if (withinLimits(args, 0, MAX_ARGS_CHARS) < 0) return PERHAPS_OVER;
  return sawNull ? WITHIN_WITH_NULL : WITHIN_NO_NULL;
}

/**
 * The character budget left after `value` at nesting `level`, counted as `measureArgs` counts (one per
 * value, plus the length of every string and key; array elements and object values one level deeper),
 * or -1 once the arguments are deeper than MAX_ARGS_DEPTH or longer than MAX_ARGS_CHARS, as
 * `measureArgs` reports them exceeded (test/review-fast-paths.test.ts compares the two). What matters
 * for safety is that it never answers within limits for exceeded arguments: a -1 is checked again by
 * `measureArgs`. Recursion is bounded by the depth limit (cycles run into it).
 */
function withinLimits(value: unknown, level: number, budget: number): number {
  if (level > MAX_ARGS_DEPTH) return -1;
  budget -= 1;
  if (typeof value === "string") budget -= value.length;
  else if (value === null) sawNull = true;
  else if (typeof value === "object") {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        budget = withinLimits(value[i], level + 1, budget);
        if (budget < 0) return -1;
      }
    } else {
      // for-in over own keys: Object.keys' keys in its order, without an array per object.
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        budget -= key.length;
        if (budget < 0) return -1;
        budget = withinLimits((value as Record<string, unknown>)[key], level + 1, budget);
        if (budget < 0) return -1;
      }
    }
  }
  return budget < 0 ? -1 : budget;
}

/**
 * A tool call's oversized arguments replaced by `{ $oversizedArguments: summary }`, so the model's
 * message can be checkpointed (a 10,000-level object overflows every JSON serialiser) and review
 * refuses the call by that marker. Undefined when the arguments are within the limits or already
 * replaced. Reads them as `checkArgumentLimits` does: a getter or Proxy that throws throws here.
 */
export function boundedArgs(args: Record<string, unknown>): Record<string, unknown> | undefined {
  const oversized = checkArgumentLimits(args);
  if (oversized === undefined || Object.hasOwn(args, OVERSIZED_ARGS_KEY)) return undefined;
  return { [OVERSIZED_ARGS_KEY]: { reason: oversized.reason, ...oversized.summary } };
}
