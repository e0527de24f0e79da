import { parseArgs, type ParseArgsConfig } from "node:util";
import { z } from "zod";
import { CliError } from "./errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Flags every command that touches storage takes. */
export const STORAGE_OPTIONS = {
  db: { type: "string" },
  audit: { type: "string" },
} as const satisfies Options;

/**
 * Parses argv with node's parseArgs (strict: unknown flags are refused) and validates the values
 * with a zod schema, so every flag is checked before a command runs.
 */
export function parseFlags<S extends z.ZodType>(
  command: string,
  argv: string[],
  options: Options,
  schema: S,
): { flags: z.output<S>; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    const known = Object.keys(options).map((name) => `--${name}`).join(", ");
    throw new CliError(`${command}: ${(error as Error).message}. Flags of ${command}: ${known || "(none)"}`, 2);
  }
  const result = schema.safeParse(parsed.values);
  if (!result.success) {
    const detail = result.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; ");
    throw new CliError(`${command}: ${detail}`, 2);
  }
  return { flags: result.data, positionals: parsed.positionals };
}

export const storageFlagsSchema = {
  db: z.string().min(1).optional(),
  audit: z.string().min(1).optional(),
};
