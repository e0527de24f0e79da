/** What a redacted value is replaced with. */
import { AuditError, ErrorCode } from "../errors/index.js";
export const REDACTED = "[REDACTED]";

interface ParsedSelectors {
  /** Bare key names (lower-cased): redacted at any depth. */
  anywhere: ReadonlySet<string>;
  /** Dot paths, lower-cased segments; `*` matches any key at its level. */
  paths: readonly (readonly string[])[];
}

function parseSelectors(selectors: readonly string[]): ParsedSelectors {
  if (!Array.isArray(selectors)) throw new AuditError(ErrorCode.AUDIT_INVALID, "redaction refused: selectors must be an array of strings");
  const anywhere = new Set<string>();
  const paths: string[][] = [];
  for (const selector of selectors) {
    if (typeof selector !== "string" || selector.trim() === "") {
      throw new AuditError(ErrorCode.AUDIT_INVALID, `redaction selector refused: ${JSON.stringify(selector)} is not a non-empty string`);
    }
    const segments = selector.trim().toLowerCase().split(".");
    if (segments.some((segment) => segment === "")) {
      throw new AuditError(ErrorCode.AUDIT_INVALID, `redaction selector refused: ${JSON.stringify(selector)} has an empty path segment`);
    }
    const [only] = segments;
    if (segments.length === 1 && only !== undefined && only !== "*") anywhere.add(only);
    else paths.push(segments);
  }
  return { anywhere, paths };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // Plain assignment of "__proto__" would change the prototype instead of adding the key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function walk(value: unknown, paths: readonly (readonly string[])[], anywhere: ReadonlySet<string>, ancestors: WeakSet<object>): unknown {
  if (Array.isArray(value)) {
    if (ancestors.has(value)) return "[Circular]";
    ancestors.add(value);
    // Arrays are looked through: `items.secret` applies to every element of `items`.
    const copy = value.map((element) => walk(element, paths, anywhere, ancestors));
    ancestors.delete(value);
    return copy;
  }
  if (!isPlainObject(value)) return value;
  if (ancestors.has(value)) return "[Circular]";
  ancestors.add(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const lower = key.toLowerCase();
    let redact = anywhere.has(lower);
    const childPaths: (readonly string[])[] = [];
    if (!redact) {
      for (const [head, ...rest] of paths) {
        if (head !== "*" && head !== lower) continue;
        if (rest.length === 0) redact = true;
        else childPaths.push(rest);
      }
    }
    setOwn(copy, key, redact ? REDACTED : walk(value[key], childPaths, anywhere, ancestors));
  }
  ancestors.delete(value);
  return copy;
}

/**
 * Returns a copy of `args` with the values at the selectors replaced by "[REDACTED]"; the input
 * is never changed. Selectors: a dot path (`headers.authorization`), `*` for any key at one level
 * (`*.password`), or a bare key (`token`) that matches that key at any depth. Keys match
 * case-insensitively; arrays are looked through.
 */
export function redactArgs(args: unknown, selectors: readonly string[]): unknown {
  const { anywhere, paths } = parseSelectors(selectors);
  return walk(args, paths, anywhere, new WeakSet());
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isPlainObject(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) setOwn(sorted, key, sortKeys(value[key]));
  return sorted;
}

/** Canonical JSON (keys sorted at every level) of the redacted arguments, as `AuditRecord.args` holds it. */
export function auditArgs(args: unknown, selectors: readonly string[]): string {
  return JSON.stringify(sortKeys(redactArgs(args, selectors))) ?? "null";
}
