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

/** The top-level arguments by which another tool is read as given a URL it fetches (`http_get({ url })`). */
export const URL_ARGUMENTS: readonly string[] = ["url", "uri"];

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
