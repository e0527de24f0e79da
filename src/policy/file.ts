import { readdir, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import type { ArgumentKind } from "./kinds/readings.js";
import { basename, dirname, extname, join, resolve as resolvePath } from "node:path";
import { tomlLibrary, yamlLibrary } from "../deps/on-demand.js";
import { parseYamlText } from "./yaml-text.js";
import { firstRepeatedKey } from "./json-dup.js";
import { ToolRuleSchema } from "../rules/schema.js";
import type { ToolRule } from "../rules/types.js";
import type { KillswitchConfig } from "../killswitch/types.js";
import type { RiskLevel } from "../tools/types.js";
import { formatPath, PolicyError } from "./errors.js";
import { formatIssues } from "./format-issues.js";
import { claudeSettingsDocument, readClaudeSettings, type ClaudeSettingsLayer, type ClaudeSettingsPlace, type ClaudeSettingsReading } from "./claude-settings.js";
import type { ApproverRule, PrincipalsDeclaration } from "../principal/schema.js";
import { PermissionPolicy, readPermissionRules, type PermissionPolicyOptions, type PermissionRule } from "./permissions.js";
import { PolicyShellSchema, validRulesOnce } from "./rules-once.js";
import { PolicyFileSchema, type PolicyFile, type AuditConfig, type ExecutionConfig, type ToolRuleEntry } from "./schema.js";
import { toToolRule } from "./tool-rules.js";
import type { MainArgument } from "./compact.js";
import type { ProvenanceConfig } from "../provenance/schema.js";
import type { PermissionMode, Precedence } from "./types.js";

export type PolicyFormat = "yaml" | "json" | "toml";

/** A validated policy document, as plain data. */
export interface LoadedPolicy {
  /** File path or name it came from (used in every error). */
  readonly source: string;
  readonly version: 1;
  readonly precedence: Precedence;
  /** Risk of tools that declare none; undefined: such a call that no rule matches asks. */
  readonly defaultRisk: RiskLevel | undefined;
  /** Directory relative paths in path matchers resolve against. */
  readonly pathBase: string | undefined;
  readonly riskModes: Partial<Record<RiskLevel, PermissionMode>>;
  /** Risk category per tool name (`tools.<name>.risk`). */
  readonly toolRisk: Record<string, RiskLevel>;
  /** Risk per tool and operation (`tools.<name>.operations`). */
  readonly operationRisk: Record<string, Record<string, RiskLevel>>;
  /** Tools whose policy risk may be lower than the tool's own (`tools.<name>.lowerRisk: true`). */
  readonly lowerRisk: string[];
  /** The argument a bare compact pattern means, per tool (`tools.<name>.mainArgument`). */
  readonly mainArguments: Record<string, MainArgument>;
  /** Argument kinds per tool and field (`tools.<name>.fields`). */
  readonly fieldKinds?: Record<string, Record<string, ArgumentKind>> | undefined;
  /** Directories besides pathBase the tools work in (`workingDirectories`): a path there is placed for path patterns. */
  readonly workingDirectories?: string[] | undefined;
  /** Path readings follow symlinks on this machine (`followSymlinks`; default: when pathBase is a directory here). */
  readonly followSymlinks?: boolean | undefined;
  /** The home directory `~` names in path patterns (`home`; default: this process's home). */
  readonly home?: string | undefined;
  readonly permissions: PermissionRule[];
  /** `tool_rules` then `agent.tool_rules`, normalised to ToolRule whatever form they were written in. */
  readonly toolRules: ToolRule[];
  readonly killswitch?: KillswitchConfig | undefined;
  readonly audit?: AuditConfig | undefined;
  readonly execution?: ExecutionConfig | undefined;
  /** Trusted and untrusted tools for provenance conditions. */
  readonly provenance?: ProvenanceConfig | undefined;
  readonly agent?: { name?: string | undefined; tools?: string[] | undefined } | undefined;
  /** MCP servers whose tool annotations may also relax a tool (`mcp.trustAnnotations`). */
  readonly mcp?: { trustAnnotations?: string[] | undefined } | undefined;
  /** `shadow: FILE` as written: a candidate policy run in shadow beside this one. */
  readonly shadowSource?: string | undefined;
  /** That candidate policy, loaded (`loadPolicyFile` reads it, relative to this file). */
  readonly shadow?: LoadedPolicy | undefined;
  /** The names of the principal the rules read (`principals`). */
  readonly principals?: PrincipalsDeclaration | undefined;
  /** Who may answer which approvals (`approvers`). */
  readonly approvers?: ApproverRule[] | undefined;
  /** A Claude Code settings file: the settings it holds that the policy does not read (`hooks`, `env`, ...). */
  readonly notRead?: string[] | undefined;
  /** A Claude Code settings file: what was read otherwise than written, and why (rules Claude Code never consults, modes). */
  readonly settingsNotes?: string[] | undefined;
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, PolicyFormat>> = {
  ".yaml": "yaml",
  ".yml": "yaml",
  ".json": "json",
  ".toml": "toml",
};

/**
 * A JSON policy: a leading byte order mark is skipped (as the YAML and TOML readers skip it; editors
 * on Windows write one), and a key repeated in one object is an error, as in YAML and TOML (JSON.parse
 * would keep the last value silently, while a reader of the file sees the first).
 */
function parseJsonText(text: string, source: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const value = JSON.parse(body) as unknown;
  const repeated = firstRepeatedKey(body);
  if (repeated !== undefined) throw new PolicyError(source, formatPath(repeated), `invalid JSON: the key ${JSON.stringify(repeated.at(-1))} appears twice in one object; write it once`);
  return value;
}

function parseText(text: string, format: PolicyFormat, source: string): unknown {
  try {
    if (format === "json") return parseJsonText(text, source);
    if (format === "toml") return tomlLibrary().parse(text);
    return parseYamlText(text); // duplicate keys are an error, found in linear time
  } catch (error) {
    if (error instanceof PolicyError) throw error;
    // The parser of the format was loaded by the parse above (each loads on first use).
    if (format === "toml" && error instanceof tomlLibrary().TomlError) throw new PolicyError(source, `line ${error.line}, column ${error.column}`, `invalid TOML: ${error.message.split("\n")[0]}`);
    if (format === "yaml" && error instanceof yamlLibrary().YAMLParseError) {
      const [line, column] = error.linePos?.[0] ? [error.linePos[0].line, error.linePos[0].col] : [0, 0];
      throw new PolicyError(source, `line ${line}, column ${column}`, `invalid YAML: ${error.message.split("\n")[0]}`);
    }
    throw new PolicyError(source, "", `invalid ${format.toUpperCase()}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function normaliseToolRules(entries: readonly ToolRuleEntry[], path: readonly PropertyKey[], source: string): ToolRule[] {
  return entries.map((entry, index) => {
    const rule = toToolRule(entry);
    const checked = ToolRuleSchema.safeParse(rule);
    if (!checked.success) {
      throw new PolicyError(source, formatPath([...path, index]), formatIssues(checked.error.issues, rule).join("; "));
    }
    return rule;
  });
}

/**
 * A policy document as PolicyFileSchema validates it; its permission rules' conditions are validated
 * once per distinct condition (validRulesOnce), and anything refused is judged by the whole schema,
 * whose errors name every problem.
 */
function validDocument(raw: unknown, sourceName: string): PolicyFile {
  const shell = PolicyShellSchema.safeParse(raw);
  if (shell.success) {
    const permissions = shell.data.permissions === undefined ? undefined : validRulesOnce(shell.data.permissions);
    if (shell.data.permissions === undefined || permissions !== undefined) return { ...shell.data, permissions };
  }
  const parsed = PolicyFileSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues, raw);
    throw new PolicyError(sourceName, "", lines.length === 1 ? (lines[0] ?? "") : `\n  ${lines.join("\n  ")}`);
  }
  return parsed.data;
}

/**
 * Parses and validates a policy document. Throws a PolicyError naming `sourceName`, the path inside
 * the document and what was expected; regexes are compiled here, so RE2-incompatible patterns fail now.
 */
export function parsePolicy(text: string, format: PolicyFormat, sourceName: string): LoadedPolicy {
  const raw = parseText(text, format, sourceName);
  // A Claude Code settings file (`.claude/settings.json`) is read by its permission lists and modes.
  return policyFromDocument(raw, sourceName, readClaudeSettings(raw, sourceName));
}

/**
 * Several Claude Code settings files (managed, command line, local, project, user) merged as Claude Code merges them,
 * as one policy: every file's rules, a deny anywhere winning, then an ask anywhere; `defaultMode` from the highest file
 * that sets it; `/path` patterns anchored at each file's own place. `place.project` is the directory holding `.claude`.
 */
export function parseClaudeSettingsLayers(layers: readonly ClaudeSettingsLayer[], place: ClaudeSettingsPlace = {}): LoadedPolicy {
  const source = layers.map((layer) => layer.source).join(" + ") || "Claude Code settings";
  return policyFromDocument(undefined, source, claudeSettingsDocument(layers, place));
}

/** Where Claude Code reads settings from: the project, the user's home, the managed file, the command line's settings. */
export interface ClaudeSettingsFiles {
  /** The project (the directory holding `.claude`); default: this process's working directory. */
  readonly project?: string;
  /** The directory Claude Code starts in, where `settings.local.json`'s `/path` patterns are anchored; default: the project. */
  readonly cwd?: string;
  /** The user's home (`~/.claude/settings.json`); default: this process's home. */
  readonly home?: string;
  /** The managed settings file (its `managed-settings.d/` beside it is read too); default `/etc/claude-code/managed-settings.json`; false: none. */
  readonly managed?: string | false;
  /** Settings given on Claude Code's command line (`--settings`, `--allowedTools` as `permissions.allow`), already parsed. */
  readonly commandLine?: unknown;
}

/**
 * Reads the Claude Code settings files that exist for a project — managed (and its `managed-settings.d/*.json`), the
 * command line's, `.claude/settings.local.json`, `.claude/settings.json`, `~/.claude/settings.json` — and merges them
 * (parseClaudeSettingsLayers). A file that is missing is skipped; one that cannot be read or parsed is an error.
 */
export async function loadClaudeSettings(files: ClaudeSettingsFiles = {}): Promise<LoadedPolicy> {
  const project = resolvePath(files.project ?? process.cwd());
  const home = files.home ?? homedir();
  const managed = files.managed === undefined ? "/etc/claude-code/managed-settings.json" : files.managed;
  const candidates: { scope: ClaudeSettingsLayer["scope"]; path: string }[] = [];
  if (managed !== false) {
    candidates.push({ scope: "managed", path: managed });
    const dropIns = join(dirname(managed), "managed-settings.d");
    const names = await readdir(dropIns).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith(".json") && !n.startsWith(".")).sort()) candidates.push({ scope: "managed", path: join(dropIns, name) });
  }
  candidates.push({ scope: "local", path: join(project, ".claude", "settings.local.json") }, { scope: "project", path: join(project, ".claude", "settings.json") }, { scope: "user", path: join(home, ".claude", "settings.json") });
  const layers: ClaudeSettingsLayer[] = [];
  if (files.commandLine !== undefined) layers.push({ scope: "commandLine", source: "command line", settings: files.commandLine });
  for (const { scope, path } of candidates) {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw new PolicyError(path, "", `cannot read the settings file: ${error instanceof Error ? error.message : String(error)}`);
    }
    layers.push({ scope, source: path, settings: parseText(text, "json", path) });
  }
  return parseClaudeSettingsLayers(layers, { project, home, ...(files.cwd === undefined ? {} : { cwd: resolvePath(files.cwd) }) });
}

/**
 * A policy file, or, for a directory, the Claude Code settings of the project it is (or of the project whose `.claude`
 * directory it is), merged as loadClaudeSettings merges them (with the managed settings of this machine and the
 * settings in this process's home).
 */
export async function loadPolicyPath(path: string): Promise<LoadedPolicy> {
  const found = await stat(path).catch(() => undefined);
  if (found === undefined || !found.isDirectory()) return loadPolicyFile(path);
  const resolved = resolvePath(path);
  return loadClaudeSettings({ project: basename(resolved) === ".claude" ? dirname(resolved) : resolved });
}

/** The loaded policy of a document (a policy file's, or the one a Claude Code settings reading stands for). */
function policyFromDocument(raw: unknown, sourceName: string, settings: ClaudeSettingsReading | undefined): LoadedPolicy {
  const doc = validDocument(settings?.doc ?? raw ?? {}, sourceName);
  const toolRisk: Record<string, RiskLevel> = {};
  const operationRisk: Record<string, Record<string, RiskLevel>> = {};
  const lowerRisk: string[] = [];
  const mainArguments: Record<string, MainArgument> = {};
  const fieldKinds: Record<string, Record<string, ArgumentKind>> = {};
  for (const [name, entry] of Object.entries(doc.tools ?? {})) {
    if (entry.risk !== undefined) toolRisk[name] = entry.risk;
    if (entry.operations !== undefined) operationRisk[name] = { ...entry.operations };
    if (entry.lowerRisk === true) lowerRisk.push(name);
    if (entry.mainArgument !== undefined) mainArguments[name] = { ...entry.mainArgument };
    if (entry.fields !== undefined) fieldKinds[name] = { ...entry.fields };
  }
  let permissions: PermissionRule[];
  try {
    permissions = readPermissionRules(doc.permissions ?? [], mainArguments); // validated by PolicyFileSchema above
  } catch (error) {
    if (error instanceof PolicyError) throw error.withSource(sourceName);
    throw error;
  }
  const loaded: LoadedPolicy = {
    source: sourceName,
    version: 1,
    precedence: doc.precedence ?? "deny-first",
    defaultRisk: doc.defaultRisk,
    pathBase: doc.pathBase,
    ...(doc.workingDirectories === undefined ? {} : { workingDirectories: [...doc.workingDirectories] }),
    riskModes: { ...doc.riskModes },
    toolRisk,
    operationRisk,
    lowerRisk,
    mainArguments,
    ...(Object.keys(fieldKinds).length === 0 ? {} : { fieldKinds }),
    ...(doc.followSymlinks === undefined ? {} : { followSymlinks: doc.followSymlinks }),
    ...(doc.home === undefined ? {} : { home: doc.home }),
    permissions,
    toolRules: [
      ...normaliseToolRules(doc.tool_rules ?? [], ["tool_rules"], sourceName),
      ...normaliseToolRules(doc.agent?.tool_rules ?? [], ["agent", "tool_rules"], sourceName),
    ],
    killswitch: doc.killswitch,
    audit: doc.audit,
    execution: doc.execution,
    provenance: doc.provenance,
    agent: doc.agent === undefined ? undefined : { name: doc.agent.name, tools: doc.agent.tools },
    ...(doc.mcp === undefined ? {} : { mcp: { trustAnnotations: doc.mcp.trustAnnotations } }),
    ...(doc.shadow === undefined ? {} : { shadowSource: doc.shadow }),
    ...(doc.principals === undefined ? {} : { principals: doc.principals }),
    ...(doc.approvers === undefined ? {} : { approvers: doc.approvers }),
    ...(settings === undefined ? {} : { notRead: settings.notRead, settingsNotes: settings.notes }),
  };
  permissionPolicy(loaded); // compiles every pattern now, so a bad regex fails at load
  return loaded;
}

/** Reads a policy file; the format comes from the extension (.yaml/.yml, .json, .toml). */
export async function loadPolicyFile(path: string): Promise<LoadedPolicy> {
  const format = FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
  if (format === undefined) {
    throw new PolicyError(path, "", `unknown policy file type ${JSON.stringify(extname(path))}: expected .yaml, .yml, .json or .toml`);
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new PolicyError(path, "", `cannot read the policy file: ${error instanceof Error ? error.message : String(error)}`);
  }
  const loaded = parsePolicy(text, format, path);
  if (loaded.shadowSource === undefined) return loaded;
  // The candidate policy run in shadow: a policy file of its own, which may not name another shadow.
  const shadow = await loadPolicyFile(resolvePath(dirname(path), loaded.shadowSource));
  if (shadow.shadowSource !== undefined) throw new PolicyError(path, "shadow", `${shadow.source} names a shadow policy of its own (${shadow.shadowSource}); a shadow policy runs beside the enforced one only`);
  return { ...loaded, shadow };
}

const compiled = new WeakMap<LoadedPolicy, PermissionPolicy>();
const compiledFrom = new WeakMap<PermissionPolicy, LoadedPolicy>();

/** Named in the errors about a PermissionPolicy built in code. */
const CODE_POLICY_SOURCE = "the guard's PermissionPolicy";

/**
 * The policy document a PermissionPolicy stands for, as `checkPolicy` reads it: the loaded file it
 * was compiled from (`permissionPolicy`), else its rules and options (built in code).
 */
export function loadedPolicyOf(policy: PermissionPolicy): LoadedPolicy {
  const file = compiledFrom.get(policy);
  if (file !== undefined) return file;
  const { rules, options } = policy.definition;
  return {
    source: CODE_POLICY_SOURCE,
    version: 1,
    precedence: options.precedence ?? "deny-first",
    defaultRisk: options.defaultRisk,
    pathBase: options.pathBase,
    ...(options.workingDirectories === undefined ? {} : { workingDirectories: [...options.workingDirectories] }),
    riskModes: { ...options.riskModes },
    toolRisk: { ...options.toolRisk },
    operationRisk: {},
    lowerRisk: [...(options.lowerRisk ?? [])],
    mainArguments: { ...options.mainArguments },
    ...(options.fieldKinds === undefined ? {} : { fieldKinds: { ...options.fieldKinds } }),
    ...(options.followSymlinks === undefined ? {} : { followSymlinks: options.followSymlinks }),
    ...(options.home === undefined ? {} : { home: options.home }),
    permissions: [...rules],
    toolRules: [],
    provenance: options.provenance === undefined ? undefined : { ...options.provenance, trusted: options.provenance.trusted?.slice(), untrusted: options.provenance.untrusted?.slice() },
    ...(options.principals === undefined ? {} : { principals: options.principals }),
    ...(options.approvers === undefined ? {} : { approvers: options.approvers }),
  };
}

/** The PermissionPolicy a loaded policy describes (compiled once per LoadedPolicy object). */
export function permissionPolicy(loaded: LoadedPolicy): PermissionPolicy {
  let policy = compiled.get(loaded);
  if (policy === undefined) {
    const options: PermissionPolicyOptions = {
      precedence: loaded.precedence,
      toolRisk: loaded.toolRisk,
      lowerRisk: loaded.lowerRisk,
      riskModes: loaded.riskModes,
      mainArguments: loaded.mainArguments,
      ...(loaded.provenance === undefined ? {} : { provenance: loaded.provenance }),
    };
    if (loaded.defaultRisk !== undefined) options.defaultRisk = loaded.defaultRisk;
    if (loaded.pathBase !== undefined) options.pathBase = loaded.pathBase;
    if (loaded.workingDirectories !== undefined) options.workingDirectories = loaded.workingDirectories;
    if (loaded.fieldKinds !== undefined) options.fieldKinds = loaded.fieldKinds;
    if (loaded.followSymlinks !== undefined) options.followSymlinks = loaded.followSymlinks;
    if (loaded.home !== undefined) options.home = loaded.home;
    if (loaded.principals !== undefined) options.principals = loaded.principals;
    if (loaded.approvers !== undefined) options.approvers = loaded.approvers;
    try {
      policy = new PermissionPolicy(loaded.permissions, options);
    } catch (error) {
      if (error instanceof PolicyError) throw error.withSource(loaded.source);
      throw error;
    }
    compiled.set(loaded, policy);
    compiledFrom.set(policy, loaded);
  }
  return policy;
}
