import { picomatchLibrary } from "../deps/on-demand.js";
import { z } from "zod";
import { MEMORY_PERMISSIONS, type MemoryPermission } from "../memory/types.js";

/** A memory permission, or `denied`: the path cannot even be read. */
const FILE_PERMISSIONS = ["denied", ...MEMORY_PERMISSIONS] as const;
export type FilePermission = (typeof FILE_PERMISSIONS)[number];

const fileRuleSchema = z.object({
  /** picomatch glob on the path relative to the base, e.g. "src/**", "**\/*.env". Dotfiles match. */
  pattern: z.string().min(1),
  permission: z.enum(FILE_PERMISSIONS),
});
export type FileRule = z.infer<typeof fileRuleSchema>;

/** Strictness order (strictest first) used when several rules match. */
const STRICTNESS: readonly FilePermission[] = FILE_PERMISSIONS;

export interface PermissionMatch {
  permission: FilePermission;
  /** Pattern of the deciding rule; undefined when the default applied. */
  rule: string | undefined;
}

/**
 * Glob rules → permission. Every matching rule applies and the strictest wins, so
 * `src/**` read-write plus `**\/*.env` denied still denies `src/.env`, whatever the order.
 *
 * A rule also holds for the spellings of its paths that differ only in case or in Unicode
 * normalisation, when that makes the permission stricter: on a case-insensitive file system (macOS
 * and Windows by default) `.ENV` and `SECRETS/key` are `.env` and `secrets/key`, and on macOS a
 * decomposed `café` is the composed one. Such a spelling never gets more than its exact spelling
 * would: on a case-sensitive file system `SRC/x` is not `src/x`, so a read-write `src/**` does not
 * reach it.
 */
export class FileRules {
  readonly rules: readonly FileRule[];
  readonly defaultPermission: FilePermission;
  readonly #matchers: { rule: FileRule; test: (p: string) => boolean; loose: (p: string) => boolean }[];

  constructor(rules: readonly FileRule[], defaultPermission: FilePermission = "denied") {
    this.rules = z.array(fileRuleSchema).parse(rules);
    this.defaultPermission = defaultPermission;
    const picomatch = picomatchLibrary();
    this.#matchers = this.rules.map((rule) => {
      const loose = picomatch(rule.pattern.normalize("NFC"), { dot: true, nocase: true });
      return { rule, test: picomatch(rule.pattern, { dot: true }), loose: (p: string) => loose(p.normalize("NFC")) };
    });
  }

  match(relativePath: string): PermissionMatch {
    let best: PermissionMatch | undefined;
    for (const { rule, test } of this.#matchers) {
      if (!test(relativePath)) continue;
      if (!best || STRICTNESS.indexOf(rule.permission) < STRICTNESS.indexOf(best.permission)) {
        best = { permission: rule.permission, rule: rule.pattern };
      }
    }
    let found: PermissionMatch = best ?? { permission: this.defaultPermission, rule: undefined };
    // The same path spelled in another case or normalisation: only a stricter rule applies.
    for (const { rule, loose } of this.#matchers) {
      if (STRICTNESS.indexOf(rule.permission) < STRICTNESS.indexOf(found.permission) && loose(relativePath)) found = { permission: rule.permission, rule: rule.pattern };
    }
    return found;
  }

  /** The stricter of two matches. */
  static stricter(a: PermissionMatch, b: PermissionMatch): PermissionMatch {
    return STRICTNESS.indexOf(b.permission) < STRICTNESS.indexOf(a.permission) ? b : a;
  }

  /** Human-readable summary of what is allowed, for refusal messages. */
  describe(): string {
    const parts = this.rules.filter((r) => r.permission !== "denied").map((r) => `${r.pattern} (${r.permission})`);
    return parts.length ? parts.join(", ") : "nothing";
  }
}

export function isMemoryPermission(p: FilePermission): p is MemoryPermission {
  return p !== "denied";
}
