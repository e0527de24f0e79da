import { PolicyError } from "./errors.js";
import type { FieldMatcher } from "./types.js";

/**
 * Compact rule strings, as Claude Code users write them.
 *
 *   rule    := TOOL | TOOL "(" spec ")"
 *   TOOL    := a tool-name glob without parentheses: Bash, kubectl_delete, mcp__github__*
 *   spec    := "" | "*"                        any call of the tool
 *            | PATTERN                         the tool's main argument: the policy's tools.TOOL.mainArgument, else
 *                                              Claude Code's (Bash: command, Read/Edit/Write: file_path, WebFetch: url)
 *            | FIELD ":" PATTERN               the field FIELD (a selector: a.b, items[*].name)
 *   PATTERN ending in ":*" is a prefix (Bash(npm run test:*), Bash(git:*)) and never splits at that colon.
 *
 * The matcher kind comes from the field: command/cmd/script → command; path, file_path, file, dir,
 * cwd, ... → path; url/uri/endpoint → url; domain/host/hostname → domain (WebFetch(domain:x) reads
 * the host of its url); email/to/cc/bcc/from/recipient with an @ in the pattern → email; a `*` value →
 * the field exists; otherwise equals (or a glob when the pattern has * ? [).
 */
export interface CompactReading {
  tool: string;
  where?: Record<string, FieldMatcher>;
  /** One sentence: how the string was read (printed by `policy check`). */
  explanation: string;
  /** A bare pattern: the argument it was read as, and who said so (the policy's `tools.X.mainArgument`, or Claude Code's convention). */
  mainArgument?: MainArgument & { source: "policy" | "convention" };
}

/** The policy's own `tools.X.mainArgument` declarations, by exact tool name. */
export type MainArguments = Readonly<Record<string, MainArgument>>;

/** Which argument of a tool a bare compact pattern means, and how it is matched. */
export interface MainArgument {
  /** The argument's selector: cmd, file_path, request.url. */
  field: string;
  kind: "command" | "path" | "url";
}

type ToolDefault = MainArgument;

/** Claude Code's built-in tools (and common shell-tool names) and the argument a bare pattern means. */
const TOOL_DEFAULTS: Readonly<Record<string, ToolDefault>> = {
  bash: { field: "command", kind: "command" },
  shell: { field: "command", kind: "command" },
  sh: { field: "command", kind: "command" },
  run_shell: { field: "command", kind: "command" },
  read: { field: "file_path", kind: "path" },
  edit: { field: "file_path", kind: "path" },
  write: { field: "file_path", kind: "path" },
  multiedit: { field: "file_path", kind: "path" },
  notebookedit: { field: "notebook_path", kind: "path" },
  glob: { field: "path", kind: "path" },
  grep: { field: "path", kind: "path" },
  webfetch: { field: "url", kind: "url" },
};

/**
 * What a known file tool does with the place its argument names: reads the file, writes it, searches the files there (as
 * ripgrep does: hidden files skipped; or as `grep -r` does: hidden files searched), or lists the names there. Claude
 * Code's tools, and the same names as LangChain deep agents (`file_path`) and the MCP filesystem server (`path`) give
 * them: `read_file`, `write_file`, `edit_file`, `grep`, `glob`, `ls`. `fields`: the arguments that may name the place.
 */
type FileToolUse = "read" | "write" | "search-visible" | "search" | "list";

const FILE_TOOL_USES: Readonly<Record<string, { readonly use: FileToolUse; readonly fields: readonly string[] }>> = {
  read: { use: "read", fields: ["file_path"] },
  edit: { use: "write", fields: ["file_path"] },
  write: { use: "write", fields: ["file_path"] },
  multiedit: { use: "write", fields: ["file_path"] },
  notebookedit: { use: "write", fields: ["notebook_path"] },
  read_file: { use: "read", fields: ["file_path", "path"] },
  write_file: { use: "write", fields: ["file_path", "path"] },
  edit_file: { use: "write", fields: ["file_path", "path"] },
  grep: { use: "search", fields: ["path"] },
  glob: { use: "list", fields: ["path"] },
  ls: { use: "list", fields: ["path"] },
};

/**
 * LangChain deep agents' file tools, by their exact names, and the arguments of theirs a backend in virtual mode reads
 * under its root (`/secrets/k` is ROOT/secrets/k): `file_path` (the MCP filesystem server's `path` is a real path).
 */
