import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import type { Output } from "./render.js";

/**
 * An error the CLI reports as one message (no stack) with an exit code: 1 refused/failed
 * (`GG_ERR_CLI_FAILED`), 2 usage (`GG_ERR_CLI_USAGE`).
 */
export class CliError extends GuardedGraphError {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(exitCode === 2 ? ErrorCode.CLI_USAGE : ErrorCode.CLI_FAILED, message);
  }
}

const suppressed = new WeakMap<object, unknown[]>();

/**
 * Keeps `later` (an error raised while closing, after `first` was already thrown) with `first`, which
 * stays the error that counts. Returns `first`, made an Error when it was not an object.
 */
export function addSuppressed(first: unknown, later: unknown): object {
  const kept = typeof first === "object" && first !== null ? first : new Error(String(first));
  suppressed.set(kept, [...(suppressed.get(kept) ?? []), later]);
  return kept;
}

/** The errors kept with `error` by addSuppressed, oldest first. */
export function suppressedErrors(error: unknown): unknown[] {
  return typeof error === "object" && error !== null ? (suppressed.get(error) ?? []) : [];
}

/** How a command's failure ends: its message, then any error kept with it, on stderr; the exit code. */
export function reportError(error: unknown, output: Output): number {
  output.err(`guarded-graph: ${messageOf(error)}`);
  for (const later of suppressedErrors(error)) output.err(`guarded-graph: then, while closing: ${messageOf(later)}`);
  return error instanceof CliError ? error.exitCode : 1;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
