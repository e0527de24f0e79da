import { ErrorCode, GuardedGraphError } from "../errors/index.js";

/**
 * A policy that cannot be used: names the file (when there is one), the path inside it and what
 * was expected, e.g. `devops.yaml: permissions[3].mode: expected one of allow|deny|ask, got "maybe"`.
 */
export class PolicyError extends GuardedGraphError {
  override name = "PolicyError";
  constructor(
    /** File or other source name; undefined for policies built in code. */
    readonly source: string | undefined,
    /** Path inside the document, e.g. `permissions[3].mode` (empty for the whole document). */
    readonly path: string,
    readonly detail: string,
  ) {
    super(ErrorCode.POLICY, [source, path, detail].filter((part) => part !== undefined && part !== "").join(": "));
  }

  /** The same error attributed to a source file. */
  withSource(source: string): PolicyError {
    return new PolicyError(source, this.path, this.detail);
  }
}

/** Renders a path from zod or our own walkers: `permissions[3].where.namespace`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else {
      const key = String(part);
      out += /^[A-Za-z_$][\w$-]*$/.test(key) ? (out === "" ? key : `.${key}`) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}
