import type { Node } from "web-tree-sitter";
import { shellParser } from "./shell-grammar.js";

/**
 * Shell commands read as a shell would: parsed with tree-sitter-bash (through web-tree-sitter's
 * WebAssembly build, so no native compile) into the simple commands the shell would run — across
 * `;`, `&&`, `||`, `|`, `&`, newlines, `$( )`, backticks, `<( )`, subshells, `{ }` groups, if/for/
 * while/case bodies — and, recursively, the scripts handed to `bash -c`, `sh -c` and `eval`.
 * The grammar loads on the first parse (./shell-grammar.ts); every parse is synchronous.
 */

/** One simple command the shell would run. */
export interface SimpleCommand {
  /** The words after quote removal (`'rm' "-rf" \/` → rm, -rf, /); a dynamic word keeps its source text. */
  readonly words: readonly string[];
  /** Some word's value is only known at run time (`$X`, `$(...)`, globs are static): an allow cannot vouch for it. */
  readonly dynamic: boolean;
  /** Prefixed by `NAME=value` assignments (they can change which program runs, e.g. PATH=...). */
  readonly assignments: boolean;
  /** Output redirected to a file (other than /dev/null or a descriptor). */
  readonly writesFile: boolean;
  /** Not a plain command: a construct (declaration, test, function, arithmetic) kept as source text. */
  readonly construct: boolean;
}

type ShellAnalysis = { readonly ok: true; readonly commands: readonly SimpleCommand[] } | { readonly ok: false; readonly reason: string };

/** Node types that only hold other statements: walked through, never commands themselves. */
const CONTAINERS = new Set([
  "program",
  "list",
  "pipeline",
  "subshell",
  "compound_statement",
  "redirected_statement",
  "negated_command",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "for_statement",
  "do_group",
  "case_statement",
  "case_item",
  "comment",
]);

const MAX_NESTED_SCRIPTS = 4;
const MAX_COMMANDS = 256;

class Unreadable extends Error {}

function unescapeDoubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_m, ch: string) => (ch === "\n" ? "" : ch));
}

function unescapeBare(text: string): string {
  return text.replace(/\\(.)/gs, (_m, ch: string) => (ch === "\n" ? "" : ch));
}

const ANSI_C: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

function decodeAnsiC(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (_m, esc: string) => {
    if (/^x/.test(esc)) return String.fromCodePoint(parseInt(esc.slice(1), 16));
    if (/^[uU]/.test(esc)) return String.fromCodePoint(Math.min(parseInt(esc.slice(1), 16), 0x10ffff));
    if (/^[0-7]/.test(esc)) return String.fromCodePoint(parseInt(esc, 8));
    if (esc.startsWith("c")) return String.fromCodePoint((esc.codePointAt(1) ?? 0) & 0x1f);
    return ANSI_C[esc] ?? `\\${esc}`;
  });
}

interface WordValue {
  text: string;
  dynamic: boolean;
}

interface Walk {
  commands: SimpleCommand[];
  depth: number;
}

/** The value of a word node after quote removal; expansions make it dynamic (and are walked for commands). */
function wordValue(node: Node, walk: Walk): WordValue {
  switch (node.type) {
    case "word":
    case "number":
      return { text: unescapeBare(node.text), dynamic: false };
    case "raw_string":
      return { text: node.text.slice(1, -1), dynamic: false };
    case "ansi_c_string":
      return { text: decodeAnsiC(node.text.slice(2, -1)), dynamic: false };
    case "string":
    case "translated_string": {
      let text = "";
      let dynamic = false;
      for (const child of node.namedChildren) {
        if (child === null) continue;
        if (child.type === "string_content") text += unescapeDoubleQuoted(child.text);
        else {
          const inner = wordValue(child, walk);
          text += inner.text;
          dynamic ||= inner.dynamic;
        }
      }
      if (node.namedChildren.length === 0) text = unescapeDoubleQuoted(node.text.replace(/^\$?"|"$/g, ""));
      return { text, dynamic };
    }
    case "concatenation": {
      let text = "";
      let dynamic = false;
      for (const child of node.children) {
        if (child === null) continue;
        const inner = wordValue(child, walk);
        text += inner.text;
        dynamic ||= inner.dynamic;
      }
      return { text, dynamic };
    }
    case "command_substitution":
    case "process_substitution":
      walkStatements(node, walk);
      return { text: node.text, dynamic: true };
    case "simple_expansion":
    case "expansion":
    case "arithmetic_expansion":
      for (const child of node.namedChildren) if (child !== null) collectNested(child, walk);
      return { text: node.text, dynamic: true };
    default:
      collectNested(node, walk);
      return { text: node.text, dynamic: true };
  }
}

/** Commands hidden anywhere inside a node (substitutions inside expansions, test expressions, ...). */
function collectNested(node: Node, walk: Walk): void {
  if (node.type === "command_substitution" || node.type === "process_substitution") {
    walkStatements(node, walk);
    return;
  }
  for (const child of node.namedChildren) if (child !== null) collectNested(child, walk);
}

function isHarmlessRedirect(node: Node): boolean {
  if (node.type === "heredoc_redirect" || node.type === "herestring_redirect") return true;
  if (node.type !== "file_redirect") return false;
  const operator = node.children.find((child) => child !== null && !child.isNamed)?.text ?? "";
  const destination = node.childForFieldName("destination")?.text ?? "";
  if (operator.startsWith("<") && !operator.startsWith("<>")) return true; // input only
  if (destination === "/dev/null") return true;
  return (operator === ">&" || operator === "<&") && /^(?:\d+|-)$/.test(destination); // descriptor duplication
}