const DEEP_AGENT_TOOLS: Readonly<Record<string, readonly string[]>> = {
  read_file: ["file_path"],
  write_file: ["file_path"],
  edit_file: ["file_path"],
  ls: ["path"],
  glob: ["path"],
  grep: ["path"],
};

/**
 * The file tool `tool` names by convention (Claude Code's Grep, which runs ripgrep, by its exact name; any other
 * spelling of grep is read as searching hidden files too), with the arguments that may name its place; `virtual`: the
 * arguments a deep agent's backend may read under its root (DEEP_AGENT_TOOLS), for deep agents' exact names.
 */
export function conventionalFileTool(tool: string): { readonly fields: readonly string[]; readonly use: FileToolUse; readonly virtual: readonly string[] } | undefined {
  const known = FILE_TOOL_USES[tool.toLowerCase()];
  if (known === undefined) return undefined;
  return { fields: known.fields, use: tool === "Grep" ? "search-visible" : known.use, virtual: Object.hasOwn(DEEP_AGENT_TOOLS, tool) ? DEEP_AGENT_TOOLS[tool]! : [] };
}

/**
 * Tools that fetch a URL, by their names in any case, and the argument that holds it: Claude Code's WebFetch and the MCP
 * fetch server's `fetch`. A `file:` URL such a tool is given names a file on this machine.
 */
const FETCH_TOOLS: Readonly<Record<string, string>> = { webfetch: "url", fetch: "url" };

/**
 * The top-level arguments by which another tool is read as given URLs it fetches: `http_get({ url })`, `URL` and `URI` in
 * capitals, and a list of them (`firecrawl_extract({ urls: [...] })`, `tavily-extract({ urls })`), as selectors.
 */
export const URL_ARGUMENTS: readonly string[] = ["url", "uri", "URL", "URI", "Url", "Uri", "urls[*]", "uris[*]", "URLs[*]", "URLS[*]"];

/** The argument holding the URL a fetch tool `tool` fetches, by convention (FETCH_TOOLS), if it is one. */
export function conventionalFetchTool(tool: string): string | undefined {
  const key = tool.toLowerCase();
  return Object.hasOwn(FETCH_TOOLS, key) ? FETCH_TOOLS[key] : undefined;
}

const COMMAND_FIELDS = new Set(["command", "cmd", "script", "commandline", "command_line"]);
const PATH_FIELDS = new Set(["path", "file_path", "filepath", "file", "filename", "dir", "directory", "cwd", "notebook_path", "target", "source", "destination", "src", "dest"]);
const URL_FIELDS = new Set(["url", "uri", "href", "endpoint", "link"]);
const DOMAIN_FIELDS = new Set(["domain", "host", "hostname"]);
const EMAIL_FIELDS = new Set(["email", "emails", "to", "cc", "bcc", "from", "recipient", "recipients", "sender", "address"]);

