import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { ErrorCode, StorageError } from "../errors/index.js";

/** Where checkpoints, locks and the execution ledger live. */
type StorageSpec =
  | { kind: "sqlite"; path: string; spec: string }
  | { kind: "postgres"; url: string; spec: string }
  | { kind: "memory"; name: string; spec: string };

export const DEFAULT_STORAGE_SPEC = "sqlite:.guarded-graph/checkpoints.db";
const STORAGE_ENV_VAR = "GUARDED_GRAPH_DB";

const specSchema = z.lazy(() =>
  z
    .string()
    .trim()
    .min(1, "storage spec is empty")
    .refine((value) => /^(sqlite:.+|postgres(ql)?:\/\/.+|memory:.*)$/.test(value), {
      message: 'storage spec must be "sqlite:PATH", "postgres://…", "postgresql://…" or "memory:"',
    }),
);

/** The spec to use: the argument, else `GUARDED_GRAPH_DB`, else the embedded SQLite default. */
export function resolveStorageSpec(spec?: string): string {
  const chosen = spec ?? process.env[STORAGE_ENV_VAR];
  return chosen === undefined || chosen.trim() === "" ? DEFAULT_STORAGE_SPEC : chosen;
}

/** Parses and validates a storage spec; throws an error that names the refused spec and the accepted forms. */
export function parseStorageSpec(spec: string): StorageSpec {
  const parsed = specSchema.safeParse(spec);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((issue) => issue.message).join("; ");
    throw new StorageError(ErrorCode.STORAGE_SPEC, `invalid storage spec ${JSON.stringify(spec)}: ${reason}`);
  }
  const value = parsed.data;
  if (value.startsWith("sqlite:")) {
    const path = value.slice("sqlite:".length);
    return { kind: "sqlite", path: path === ":memory:" ? path : resolve(path), spec: value };
  }
  if (value.startsWith("memory:")) return { kind: "memory", name: value.slice("memory:".length), spec: value };
  try {
    new URL(value);
  } catch {
    throw new StorageError(ErrorCode.STORAGE_SPEC, `invalid storage spec ${JSON.stringify(spec)}: not a valid PostgreSQL URL`);
  }
  return { kind: "postgres", url: value, spec: value };
}

/** Creates the directory of a SQLite file so a fresh checkout works with the default spec. */
export function ensureSqliteDirectory(path: string): void {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
}

const identifierSchema = z.lazy(() =>
  z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, "must be a plain SQL identifier (letters, digits, underscore)"),
);

/** Validates a schema or table name that is interpolated into SQL. */
export function sqlIdentifier(value: string, what: string): string {
  const parsed = identifierSchema.safeParse(value);
  if (!parsed.success) throw new StorageError(ErrorCode.STORAGE_SPEC, `invalid ${what} ${JSON.stringify(value)}: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
