import { homedir } from "node:os";
import { basename, dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { PolicyError } from "./errors.js";
import { formatIssues } from "./format-issues.js";
import { namedArgumentOf, namedRuleHoldsWhenAbsent } from "./compact.js";

/**
 * Claude Code's settings files (`.claude/settings.json`, `settings.local.json`, `~/.claude/settings.json`, managed
 * settings) read as a policy, as Claude Code's permissions pages say they act:
 *
 * - `permissions.allow`, `ask` and `deny` are rule strings in the form the policy's `rule:` field reads, each with its
 *   mode; Claude Code evaluates deny, then ask, then allow, as the policy's default precedence does. Across files the
 *   lists merge, so a deny in any file wins and an ask in any file beats an allow (under a managed
 *   `allowManagedPermissionRulesOnly`, only the managed file's rules count).
 * - a path pattern with one leading slash is anchored at the settings source: the project for `.claude/settings.json`,
 *   the directory Claude Code starts in for `settings.local.json`, `~/.claude` for the user's own settings.
 * - an allow rule reads each tool's own specifier: a parameter form (`Bash(run_in_background:true)`) is a deny and ask
 *   form only, and a path rule on Write, NotebookEdit, MultiEdit or Glob, or a parenthesised `mcp__` rule, in `allow`
 *   is never consulted by Claude Code: not read (and said so).
 * - the working directories (the project and `additionalDirectories`) are where reads need no approval;
 *   `defaultMode` sets what calls no rule decides: `acceptEdits` allows file edits in the working directories (not
 *   `.git` or `.claude`), `plan` holds every edit for approval, `dontAsk` denies whatever would ask, and
 *   `bypassPermissions` allows whatever no deny or ask rule names (not from project or local settings, and not when
 *   any file sets `disableBypassPermissionsMode: "disable"`).
 *
 * The files' other settings (hooks, env, model, ...) configure Claude Code itself and are not read; `notRead` names
 * them, `notes` say what was read otherwise than written and why.
 */

/** Where a settings file sits in Claude Code's precedence, highest first; `file` is one passed by name (`--settings`). */
export type ClaudeSettingsScope = "managed" | "commandLine" | "local" | "project" | "user" | "file";

/** One settings file (or the command line's settings) and where it sits. */
export interface ClaudeSettingsLayer {
  readonly scope: ClaudeSettingsScope;
  /** The file's path (names it in errors and decisions; a `file` scope anchors `/path` patterns at its directory). */
  readonly source: string;
  /** The parsed JSON. */
  readonly settings: unknown;
}

/** Where Claude Code runs: the project (the directory holding `.claude`), the directory it starts in, the user's home. */
export interface ClaudeSettingsPlace {
  readonly project?: string | undefined;
  /** The directory Claude Code starts in (default: the project). */
  readonly cwd?: string | undefined;
  readonly home?: string | undefined;
}

/** A policy document for the settings, with the settings not read and what was read otherwise than written. */
export interface ClaudeSettingsReading {
  readonly doc: Record<string, unknown>;
  readonly notRead: string[];
  readonly notes: string[];
}

const PRECEDENCE: readonly ClaudeSettingsScope[] = ["managed", "commandLine", "local", "project", "file", "user"];
const MODES = ["default", "manual", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"] as const;
type ClaudeMode = (typeof MODES)[number];
/** The permission settings the guard reads. */
const READ_PERMISSION_KEYS = new Set(["allow", "ask", "deny", "defaultMode", "additionalDirectories", "disableBypassPermissionsMode"]);
/** Top-level settings the guard reads (`$schema` only tells an editor how to check the file). */
const READ_KEYS = new Set(["permissions", "$schema", "allowManagedPermissionRulesOnly", "disableBypassPermissionsMode"]);

/** The permission lists and modes of a settings file (built on first use: importing the package builds no schema). */
const ClaudePermissionsSchema = z.lazy(() => {
  const rules = z.array(z.string().min(1, "a rule string cannot be empty"));
  return z.object({
    allow: rules.optional(),
    ask: rules.optional(),
    deny: rules.optional(),
    defaultMode: z.enum(MODES, { message: `expected one of ${MODES.join(", ")}` }).optional(),
    additionalDirectories: z.array(z.string().min(1, "a directory cannot be empty")).optional(),
    disableBypassPermissionsMode: z.string().optional(),
  });
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

/** The scope a settings file has by its place: `~/.claude/settings.json` the user's, `.claude/settings.local.json` local, ... */
function claudeSettingsScope(source: string, home = homedir()): ClaudeSettingsScope {
  const name = basename(source);
  if (/^managed-settings\.json$/i.test(name) || /[\\/]managed-settings\.d[\\/]/.test(source)) return "managed";
  if (!/(?:^|[\\/])\.claude$/.test(dirname(source))) return "file";
  if (projectOf(source, home) === undefined) return "user";
  return name === "settings.local.json" ? "local" : "project";
}

const RULE_RE = /^\s*([^()\s]+)\s*(?:\(([\s\S]*)\))?\s*$/;
const PARAMETER_RE = /^([A-Za-z_$][\w$-]*)\s*:\s*([\s\S]*)$/;
/** Claude Code's tools whose specifier is a path, and the argument holding it. */
const PATH_TOOLS: Readonly<Record<string, string>> = { Read: "file_path", Edit: "file_path", Write: "file_path", MultiEdit: "file_path", NotebookEdit: "notebook_path", Glob: "path", Grep: "path", LSP: "file_path" };
/** Path rules Claude Code never consults (it checks Edit and Read rules): the rule to write instead. */
const NOT_CONSULTED: Readonly<Record<string, string>> = { Write: "Edit", NotebookEdit: "Edit", MultiEdit: "Edit", Glob: "Read" };
const COMMAND_TOOLS: Readonly<Record<string, string>> = { Bash: "command", PowerShell: "command", Monitor: "command" };
/** The tools a file edit goes through, and the argument holding the file. */
const EDIT_TOOLS: readonly (readonly [string, string])[] = [["Edit", "file_path"], ["Write", "file_path"], ["MultiEdit", "file_path"], ["NotebookEdit", "notebook_path"]];
/** The tools that read without approval inside the working directories, and the argument holding the place. */
const READ_TOOLS: readonly (readonly [string, string])[] = [["Read", "file_path"], ["Grep", "path"], ["Glob", "path"]];
/** Paths in a working directory that no mode but bypassPermissions auto-approves a write to. */
const PROTECTED = [".git", ".claude"];

/** The directory a `/path` pattern of this source is anchored at (Claude Code's permissions page), if known. */
function anchorOf(layer: ClaudeSettingsLayer, place: ClaudeSettingsPlace, home: string): string | undefined {
  switch (layer.scope) {
    case "user":
      return resolve(home, ".claude");
    case "project":
      return projectOf(layer.source, home) ?? place.project;
    case "file":
      return dirname(resolve(layer.source));
    default:
      return place.cwd ?? place.project;
  }
}

interface Entry {
  id: string;
  rule?: string;
  tool?: string;
  where?: Record<string, unknown>;
  mode: "allow" | "deny" | "ask";
}

/** One rule string of a file as the guard reads it, or undefined (with a note) when Claude Code never consults it. */
function readRule(text: string, list: "allow" | "ask" | "deny", label: string, anchor: string | undefined, notes: string[]): string | readonly string[] | undefined {
  const match = RULE_RE.exec(text);
  if (match === null) return text; // refused with the grammar when the policy is built
  let tool = match[1] ?? "";
  let spec = match[2]?.trim();
  // A bare rule on the Agent tool holds for the Task tool it was renamed from, and the other way round.
  if ((tool === "Task" || tool === "Agent") && (spec === undefined || spec === "" || spec === "*")) tool = "{Agent,Task}";
  if (spec === undefined || spec === "" || spec === "*") return spec === undefined ? tool : `${tool}(${spec})`;
  const parameter = PARAMETER_RE.exec(spec);
  if (tool.startsWith("mcp__") && list === "allow") {
    notes.push(`${label} ${text}: Claude Code skips an mcp__ rule with parentheses: not read`);
    return undefined;
  }
  if (Object.hasOwn(PATH_TOOLS, tool)) {
    if (list === "allow" && Object.hasOwn(NOT_CONSULTED, tool) && parameter === null) {
      notes.push(`${label} ${text}: Claude Code checks file permissions against Edit(...) and Read(...) rules only and never consults a path rule on ${tool}: not read; write ${NOT_CONSULTED[tool]}(${spec}) instead`);
      return undefined;
    }
    if (list !== "allow" && Object.hasOwn(NOT_CONSULTED, tool) && parameter === null) {
      notes.push(`${label} ${text}: Claude Code never consults a path rule on ${tool} (write ${NOT_CONSULTED[tool]}(${spec})); the guard holds it, as written`);
    }
    if (list === "allow" && parameter !== null) spec = `${PATH_TOOLS[tool]}:${spec}`;
    // `/path` is anchored at the settings source: written as the absolute `//ANCHOR/path`.
    else if (parameter === null && /^\/(?!\/)/.test(spec) && anchor !== undefined) spec = `/${anchor}${spec}`;
    // "A Read(...) deny rule also blocks the Edit and Write tools on the same path"; "An Edit(...) allow rule also
    // grants read access to the same path" (Claude Code's tools reference).
    if (parameter === null && tool === "Read" && list === "deny") return [`${tool}(${spec})`, `Edit(${spec})`];
    if (parameter === null && tool === "Edit" && list === "allow") return [`${tool}(${spec})`, `Read(${spec})`];
    return `${tool}(${spec})`;
  }
  if (list !== "allow" && parameter !== null && Object.hasOwn(COMMAND_TOOLS, tool) && parameter[1] === COMMAND_TOOLS[tool] && !spec.endsWith(":*")) {
    notes.push(`${label} ${text}: Claude Code ignores a rule on ${tool}'s own ${parameter[1]} parameter (a compound command would pass it) and warns; the guard holds it as ${tool}(${(parameter[2] ?? "").trim()}), which reads every command of a compound line`);
  }
  if (list !== "allow" || parameter === null) return `${tool}(${spec})`;
  // An allow reads the tool's own specifier: a parameter form is a deny and ask form only.
  if (Object.hasOwn(COMMAND_TOOLS, tool)) return spec.endsWith(":*") ? `${tool}(${spec})` : `${tool}(${COMMAND_TOOLS[tool]}:${spec})`;
  const named = namedArgumentOf(tool);
  if (named !== undefined) return `${tool}(${named.field}:${spec})`;
  if (tool === "WebFetch" && parameter[1] !== "domain") {
    notes.push(`${label} ${text}: a WebFetch allow rule reads domain:HOST only in Claude Code: not read`);
    return undefined;
  }
  return `${tool}(${spec})`;
}

/** A working directory as written in `additionalDirectories`, placed; undefined (with a note) when it cannot be. */
function placeDirectory(written: string, base: string | undefined, home: string, label: string, notes: string[]): string | undefined {
  const expanded = written === "~" ? home : written.startsWith("~/") ? resolve(home, written.slice(2)) : written;
  if (!isAbsolute(expanded) && base === undefined) {
    notes.push(`${label} ${JSON.stringify(written)}: a relative directory in settings that name no project cannot be placed: not read`);
    return undefined;
  }
  const dir = resolve(base ?? "/", expanded);
  if (/[*?[\]{}\\]/.test(dir)) {
    notes.push(`${label} ${JSON.stringify(written)}: a directory whose name holds a pattern character is not read`);
    return undefined;
  }
  return dir.replace(/\/+$/, "") || "/";
}

interface ParsedLayer {
  readonly layer: ClaudeSettingsLayer;
  readonly raw: Record<string, unknown> & { permissions: Record<string, unknown> };
  readonly permissions: { allow?: string[]; ask?: string[]; deny?: string[]; defaultMode?: ClaudeMode; additionalDirectories?: string[]; disableBypassPermissionsMode?: string };
}

function parseLayer(layer: ClaudeSettingsLayer): ParsedLayer {
  const raw = layer.settings;
  if (!isClaudeSettings(raw)) {
    const empty = typeof raw === "object" && raw !== null && !Array.isArray(raw) && !Object.hasOwn(raw, "version") && !Object.hasOwn(raw, "permissions");
    if (empty) return { layer, raw: { ...(raw as Record<string, unknown>), permissions: {} }, permissions: {} };
    throw new PolicyError(layer.source, "permissions", "expected Claude Code's settings: an object with a permissions object (allow, ask, deny)");
  }
  const parsed = ClaudePermissionsSchema.safeParse(raw.permissions);
  if (!parsed.success) throw new PolicyError(layer.source, "permissions", formatIssues(parsed.error.issues, raw.permissions).join("; "));
  return { layer, raw, permissions: parsed.data };
}

/**
 * The policy document that several Claude Code settings files stand for, merged as Claude Code merges them (its
 * settings page: managed > command line > local project > project > user). Throws a PolicyError naming the file and the
 * list of a malformed entry.
 */
export function claudeSettingsDocument(layers: readonly ClaudeSettingsLayer[], place: ClaudeSettingsPlace = {}): ClaudeSettingsReading {
  const home = place.home ?? homedir();
  const parsed = layers.map(parseLayer).sort((a, b) => PRECEDENCE.indexOf(a.layer.scope) - PRECEDENCE.indexOf(b.layer.scope));
  const notes: string[] = [];
  const notRead: string[] = [];
  const prefixed = layers.length > 1;
  const project = place.project ?? parsed.map((one) => (one.layer.scope === "project" || one.layer.scope === "local" ? projectOf(one.layer.source, home) : undefined)).find((found) => found !== undefined);
  const cwd = place.cwd ?? project;
  const managedOnly = parsed.some((one) => one.layer.scope === "managed" && one.raw.allowManagedPermissionRulesOnly === true);
  const disableBypass = parsed.some((one) => one.permissions.disableBypassPermissionsMode === "disable" || one.raw.disableBypassPermissionsMode === "disable");
  // defaultMode: the highest file that sets it; auto and bypassPermissions do not take effect from project or local settings.
  let mode: ClaudeMode = "default";
  const modeSetBy = parsed.find((one) => one.permissions.defaultMode !== undefined);
  if (modeSetBy !== undefined) {
    const wanted = modeSetBy.permissions.defaultMode!;
    const where = `${modeSetBy.layer.source}: permissions.defaultMode ${wanted}`;
    if ((wanted === "bypassPermissions" || wanted === "auto") && (modeSetBy.layer.scope === "project" || modeSetBy.layer.scope === "local")) {
      notes.push(`${where}: Claude Code does not take ${wanted} from project or local settings (sessions start in Manual mode): read as default`);
    } else if (wanted === "bypassPermissions" && disableBypass) {
      notes.push(`${where}: disableBypassPermissionsMode is "disable": read as default`);
    } else if (wanted === "auto") {
      notes.push(`${where}: auto mode's classifier is Claude Code's own: read as default (calls no rule decides are decided by their tools' risk)`);
    } else mode = wanted === "manual" ? "default" : wanted;
  }
  const permissions: Entry[] = [];
  const directories: string[] = [];
  for (const one of parsed) {
    const { layer } = one;
    const prefix = prefixed ? `${layer.scope}:` : "";
    for (const key of Object.keys(one.raw)) if (!READ_KEYS.has(key)) notRead.push(prefixed ? `${layer.scope}:${key}` : key);
    for (const key of Object.keys(one.raw.permissions)) if (!READ_PERMISSION_KEYS.has(key)) notRead.push(`${prefix}permissions.${key}`);
    if (one.raw.allowManagedPermissionRulesOnly !== undefined && layer.scope !== "managed") notes.push(`${layer.source}: allowManagedPermissionRulesOnly holds in managed settings only: not read here`);
    if (!managedOnly || layer.scope === "managed") {
      const anchor = anchorOf(layer, { ...place, project, cwd }, home);
      for (const list of ["deny", "ask", "allow"] as const) {
        (one.permissions[list] ?? []).forEach((text, index) => {
          const id = `${prefix}${list}[${index}]`;
          const read = readRule(text, list, `${layer.source}: ${list}[${index}]`, anchor, notes);
          if (read === undefined) return;
          // dontAsk: what would ask is denied.
          const ruleMode = list === "ask" && mode === "dontAsk" ? "deny" : list;
          const [rule, ...implied] = typeof read === "string" ? [read] : read;
          permissions.push({ id, rule: rule!, mode: ruleMode });
          for (const other of implied) permissions.push({ id: `${id}:${/^\w+/.exec(other)?.[0] ?? "implied"}`, rule: other, mode: ruleMode });
          const absent = namedRuleHoldsWhenAbsent(rule!);
          if (absent !== undefined) permissions.push({ id: `${id}:${absent.field}`, tool: absent.tools, where: { [absent.field]: { exists: false } }, mode: ruleMode });
        });
      }
    } else if ((one.permissions.allow?.length ?? 0) + (one.permissions.ask?.length ?? 0) + (one.permissions.deny?.length ?? 0) > 0) {
      notes.push(`${layer.source}: allowManagedPermissionRulesOnly is set in managed settings: this file's permission rules are not read`);
    }
    (one.permissions.additionalDirectories ?? []).forEach((written, index) => {
      const dir = placeDirectory(written, cwd, home, `${layer.source}: additionalDirectories[${index}]`, notes);
      if (dir !== undefined && !directories.includes(dir)) directories.push(dir);
    });
  }
  const working = [...(cwd === undefined ? [] : [resolve(cwd)]), ...directories.filter((dir) => dir !== cwd)];
  const generated: Entry[] = [];
  // A pattern under its own base: an absolute path outside the policy's pathBase matches no allow.
  const under = (dir: string, rest: string) => ({ path: rest, base: dir });
  working.forEach((dir, index) => {
    for (const [tool, field] of READ_TOOLS) generated.push({ id: `workingDirectories[${index}]:${tool}`, tool, where: { [field]: under(dir, "**") }, mode: "allow" });
  });
  if (mode === "acceptEdits") {
    working.forEach((dir, index) => {
      for (const [tool, field] of EDIT_TOOLS) {
        generated.push({ id: `acceptEdits[${index}]:${tool}`, tool, where: { [field]: under(dir, "**") }, mode: "allow" });
        for (const name of PROTECTED) generated.push({ id: `acceptEdits[${index}]:${tool}:${name}`, tool, where: { [field]: under(dir, `${name}/**`) }, mode: "ask" });
      }
    });
  }
  if (mode === "plan") for (const [tool] of EDIT_TOOLS) generated.push({ id: `plan:${tool}`, tool, mode: "ask" });
  const riskModes =
    mode === "dontAsk" ? { low: "deny", medium: "deny", high: "deny" } : mode === "bypassPermissions" ? { low: "allow", medium: "allow", high: "allow" } : undefined;
  if (mode === "bypassPermissions") {
    notes.push(
      `permissions.defaultMode bypassPermissions: every call no deny or ask rule names is allowed without asking, whatever its risk (deny and ask rules still hold, as in Claude Code, where deny rules block in every mode); set disableBypassPermissionsMode: "disable" or remove it to have such calls decided by their tools' risk`,
    );
  }
  if (mode === "plan") notes.push("permissions.defaultMode plan: every file edit asks (the guard does not see a plan being approved; an approval is per call)");
  if (mode === "acceptEdits") notes.push(`permissions.defaultMode acceptEdits: file edits in ${working.join(", ") || "no known directory"} are allowed (not in .git or .claude); Bash file commands (mkdir, touch, mv, cp, ...) are not, and ask as in default mode`);
  const doc: Record<string, unknown> = {
    version: 1,
    ...(cwd === undefined ? {} : { pathBase: resolve(cwd) }),
    ...(directories.length === 0 ? {} : { workingDirectories: working.filter((dir) => dir !== (cwd === undefined ? undefined : resolve(cwd))) }),
    ...(riskModes === undefined ? {} : { riskModes, defaultRisk: mode === "dontAsk" ? "high" : "low" }),
    permissions: [...permissions, ...generated],
  };
  return { doc, notRead, notes };
}

/**
 * One settings document read as a policy, in the scope its place gives it (`~/.claude/settings.json` the user's,
 * `.claude/settings.local.json` local, ...), or undefined when `raw` is not one (a policy file has `version: 1` and a
 * list of permissions). Throws a PolicyError naming `source` and the list and index of a malformed entry.
 */
export function readClaudeSettings(raw: unknown, source: string, home = homedir()): ClaudeSettingsReading | undefined {
  if (!isClaudeSettings(raw)) return undefined;
  const scope = claudeSettingsScope(source, home);
  return claudeSettingsDocument([{ scope, source, settings: raw }], { project: scope === "project" || scope === "local" ? projectOf(source, home) : undefined, home });
}