function addCommand(walk: Walk, command: SimpleCommand): void {
  if (walk.commands.length >= MAX_COMMANDS) throw new Unreadable(`more than ${MAX_COMMANDS} commands`);
  walk.commands.push(command);
}

function readCommand(node: Node, walk: Walk, writesFile: boolean): void {
  const words: string[] = [];
  let dynamic = false;
  let assignments = false;
  for (const child of node.namedChildren) {
    if (child === null) continue;
    if (child.type === "variable_assignment") {
      assignments = true;
      const value = child.childForFieldName("value");
      if (value !== null) wordValue(value, walk);
    } else if (child.type === "command_name") {
      for (const part of child.namedChildren) {
        if (part === null) continue;
        const value = wordValue(part, walk);
        words.push(value.text);
        dynamic ||= value.dynamic;
      }
    } else if (child.type.endsWith("redirect")) {
      if (!isHarmlessRedirect(child)) writesFile = true;
      collectNested(child, walk);
    } else if (child.type !== "comment") {
      const value = wordValue(child, walk);
      words.push(value.text);
      dynamic ||= value.dynamic;
    }
  }
  if (words.length === 0) return; // a bare assignment runs nothing (its substitutions were walked)
  addCommand(walk, { words, dynamic, assignments, writesFile, construct: false });
  nestedScripts(words, dynamic, walk);
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish", "busybox"]);

/** `bash -c SCRIPT`, `sh -c`, `eval ...`: the script is parsed and its commands added. */
function nestedScripts(words: readonly string[], dynamic: boolean, walk: Walk): void {
  const name = basename(words[0] ?? "");
  let script: string | undefined;
  if (name === "eval") script = words.slice(1).join(" ");
  else if (SHELLS.has(name)) {
    const flag = words.findIndex((word, i) => i > 0 && /^-[a-zA-Z]*c[a-zA-Z]*$/.test(word));
    if (flag > 0) script = words[flag + 1];
  }
  if (script === undefined || dynamic) return;
  if (walk.depth >= MAX_NESTED_SCRIPTS) throw new Unreadable("shell scripts nested too deep");
  const inner = parseInto(script, { commands: walk.commands, depth: walk.depth + 1 });
  if (inner !== undefined) throw new Unreadable(`the script given to ${name}: ${inner}`);
}

export function basename(word: string): string {
  const slash = word.lastIndexOf("/");
  return slash >= 0 ? word.slice(slash + 1) : word;
}

function walkStatements(node: Node, walk: Walk, writesFile = false): void {
  for (const child of node.namedChildren) {
    if (child === null) continue;
    walkStatement(child, walk, writesFile);
  }
}

function walkStatement(node: Node, walk: Walk, writesFile: boolean): void {
  if (node.type === "command") {
    readCommand(node, walk, writesFile);
    return;
  }
  if (node.type === "redirected_statement") {
    let writes = writesFile;
    for (const child of node.namedChildren) {
      if (child !== null && child.type.endsWith("redirect") && !isHarmlessRedirect(child)) writes = true;
    }
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type.endsWith("redirect")) collectNested(child, walk);
      else walkStatement(child, walk, writes);
    }
    return;
  }
  if (node.type === "variable_assignment" || node.type === "variable_assignments") {
    collectNested(node, walk);
    return;
  }
  if (CONTAINERS.has(node.type) || node.type === "command_substitution" || node.type === "process_substitution") {
    for (const child of node.namedChildren) {
      if (child === null) continue;
      // Conditions, loop values and case subjects hold words with substitutions, statements hold commands.
      if (child.type === "word" || child.type === "string" || child.type === "concatenation" || child.type.endsWith("expansion")) collectNested(child, walk);
      else if (child.type === "variable_name" || child.type === "comment") continue;
      else walkStatement(child, walk, writesFile);
    }
    return;
  }
  // A construct the allow rules cannot vouch for (declaration, test, function, arithmetic, ...).
  collectNested(node, walk);
  addCommand(walk, { words: [node.text], dynamic: true, assignments: false, writesFile, construct: true });
}

function parseInto(source: string, walk: Walk): string | undefined {
  const tree = shellParser().parse(source);
  if (tree === null) return "the parser gave no tree";
  try {
    const root = tree.rootNode;
    if (root.hasError) return "it is not valid shell syntax";
    walkStatements(root, walk);
    return undefined;
  } catch (error) {
    if (error instanceof Unreadable) return error.message;
    throw error;
  } finally {
    tree.delete();
  }
}

const MAX_COMMAND_CHARS = 16 * 1024;
const cache = new Map<string, ShellAnalysis>();
const MAX_CACHE = 512;

/** Splits a command line into the simple commands a shell would run; `ok: false` names why it could not. */
export function analyzeShell(source: string): ShellAnalysis {
  const cached = cache.get(source);
  if (cached !== undefined) return cached;
  let result: ShellAnalysis;
  if (source.length > MAX_COMMAND_CHARS) result = { ok: false, reason: `longer than ${MAX_COMMAND_CHARS} characters` };
  else {
    const walk: Walk = { commands: [], depth: 0 };
    const problem = parseInto(source, walk);
    result = problem === undefined ? { ok: true, commands: walk.commands } : { ok: false, reason: problem };
  }
  if (cache.size >= MAX_CACHE) cache.clear();
  cache.set(source, result);
  return result;
}