const RULE_RE = /^\s*([^()\s]+)\s*(?:\(([\s\S]*)\))?\s*$/;
const FIELD_RE = /^([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[(?:\d+|\*|"[^"]*")\])*)\s*:\s*([\s\S]*)$/;

/** The last key of a selector, lower-cased: `path` of `files[*].path`, `url` of `request.url`. */
function leafOf(field: string): string {
  return (/([A-Za-z_$][\w$-]*)$/.exec(field.replace(/\[[^\]]*\]$/, ""))?.[1] ?? field).toLowerCase();
}

/**
 * The argument kind a field's name conventionally means (the same names compact rules read): command,
 * path, url, domain; email only when one of the rule's `patterns` holds an `@` (`to`, `from` and
 * `address` name other things too). Undefined for any other name.
 */
export function conventionalKind(field: string, patterns: readonly string[]): "command" | "path" | "url" | "domain" | "email" | undefined {
  const leaf = leafOf(field);
  if (COMMAND_FIELDS.has(leaf)) return "command";
  if (PATH_FIELDS.has(leaf)) return "path";
  if (URL_FIELDS.has(leaf)) return "url";
  if (DOMAIN_FIELDS.has(leaf)) return "domain";
  if (EMAIL_FIELDS.has(leaf) && patterns.some((pattern) => pattern.includes("@"))) return "email";
  return undefined;
}

function kindFor(field: string, pattern: string): FieldMatcher {
  const leaf = leafOf(field);
  if (COMMAND_FIELDS.has(leaf)) return { command: pattern };
  if (PATH_FIELDS.has(leaf)) return { path: pattern };
  if (URL_FIELDS.has(leaf)) return { url: pattern };
  if (DOMAIN_FIELDS.has(leaf)) return { domain: pattern };
  if (EMAIL_FIELDS.has(leaf) && pattern.includes("@")) return { email: pattern };
  if (/[*?[]/.test(pattern)) return { glob: pattern };
  return { equals: pattern };
}

function describe(field: string, matcher: FieldMatcher): string {
  const [kind, value] = Object.entries(matcher)[0] ?? ["", ""];
  const text = JSON.stringify(value);
  switch (kind) {
    case "command":
      return typeof value === "string" && value.trim().endsWith(":*")
        ? `every simple command in ${field} starts with the words ${JSON.stringify(value.trim().slice(0, -2).trim())}`
        : `every simple command in ${field} is ${text}`;
    case "path":
      return `${field} is a path matching ${text} (resolved against the policy's pathBase)`;
    case "url":
      return `${field} is a URL matching ${text}`;
    case "domain":
      return `the host of ${field} matches ${text}`;
    case "email":
      return `every address in ${field} matches ${text}`;
    case "exists":
      return `${field} is present`;
    case "glob":
      return `${field} matches the glob ${text}`;
    default:
      return `${field} equals ${text}`;
  }
}

/**
 * Claude Code's tools whose specifier is a name (its permissions page: "Agent(Explore) matches the Explore subagent",
 * "Skill(name) — exact match, Skill(name *) — prefix match with any arguments"; the older SlashCommand tool's
 * "SlashCommand(/review-pr:*)"), by the exact tool text of the rule: the argument holding the name, the tool's other
 * parameters (a rule `Agent(model:opus)` reads that parameter; any other colon is part of a name, as in a plugin's
 * `plugin:agent`), whether a leading `/` is part of the name, and the name a call without the argument means (an Agent
 * call without a subagent type runs general-purpose). `Task` is the Agent tool's name before Claude Code renamed it:
 * a rule on either holds for both.
 */
interface NamedArgument {
  readonly tools: string;
  readonly field: string;
  readonly parameters: readonly string[];
  readonly slash: "optional" | "none";
  readonly absent?: string;
}
const AGENT: NamedArgument = { tools: "{Agent,Task}", field: "subagent_type", parameters: ["subagent_type", "description", "prompt", "model", "isolation", "run_in_background", "name", "team_name", "mode", "cwd", "resume"], slash: "none", absent: "general-purpose" };
const NAMED_ARGUMENTS: Readonly<Record<string, NamedArgument>> = {
  Agent: AGENT,
  Task: AGENT,
  Skill: { tools: "Skill", field: "skill", parameters: ["skill", "args"], slash: "optional" },
  SlashCommand: { tools: "SlashCommand", field: "command", parameters: ["command"], slash: "optional" },
};

/**
 * Claude Code's built-in tools that take no specifier ("accept only the bare tool name"): a pattern in parentheses on
 * one of them means nothing there, so it is refused, saying so. A parameter rule (`WebSearch(query:x)`) still reads that
 * parameter.
 */
const BARE_ONLY_TOOLS: ReadonlySet<string> = new Set(["WebSearch", "ExitPlanMode", "EnterPlanMode", "AskUserQuestion", "TodoWrite", "TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "TaskOutput", "TaskStop", "ToolSearch", "ListMcpResourcesTool", "EnterWorktree", "ExitWorktree", "CronCreate", "CronDelete", "CronList", "KillShell", "BashOutput"]);

/** The parameters of those tools where a `NAME:` in parentheses is more likely a search operator than a parameter. */
const BARE_ONLY_PARAMETERS: Readonly<Record<string, readonly string[]>> = { WebSearch: ["query", "allowed_domains", "blocked_domains"] };

/** The named-argument reading of Claude Code's tool `tool` (exact text), unless the policy declares its main argument. */
export function namedArgumentOf(tool: string, mainArguments?: MainArguments): { readonly tools: string; readonly field: string } | undefined {
  if (mainArguments !== undefined && Object.hasOwn(mainArguments, tool)) return undefined;
  return Object.hasOwn(NAMED_ARGUMENTS, tool) ? NAMED_ARGUMENTS[tool] : undefined;
}

const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

/**
 * A name pattern as Claude Code reads it, as a regex over the whole value: `NAME` that name, `NAME *` and `NAME:*` that
 * name with or without more after a space or a colon (arguments, or a plugin's sub-name), another `*` any characters.
 */
function namePattern(pattern: string, named: NamedArgument): FieldMatcher {
  let body = pattern;
  let rest = "";
  const prefix = /(?: |:)\*$/.exec(body);
  if (prefix !== null) {
    body = body.slice(0, prefix.index);
    rest = "(?:[\\s:].*)?";
  }
  if (named.slash === "optional") body = body.replace(/^\//, "");
  const lead = named.slash === "optional" ? "(?:/)?" : "";
  const source = `^${lead}${body.split("*").map(escapeRegex).join(".*")}${rest}$`;
  return { regex: source, caseSensitive: true };
}

/** The reading of a rule on a named-argument tool: its name (or a parameter of the tool). */
function namedReading(text: string, tool: string, spec: string, named: NamedArgument): CompactReading {
  const field = FIELD_RE.exec(spec);
  if (field !== null && named.parameters.includes(field[1] ?? "") && field[1] !== named.field) {
    const name = field[1] ?? "";
    const pattern = (field[2] ?? "").trim();
    if (pattern === "") throw new PolicyError(undefined, "", `${JSON.stringify(text)}: nothing after "${name}:"`);
    const matcher: FieldMatcher = pattern === "*" ? { exists: true } : { regex: `^${pattern.split("*").map(escapeRegex).join(".*")}$`, caseSensitive: true };
    return { tool: named.tools, where: { [name]: matcher }, explanation: `${text} → ${named.tools} where ${describe(name, matcher)} (Claude Code's parameter rule)` };
  }
  const name = field !== null && field[1] === named.field ? (field[2] ?? "").trim() : spec;
  const matcher = namePattern(name, named);
  return {
    tool: named.tools,
    where: { [named.field]: matcher },
    explanation: `${text} → ${named.tools} where ${named.field} is the name ${JSON.stringify(name)} (Claude Code's ${tool} rule)`,
  };
}

/**
 * Whether a rule string on a named-argument tool also holds for a call without the argument (an Agent call without a
 * subagent type runs general-purpose, so `Agent(general-purpose)` and `Agent(general-*)` hold for it).
 */
export function namedRuleHoldsWhenAbsent(text: string, mainArguments?: MainArguments): { readonly tools: string; readonly field: string } | undefined {
  const match = RULE_RE.exec(text);
  const tool = match?.[1] ?? "";
  const spec = match?.[2]?.trim();
  if (spec === undefined || spec === "" || spec === "*" || (mainArguments !== undefined && Object.hasOwn(mainArguments, tool)) || !Object.hasOwn(NAMED_ARGUMENTS, tool)) return undefined;
  const named = NAMED_ARGUMENTS[tool]!;
  if (named.absent === undefined) return undefined;
  const field = FIELD_RE.exec(spec);
  if (field !== null && field[1] !== named.field && named.parameters.includes(field[1] ?? "")) return undefined;
  const name = field !== null && field[1] === named.field ? (field[2] ?? "").trim() : spec;
  const matcher = namePattern(name, named) as { regex: string };
  return new RegExp(matcher.regex).test(named.absent) ? named : undefined;
}

/** Reads a compact rule string; throws a PolicyError at `where` explaining the grammar. */
export function parseCompactRule(text: string, where: string, mainArguments?: MainArguments): CompactReading {
  const match = RULE_RE.exec(text);
  if (match === null) {
    throw new PolicyError(undefined, where, `cannot read the rule ${JSON.stringify(text)}: expected Tool or Tool(spec), e.g. Bash(npm run test:*), Read(./secrets/**), kubectl_delete(namespace:production)`);
  }
  const tool = match[1] ?? "";
  const spec = match[2]?.trim();
  if (spec === undefined || spec === "" || spec === "*") {
    return { tool, explanation: `${text} → every call of ${tool}` };
  }
  const declared = mainArguments !== undefined && Object.hasOwn(mainArguments, tool) ? mainArguments[tool] : undefined;
  if (declared === undefined && Object.hasOwn(NAMED_ARGUMENTS, tool)) {
    try {
      return namedReading(text, tool, spec, NAMED_ARGUMENTS[tool]!);
    } catch (error) {
      if (error instanceof PolicyError) throw new PolicyError(undefined, where, error.detail);
      throw error;
    }
  }
  const parameter = FIELD_RE.exec(spec);
  if (declared === undefined && BARE_ONLY_TOOLS.has(tool) && (parameter === null || (Object.hasOwn(BARE_ONLY_PARAMETERS, tool) && !BARE_ONLY_PARAMETERS[tool]!.includes(parameter[1] ?? "")))) {
    throw new PolicyError(
      undefined,
      where,
      `${JSON.stringify(text)}: Claude Code's ${tool} takes no specifier (it accepts only the bare tool name): write ${tool} to allow or deny the tool as a whole, ${tool}(PARAMETER:VALUE) for one of its parameters, or declare tools.${tool}.mainArgument if your own ${tool} tool has one`,
    );
  }
  const toolDefault = declared ?? TOOL_DEFAULTS[tool.toLowerCase()];
  // `Bash(git:*)` is a prefix and `WebFetch(https://x)` a URL, not a field named git or https.
  const bare = (toolDefault?.kind === "command" && spec.endsWith(":*")) || spec.includes("://");
  const fieldMatch = bare ? null : FIELD_RE.exec(spec);
  let field: string;
  let matcher: FieldMatcher;
  if (fieldMatch !== null) {
    field = fieldMatch[1] ?? "";
    const pattern = (fieldMatch[2] ?? "").trim();
    if (pattern === "") throw new PolicyError(undefined, where, `${JSON.stringify(text)}: nothing after "${field}:"`);
    if (field === "domain" && toolDefault?.kind === "url") {
      field = toolDefault.field;
      matcher = { domain: pattern };
    } else if (pattern === "*") matcher = { exists: true };
    else matcher = kindFor(field, pattern);
  } else {
    if (toolDefault === undefined) {
      // Never read as matching nothing: the policy cannot load until it says which argument is meant.
      throw new PolicyError(
        undefined,
        where,
        `${JSON.stringify(text)}: ${tool} has no declared main argument, so a pattern without a field cannot be read; declare it in the policy (tools.${tool}.mainArgument: { field: NAME, kind: command|path|url }) or write ${tool}(FIELD:${spec}). Without a declaration only Claude Code's tools have one: ${Object.keys(TOOL_DEFAULTS).join(", ")} (case-insensitive)`,
      );
    }
    field = toolDefault.field;
    matcher = toolDefault.kind === "command" ? { command: spec } : toolDefault.kind === "path" ? { path: spec } : { url: spec };
    const source = declared !== undefined ? "policy" : "convention";
    const from = source === "policy" ? `tools.${tool}.mainArgument` : `Claude Code's convention for ${tool}`;
    const rooted = toolDefault.kind === "path" ? rootedPath(spec) : undefined;
    return {
      tool,
      where: { [field]: rooted === undefined ? matcher : { path: [spec, rooted] } },
      mainArgument: { field, kind: toolDefault.kind, source },
      explanation: `${text} → ${tool} where ${describe(field, matcher)} (main argument ${field}, from ${from})${rooted === undefined ? "" : `, and where it matches ${rooted} (Claude Code reads a leading / from the project root)`}`,
    };
  }
  return { tool, where: { [field]: matcher }, explanation: `${text} → ${tool} where ${describe(field, matcher)}` };
}

/**
 * Claude Code reads a path pattern with one leading slash from the project root (`Edit(/src/**)` is the project's src,
 * `Read(//etc/passwd)` an absolute path), while a `path` condition reads it from the filesystem's root. A rule string
 * written that way holds for both readings (the project root being the policy's `pathBase`; an absolute path outside
 * it matches no allow anyway): the pattern read from the base (`./src/**`), else undefined.
 */
function rootedPath(spec: string): string | undefined {
  return /^\/(?!\/)/.test(spec) ? `.${spec}` : undefined;
}

/** The argument a bare pattern means for `tool` by Claude Code's convention (Bash: command, Read: file_path), if any. */
export function conventionalMainArgument(tool: string): MainArgument | undefined {
  const found = TOOL_DEFAULTS[tool.toLowerCase()];
  return found === undefined ? undefined : { ...found };
}
