import { homedir } from "node:os";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { PolicyError } from "./errors.js";
import { formatIssues } from "./format-issues.js";

/**
 * Claude Code's settings file (`.claude/settings.json`, `settings.local.json`, `~/.claude/settings.json`) read as a
 * policy: its `permissions.allow`, `ask` and `deny` lists are rule strings in the form the policy's `rule:` field
 * reads (`Bash(npm run test *)`, `Read(./.env)`, `WebFetch(domain:example.com)`, `mcp__github`), each with its mode;
 * Claude Code evaluates deny, then ask, then allow, as the policy's default precedence does. A project's settings
 * (a file in a `.claude` directory) set `pathBase` to the project (the directory holding `.claude`), where Claude
 * Code reads relative and `/`-rooted patterns from (the user's own, `~/.claude/settings.json`, name no project). The
 * file's other settings (hooks, env, model, defaultMode, ...)
 * configure Claude Code itself and are not read; `ignoredClaudeSettings` names them.
 */

/** The permission lists of a settings file (built on first use: importing the package builds no schema). */
const ClaudePermissionsSchema = z.lazy(() => {
  const rules = z.array(z.string().min(1, "a rule string cannot be empty"));
  return z.object({ allow: rules.optional(), ask: rules.optional(), deny: rules.optional() });
});

/** The document shape: no `version` (a policy file's), and `permissions` an object (a policy file's is a list). */
function isClaudeSettings(raw: unknown): raw is Record<string, unknown> & { permissions: Record<string, unknown> } {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return false;
  const doc = raw as Record<string, unknown>;
  const permissions = doc.permissions;
  return !Object.hasOwn(doc, "version") && typeof permissions === "object" && permissions !== null && !Array.isArray(permissions);
}

/**
 * The project a settings file in a `.claude` directory belongs to (its parent), else undefined. The user's own settings
 * (`~/.claude/settings.json`) hold for every project, so they name none.
 */
function projectOf(source: string, home: string): string | undefined {
  const directory = dirname(source);
  if (!/(?:^|[\\/])\.claude$/.test(directory)) return undefined;
  const project = resolve(dirname(directory));
  return project === resolve(home) ? undefined : project;
}

/**
 * The policy document a Claude Code settings document stands for, or undefined when `raw` is not one (a policy
 * file has `version: 1` and a list of permissions). Throws a PolicyError naming `source` and the list and index of a
 * malformed entry.
 */
export function fromClaudeSettings(raw: unknown, source: string, home = homedir()): Record<string, unknown> | undefined {
  if (!isClaudeSettings(raw)) return undefined;
  const parsed = ClaudePermissionsSchema.safeParse(raw.permissions);
  if (!parsed.success) throw new PolicyError(source, "permissions", formatIssues(parsed.error.issues, raw.permissions).join("; "));
  const { allow = [], ask = [], deny = [] } = parsed.data;
  const project = projectOf(source, home);
  return {
    version: 1,
    ...(project === undefined ? {} : { pathBase: project }),
    permissions: [
      ...deny.map((rule, i) => ({ id: `deny[${i}]`, rule, mode: "deny" })),
      ...ask.map((rule, i) => ({ id: `ask[${i}]`, rule, mode: "ask" })),
      ...allow.map((rule, i) => ({ id: `allow[${i}]`, rule, mode: "allow" })),
    ],
  };
}

/** The settings of a Claude Code settings document that the policy does not read (its keys, `permissions.defaultMode` and the like). */
export function ignoredClaudeSettings(raw: unknown): string[] {
  if (!isClaudeSettings(raw)) return [];
  const permissionKeys = Object.keys(raw.permissions).filter((key) => key !== "allow" && key !== "ask" && key !== "deny").map((key) => `permissions.${key}`);
  // `$schema` only tells an editor how to check the file.
  return [...Object.keys(raw).filter((key) => key !== "permissions" && key !== "$schema"), ...permissionKeys];
}
