import { z } from "zod";
import { $ZodAsyncError, config as zodConfig, util as zodUtil, type $ZodIssue, type $ZodRawIssue } from "zod/v4/core";

/** A call's arguments as the tool's input schema reads them: the parsed input, or what is wrong (at most five issues, `path: message; …`). */
type ParsedArguments = { success: true; data: unknown } | { success: false; detail: string };

/** Issues a refusal names (the first ones, in zod's order). */
const SHOWN_ISSUES = 5;

interface RunnableInternals {
  run(payload: { value: unknown; issues: $ZodRawIssue[] }, ctx: { async: boolean }): { value: unknown; issues: $ZodRawIssue[] } | Promise<unknown>;
}

/** The schema's own parse step when it is a zod 4 schema (`safeParse` runs exactly this), else undefined. */
function zodRun(schema: z.ZodType): RunnableInternals | undefined {
  const internals = (schema as unknown as { _zod?: { run?: unknown } })._zod;
  return typeof internals?.run === "function" ? (internals as RunnableInternals) : undefined;
}

/**
 * `schema.safeParse(args)`, with a refusal's issues rendered as `path: message` (at most five,
 * joined by "; "). For a zod 4 schema the parse runs the schema's own step as `safeParse` does and
 * finalises only the issues shown, with zod's own `finalizeIssue` and configuration: the same data
 * and the same text, without building the ZodError (its stack trace is most of a refused call's
 * cost). Any other schema goes through `safeParse`.
 */
export function parseToolArguments(schema: z.ZodType, args: unknown): ParsedArguments {
  const zod = zodRun(schema);
  if (zod === undefined) return parseWithSafeParse(schema, args);
  const ctx = { async: false };
  const result = zod.run({ value: args, issues: [] }, ctx);
  // A schema with an async refinement or transform: safeParse throws this too.
  if (result instanceof Promise) throw new $ZodAsyncError();
  if (result.issues.length === 0) return { success: true, data: result.value };
  const shown: $ZodIssue[] = [];
  const settings = zodConfig();
  for (let i = 0; i < result.issues.length && i < SHOWN_ISSUES; i++) shown.push(zodUtil.finalizeIssue(result.issues[i]!, ctx, settings));
  return { success: false, detail: formatIssues(shown) };
}

function parseWithSafeParse(schema: z.ZodType, args: unknown): ParsedArguments {
  const parsed = schema.safeParse(args);
  return parsed.success ? { success: true, data: parsed.data } : { success: false, detail: formatIssues(parsed.error.issues) };
}

/** The first five issues as `path: message`, joined by "; " (the root path reads `(root)`). */
export function formatIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, SHOWN_ISSUES)
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}
