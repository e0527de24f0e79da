import type { Node } from "web-tree-sitter";
import { normalizeString } from "../normalize.js";
import { basename, otherProgramName, readArguments, codeLoader, environmentFiles, filesRun, isPlainSetting, readEnvironment, readProgram, readsCodeFromStdin, redirectPlaces, runsStdinAsShell, SHELLS, stdinCodeReading, stdinCommands, variablesSet, type Refusal } from "./programs.js";
import { foundPathsReason, foundPathsShown, inputOptionsReason, inputProgramReason, inputWordsReason, inputWordsShown, nameReferenceReason, dashDescriptorReason, unlistedLoadedCodeReason, unlistedScriptReason, loadedCodeReason } from "../../messages/index.js";
import { emptiedBy, inputSinksEmptied, type MaybeForm } from "./same-effect.js";
import { shellParser } from "./shell-grammar.js";
import { MachineBoundReadings } from "./net.js";

/**
 * Shell commands read as a shell would: parsed with tree-sitter-bash (through web-tree-sitter's
 * WebAssembly build, so no native compile) into the simple commands the shell would run — across
 * `;`, `&&`, `||`, `|`, `&`, newlines, `$( )`, backticks, `<( )`, subshells, `{ }` groups, if/for/
 * while/case bodies — and, recursively, the scripts handed to `bash -c`, `sh -c` and `eval`.
 * The grammar loads on the first parse (./shell-grammar.ts); every parse is synchronous.
 */

/** One simple command the shell would run. */
/** A variable set in a command's environment, as written (`GIT_DIR=secrets`): its value only known at run time when `dynamic`. */
interface Setting {
  readonly name: string;
  readonly value: string;
  readonly dynamic: boolean;
}

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
  /** Why an allow pattern does not cover it unless the pattern names the refusal's token (programs.ts). */
  readonly refusals: readonly Refusal[];
  /** Every spelling a deny or ask pattern is tried against (as written, `/bin/rm` as rm, normalised, braces expanded, ...). */
  readonly forms: readonly (readonly string[])[];
  /**
   * The words after bash's brace expansion, when it changes them (`cat .{env,}` is `cat .env`, `cd s{e,}crets` is `cd
   * secrets serets`): the files the program opens and the directory a `cd` moves to are read from these too.
   */
  readonly expanded?: readonly string[];
  /** Set when the guard cannot tell what this command runs (a deny rule then cannot tell either). */
  readonly unknown: string | undefined;
  /**
   * The environment variables the line sets for this command (`RIPGREP_CONFIG_PATH=f rg KEY`, `export GIT_DIR=d; git log`)
   * that programs read files or options through (programs.ts's environmentFiles), by name and value as written.
   */
  readonly settings?: readonly Setting[];
  /** Commands this one may run, which the guard cannot tell apart (`helm --x y uninstall z`: y or uninstall): a deny or ask pattern one of them matches cannot tell (`reason`). */
  readonly maybe?: readonly MaybeForm[];
  /**
   * A command a wrapper runs whose words end the wrapper's (`uv run pytest -q` runs `pytest -q`): the
   * wrapper's words and where this command starts in them. An allow pattern that matches the wrapper's
   * words and spells out words past that point (`uv run pytest:*`) names this command too.
   */
  readonly within?: { readonly words: readonly string[]; readonly at: number };
  /** A wrapper that changes only how its command runs (`timeout 5 CMD`): no pattern need name it; the command it runs is judged on its own. */
  readonly transparent?: boolean;
  /** Where a program that fetches URLs connects (curl, wget; programs.ts): an allow pattern that names URLs must name every one of these origins. */
  readonly connects?: { readonly origins: readonly string[]; readonly places: readonly string[]; readonly configured?: string };
  /** Why the places the program connects to cannot all be read (programs.ts): a deny or ask pattern a place added to its words could make match cannot tell. */
  readonly placesUnknown?: string;
  /** Another spelling an allow pattern may match (`git --no-pager -C DIR log` as `git log` where `cd DIR` is allowed; programs.ts). */
  readonly allowAs?: { readonly words: readonly string[]; readonly places: readonly string[]; readonly waives: readonly string[] };
  /**
   * A command run with words a wrapper (`by`: xargs, parallel) reads from its input (`echo push |
   * xargs git` runs `git push`): it runs `words[0..at)` followed by words only known when it runs
   * (none, one or many, any text). The words from `at` on (a replace string's word and those after
   * it) are not known either. A pattern matches only when it matches whatever those words are, and
   * a deny or ask that some of them could make match cannot tell (`reason`).
   */
  readonly input?: { readonly at: number; readonly by: string; readonly reason: string; readonly shown: string };
  /**
   * Words after the program that the shell still replaces when it runs the command (an expansion:
   * `p${x}ush`, `$x`, which may be no word or many; a file name pattern: `pu?h`), by their text: a
   * deny or ask pattern they could make match cannot tell.
   */
  readonly wild?: ReadonlySet<string>;
  /**
   * The subshells the command runs in, outermost first (`( … )`, `$( … )`, backquotes, `<( … )`, a
   * pipeline's parts but the last): a `cd` in one moves only the commands inside it (command.ts).
   */
  readonly scope?: readonly number[];
  /**
   * The command is in a loop's body or condition (`for`, `select`, `while`, `until`, `for ((…))`), which may run it any
   * number of times, or in a function's body, which runs where and when the function is called (command.ts: a `cd` there
   * moves the line's commands to a place the guard cannot tell).
   */
  readonly repeats?: "loop" | "function";
  /**
   * A wrapper that runs its command in another directory (`env -C DIR CMD`, `sudo -D DIR CMD`): the scope its commands
   * (and the scripts it hands a shell) run in, a subshell of their own, and DIR as written (undefined: one the guard
   * cannot tell, `env -C "$D"`). command.ts reads it as `cd DIR` in that scope: only the command it runs moves.
   */
  readonly runsIn?: { readonly scope: readonly number[]; readonly directory: string | undefined };
  /**
   * The files the shell opens for the command through its redirections (and those of the compound statement it starts:
   * `{ a; b; } < F` opens F once, where `a` runs), as written: `< F` reads F, `> F` and `>> F` write it, `<> F` both.
   * `wild`: the shell still replaces the word (an expansion, a file name pattern, a `~`).
   */
  readonly redirects?: readonly Redirect[];
}

/** A file a redirection opens (SimpleCommand.redirects). */
export interface Redirect {
  readonly word: string;
  readonly reads: boolean;
  readonly writes: boolean;
  readonly wild: boolean;
  /** The shell empties the file before the command writes to it (`>`, `>|`, `&>`, `>&`; not `>>`). */
  readonly truncates?: boolean;
}

/** Where a command runs with words read from the input (SimpleCommand.input), as it is passed to a command it runs in turn; `paths`: find's paths. */
type InputWords = { readonly at: number; readonly by: string; readonly paths?: boolean };

type ShellAnalysis =
  | {
      readonly ok: true;
      readonly commands: readonly SimpleCommand[];
      /** A construct of the whole line no allow covers (a line continuation, a carriage return, a here-document). */
      readonly refusal: string | undefined;
      /** Set when some reading of the line cannot be told (a deny rule then cannot tell). */
      readonly unknown: string | undefined;
      /** Redirections without a command (`> F`, `< F`): the files they open, and how many commands come before them. */
      readonly bare?: readonly { readonly at: number; readonly redirects: readonly Redirect[] }[];
      /** File name patterns a loop's words hold (`for f in secrets/*`): the shell lists where they expand; how many commands come before them. */
      readonly patterns?: readonly { readonly at: number; readonly word: string; readonly shown: string }[];
    }
  | { readonly ok: false; readonly reason: string };

/** Node types that only hold other statements: walked through, never commands themselves. */
const CONTAINERS = new Set([
  "program",
  "list",
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
const MAX_NESTED_COMMANDS = 8;
const MAX_COMMANDS = 256;
const MAX_FORMS = 32;

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
    // `\x`, `\u` and `\U` without a hex digit after them are kept as written (bash prints `\x<` as it is).
    if (/^x[0-9a-fA-F]/.test(esc)) return String.fromCodePoint(parseInt(esc.slice(1), 16));
    if (/^[uU][0-9a-fA-F]/.test(esc)) return String.fromCodePoint(Math.min(parseInt(esc.slice(1), 16), 0x10ffff));
    if (/^[0-7]/.test(esc)) return String.fromCodePoint(parseInt(esc, 8));
    if (esc.startsWith("c")) return String.fromCodePoint((esc.codePointAt(1) ?? 0) & 0x1f);
    return ANSI_C[esc] ?? `\\${esc}`;
  });
}

interface WordValue {
  text: string;
  dynamic: boolean;
  /** Unquoted `*`, `?` or `[`: the shell replaces the word by the file names it matches. */
  glob: boolean;
  /** `$'...'`: ANSI-C quoting in bash, a `$` and a quoted string in sh (dash). */
  ansiC: boolean;
  /** Unquoted source text when the word has no quotes (for brace expansion), else undefined. */
  bare: string | undefined;
  /** `<(echo TEXT)`: the text the process substitution's file holds, when static. */
  feeds?: string | undefined;
  /** An unquoted `~` the shell replaces by a home directory: at the start (`~/x`, `~user/x`), or after `NAME=` or a `:` in such a word (`if=~/x`, which bash expands too). */
  tilde?: boolean;
}

/** A word whose tilde-prefix bash expands (see WordValue.tilde). */
const TILDE_RE = /^(?:[A-Za-z_][A-Za-z0-9_]*=(?:[^:]*:)*)?~/;

/**
 * A path word that starts where the command runs or at an open descriptor (`/proc/self/cwd/x`,
 * `/proc/1234/root/x`, `/dev/fd/3`), also after `--option=` or `NAME=`: a place the guard cannot tell.
 */
const PLACELESS_RE = /^(?:--?[A-Za-z0-9][\w.-]*=|[A-Za-z_][A-Za-z0-9_]*=)?\/(?:proc\/(?:(?:self|thread-self|\d+)(?:\/task\/\d+)?\/(?:cwd|fd\/\d+)|\d+(?:\/task\/\d+)?\/root)|dev\/fd\/\d+)(?=\/|$)/;

/** Where a command's standard input comes from, when it matters (a shell or interpreter reading its script). */
interface Stdin {
  /** The text fed in, when the guard knows it. */
  readonly text: string | undefined;
  readonly what: string;
  /** Fed from a file (`< FILE`): read only by the programs that take commands from their standard input (programs.ts's stdinCommands). */
  readonly fromFile?: boolean;
  /** The file's name, as a script is run by it (scriptPath), when fed from a file. */
  readonly file?: string;
  /**
   * Set by the redirections after a command (`0</dev/null bash <<EOF`): bash applies a command's redirections in the
   * order written, so those win over the ones before its name.
   */
  readonly later?: boolean;
}

/** The operator of a redirection (`<`, `>`, `>>`, `>&`, …): its first unnamed child. */
function redirectOperator(node: Node): string {
  return node.children.find((child) => child !== null && !child.isNamed)?.text ?? "";
}

/** The file a `< FILE` redirection feeds, as standard input the guard cannot read; undefined for other redirections. */
function fileInput(node: Node, walk: Walk): Stdin | undefined {
  if (node.type !== "file_redirect") return undefined;
  const operator = redirectOperator(node);
  const target = node.childForFieldName("destination");
  const destination = target?.text ?? "";
  // `sh <&3`: the input is whatever descriptor 3 holds (a here-document or file opened earlier, `exec 3<<EOF`), which is not read here.
  const descriptor = node.namedChildren.find((child) => child?.type === "file_descriptor")?.text;
  if (operator === "<&" && (descriptor === undefined || descriptor === "0") && /^\d+$/.test(destination) && destination !== "0") return { text: undefined, what: `descriptor ${destination}` };
  if (operator !== "<") return undefined;
  // `tee F < /dev/null`: nothing is fed.
  if (destination === "/dev/null") return { text: "", what: "/dev/null" };
  // `sh < <(echo CMD)`: the input is what the process substitution writes, not a file's contents.
  if (target?.type === "process_substitution") {
    const only = target.namedChildren.length === 1 ? target.namedChildren[0] : undefined;
    return { text: only === undefined || only === null ? undefined : pipedText(only, walk), what: "a process substitution" };
  }
  return { text: undefined, what: `the file ${destination}`, fromFile: true, file: scriptPath(target === null ? destination : wordValue(target, { commands: [], depth: walk.depth, refusal: undefined }).text) };
}

/** The file a redirection opens, as SimpleCommand.redirects holds it; undefined for a descriptor, a here-document, a process substitution. */
function redirectOf(node: Node, walk: Walk): Redirect | undefined {
  if (node.type !== "file_redirect") return undefined;
  const operator = redirectOperator(node);
  const target = node.childForFieldName("destination");
  if (target === null || target.type === "process_substitution") return undefined;
  if ((operator === ">&" || operator === "<&" || operator === ">&-" || operator === "<&-") && /^(?:\d+|-)$/.test(target.text)) return undefined;
  const value = wordValue(target, { commands: [], depth: walk.depth, refusal: undefined });
  const reads = operator.startsWith("<");
  const writes = !reads || operator === "<>";
  // bash expands braces in a redirection's word: one word is the file it opens (`< .e{n..n}v` is `< .env`); more is an error.
  const braced = value.bare === undefined ? undefined : expandBraces(value.bare)?.map(unescapeBare).filter((word) => word !== "");
  const word = braced?.length === 1 ? braced[0]! : value.text;
  return { word, reads, writes, wild: value.dynamic || value.glob || value.tilde === true, ...([">", ">|", "&>", ">&"].includes(operator) ? { truncates: true } : {}) };
}

interface Walk {
  commands: SimpleCommand[];
  depth: number;
  /** Variables the line set before (`export GIT_DIR=d;`) that reach the commands after (SimpleCommand.settings). */
  settings?: Setting[];
  /** Line-level constructs no allow covers. */
  refusal: string | undefined;
  /** Where sh (dash) reads `&>` as `&` then `>` (offsets in the top-level source). */
  dashSplits?: number[];
  /** Functions the line defines: a call runs their body, and `"$@"` in it runs the call's arguments. */
  functions?: Set<string>;
  /** Some reading could not be told (a deny then cannot tell). */
  unknown?: string;
  /** Variables the line assigns, with their static values (undefined: only known at run time), for `${x@P}` and arithmetic. */
  values?: Map<string, string | undefined>;
  /**
   * Texts bash evaluates as arithmetic (`$((…))`, `((…))`, `[[ a -eq b ]]`, subscripts, `${s:off}`,
   * `let`): a variable named there is evaluated too, and an array subscript in its value
   * (`x='a[$(cmd)]'; echo $((x))`) runs the command substitutions in it.
   */
  arithmetic?: string[];
  /** Files the line writes through redirections (their names as written), for scripts it then runs (`echo CMD > s.sh; . s.sh`). */
  written?: Set<string>;
  /** Files fed to a shell or interpreter on its standard input (`sh < s.sh`), for scripts the line writes. */
  fedScripts?: Set<string>;
  /**
   * Set when the order of walk.commands may not be the order they run in (a loop, a function, a job in the
   * background, a trap): a script run before a program writes files it does not name may run after it.
   */
  unordered?: boolean;
  /**
   * The commands a command adds for what it runs itself (a wrapper's command, the scripts its options name: `git clone
   * --upload-pack=CMD`) follow it in walk.commands: by the command's index, the index after them.
   */
  spans?: Map<number, number>;
  /** A place set for the commands after it (`export HTTPS_PROXY=URL; curl …`), which the guard does not read as one: why. */
  placesUnknown?: string;
  /** Name references (`declare -n r=GIT_SSH_COMMAND`): setting r sets the variable it names. */
  references?: Map<string, string>;
  /** The bodies of the functions the line defines, as text (a call's input reaches the commands in them). */
  bodies?: Map<string, string>;
  /** The subshells the walk is inside (SimpleCommand.scope), and how many it has entered. */
  scope?: number[];
  scopes?: number;
  /** The walk is inside a loop or a function's body (SimpleCommand.repeats; a function's wins). */
  repeats?: "loop" | "function";
  /** The standard input of a script a program hands to a shell: the program's own (`echo CMD | ssh HOST bash`, `script -c bash`). */
  input?: Stdin;
  /** The files a statement's redirections open, for the first command read in it (SimpleCommand.redirects). */
  redirects?: Redirect[];
  /**
   * Redirections the parser hung on a list or a pipeline (`cd sub && cat < F`, `a | b > F`) that bash gives its last
   * command: kept for the statement that starts at `start` and ends at `end`, which takes them over when it is walked.
   */
  deferred?: { readonly start: number; readonly end: number; readonly redirects: Redirect[] };
  /** Redirections without a command (ShellAnalysis.bare). */
  bare?: { at: number; redirects: readonly Redirect[] }[];
  /** File name patterns in a loop's words (ShellAnalysis.patterns). */
  patterns?: { at: number; word: string; shown: string }[];
}

/** Walks `work` inside a loop or a function's body: the commands it adds carry it (SimpleCommand.repeats). */
function repeating(walk: Walk, kind: "loop" | "function", work: () => void): void {
  const outer = walk.repeats;
  walk.repeats = outer === "function" ? outer : kind;
  try {
    work();
  } finally {
    walk.repeats = outer;
  }
}

/** Walks `work` inside a subshell of its own: the commands it adds carry it in their scope. */
function inSubshell(walk: Walk, work: () => void): void {
  walk.scopes = (walk.scopes ?? 0) + 1;
  (walk.scope ??= []).push(walk.scopes);
  try {
    work();
  } finally {
    walk.scope.pop();
  }
}

/** A function body that runs its input as commands: a shell, `source`/`.` of the input, or eval of what it reads. */
const RUNS_INPUT = /(?:^|[\s;&|({])(?:sh|bash|dash|zsh|ksh|source|\.|eval|xargs)(?=$|[\s;&|)}])/;

/** The variable a name refers to through the line's name references (`declare -n r=X`: r is X), else the name itself. */
function referenced(name: string, walk: Walk): string {
  let current = name;
  for (let i = 0; i < 8 && walk.references?.has(current) === true; i++) current = walk.references.get(current)!;
  return current;
}

const DASH_SPLIT = "the command has &>, which bash reads as a redirection of both outputs and sh (dash) as & then >";

/** `cmd &>file rm x`: bash redirects both streams; sh (dash) runs `cmd` in the background and then `>file rm x`. */
function noteDashSplit(node: Node, walk: Walk): void {
  // `npm 10>&- run test`: bash redirects descriptor 10, sh (dash) knows descriptors 0-9 only and reads a word 10 (`npm 10 run test`).
  const descriptor = node.namedChildren.find((child) => child?.type === "file_descriptor")?.text;
  if (descriptor !== undefined && descriptor.length > 1) walk.refusal ??= dashDescriptorReason(descriptor);
  const operator = node.children.find((child) => child !== null && !child.isNamed);
  if (operator === undefined || operator === null || !operator.text.startsWith("&>")) return;
  if (walk.depth === 0) (walk.dashSplits ??= []).push(operator.startIndex);
  else throw new Unreadable("a nested script has &>, which bash and sh (dash) read differently");
}

/** Stands for a `{` that starts a word in braceWordReading (a private-use character the parser reads as a word character). */
const BRACE_MARK = "\uE000";

const GLOB_RE = /(?<!\\)(?:\\\\)*[*?[]/;

/** The value of a word node after quote removal; expansions make it dynamic (and are walked for commands). */
function wordValue(node: Node, walk: Walk): WordValue {
  switch (node.type) {
    case "word":
    case "number":
      if (node.text.includes(BRACE_MARK)) {
        // braceWordReading's mark for a `{` that starts a word.
        const text = node.text.replaceAll(BRACE_MARK, "{");
        return { text: unescapeBare(text), dynamic: false, glob: GLOB_RE.test(text), ansiC: false, bare: text };
      }
      return { text: unescapeBare(node.text), dynamic: false, glob: node.type === "word" && GLOB_RE.test(node.text), ansiC: false, bare: node.text, ...(TILDE_RE.test(node.text) ? { tilde: true } : {}) };
    case "raw_string":
      return { text: node.text.slice(1, -1), dynamic: false, glob: false, ansiC: false, bare: undefined };
    case "ansi_c_string":
      return { text: decodeAnsiC(node.text.slice(2, -1)), dynamic: false, glob: false, ansiC: true, bare: undefined };
    case "string":
    case "translated_string": {
      let text = "";
      let dynamic = false;
      // Adjacent contents are unescaped together: the parser may split `\\` and a following newline apart.
      let raw = "";
      let last = node.startIndex + (node.text.startsWith("$") ? 2 : 1);
      for (const child of node.namedChildren) {
        if (child === null) continue;
        if (child.type === "string_content") {
          raw += node.text.slice(last - node.startIndex, child.endIndex - node.startIndex);
          last = child.endIndex;
          continue;
        }
        text += unescapeDoubleQuoted(raw + node.text.slice(last - node.startIndex, child.startIndex - node.startIndex));
        raw = "";
        const inner = wordValue(child, walk);
        text += inner.text;
        dynamic ||= inner.dynamic;
        last = child.endIndex;
      }
      text += unescapeDoubleQuoted(raw + node.text.slice(last - node.startIndex, Math.max(last - node.startIndex, node.text.length - 1)));
      if (node.namedChildren.length === 0) text = unescapeDoubleQuoted(node.text.replace(/^\$?"|"$/g, ""));
      return { text, dynamic: dynamic || node.type === "translated_string", glob: false, ansiC: false, bare: undefined };
    }
    case "concatenation": {
      let text = "";
      let dynamic = false;
      let glob = false;
      let ansiC = false;
      let bare: string | undefined = "";
      let tilde: boolean | undefined;
      for (const child of node.children) {
        if (child === null) continue;
        const inner = wordValue(child, walk);
        tilde ??= inner.tilde === true;
        text += inner.text;
        dynamic ||= inner.dynamic;
        glob ||= inner.glob;
        ansiC ||= inner.ansiC;
        bare = bare === undefined || inner.bare === undefined ? undefined : bare + inner.bare;
      }
      return { text, dynamic, glob, ansiC, bare, ...(tilde === true ? { tilde } : {}) };
    }
    case "command_substitution":
    case "process_substitution": {
      walkSubstitution(node, walk, undefined);
      // In backquotes bash removes a backslash before `\`, `` ` `` and `$` before it reads the text
      // (`` `\\rm x` `` runs `\rm x`, that is `rm x`); the parser reads the text as written.
      if (node.text.startsWith("`") && node.text.endsWith("`") && node.text.length >= 2) {
        const inner = node.text.slice(1, -1);
        const unescaped = inner.replace(/\\([`$\\])/g, "$1");
        if (unescaped !== inner) nestedScript(unescaped, "backquotes", walk);
      }
      const only = node.namedChildren.length === 1 ? node.namedChildren[0] : undefined;
      const feeds = node.type === "process_substitution" && only !== undefined && only !== null ? pipedText(only, walk) : undefined;
      return { text: node.text, dynamic: true, glob: false, ansiC: false, bare: undefined, feeds };
    }
    case "simple_expansion":
    case "expansion":
    case "arithmetic_expansion":
      for (const child of node.namedChildren) if (child !== null) collectNested(child, walk);
      promptExpansion(node.text, walk);
      assigningExpansion(node.text, walk);
      return { text: node.text, dynamic: true, glob: false, ansiC: false, bare: undefined };
    default:
      collectNested(node, walk);
      return { text: node.text, dynamic: true, glob: false, ansiC: false, bare: undefined };
  }
}

/** `${x@P}` expands x as a prompt, command substitutions included: the substitutions of a value the line assigned to x run. */
function promptExpansion(text: string, walk: Walk): void {
  const prompt = /^\$\{([A-Za-z_][A-Za-z0-9_]*)@P\}$/.exec(text);
  if (prompt === null || walk.values?.has(prompt[1]!) !== true) return;
  const value = walk.values.get(prompt[1]!);
  if (value === undefined) walk.unknown ??= `\${${prompt[1]!}@P} expands a value only known when the line runs, command substitutions included`;
  else if (/\$\(|`/.test(value)) nestedScript(`: ${value}`, `the prompt expansion \${${prompt[1]!}@P}`, walk);
}

/** `${NAME:=WORD}`, `${NAME=WORD}`: the expansion assigns WORD to NAME (when unset or empty), as `NAME=WORD` does. */
function assigningExpansion(text: string, walk: Walk): void {
  const assigning = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?:?=([\s\S]*)\}$/.exec(text);
  if (assigning === null) return;
  const value = assigning[3]!;
  setVariable(`${assigning[1]!}${assigning[2] ?? ""}`, /[$`"'\\]/.test(value) ? undefined : value, "the command line", walk);
}

/**
 * A variable set other than by `NAME=value` (a builtin, a loop, `${NAME:=WORD}`), with its value
 * (undefined: only known at run time): kept as the line's assignments are, and read as an assignment
 * outside a command is (`read PAGER <<< cmd`, `printf -v PATH DIR` reach every later command).
 */
function setVariable(set: string, value: string | undefined, by: string, walk: Walk): void {
  const name = referenced(set, walk);
  walk.values?.set(name, value);
  if (value !== undefined) readSubscripts(value, "an array subscript in a variable's value", walk);
  lineEnvironment(readEnvironment(name, value ?? "", value === undefined, by), walk);
}

/** A value with an array subscript (`a[$(cmd)]`): bash evaluates the subscript wherever the value is read as arithmetic or as a name, command substitutions included. */
function readSubscripts(text: string, what: string, walk: Walk): void {
  const open = text.indexOf("[");
  const close = text.lastIndexOf("]");
  if (open >= 0 && close > open && /\$\(|`/.test(text)) nestedScript(`: ${text.slice(open + 1, close)}`, what, walk);
}

/** `for NAME in WORDS` (and `select`): NAME is set to each word (to the arguments without `in`). */
function loopVariable(node: Node, walk: Walk): void {
  const children = node.namedChildren.filter((child): child is Node => child !== null);
  const name = children[0]?.type === "variable_name" ? children[0].text : undefined;
  if (name === undefined) return;
  const words = children.slice(1).filter((child) => child.type !== "do_group" && child.type !== "comment");
  if (words.length === 0) setVariable(name, undefined, "the loop", walk);
  // Read apart from the line (the loop's words are walked for their substitutions with the rest of it).
  const probe: Walk = { commands: [], depth: walk.depth, refusal: undefined };
  for (const word of words) {
    const value = wordValue(word, probe);
    setVariable(name, value.dynamic || value.glob ? undefined : value.text, "the loop", walk);
    // `for f in secrets/*`: the shell lists the directory the pattern expands in (its braces expanded first).
    if (value.glob) for (const one of value.bare === undefined ? [value.text] : (expandBraces(value.bare)?.map(unescapeBare) ?? [value.text])) (walk.patterns ??= []).push({ at: walk.commands.length, word: one, shown: `${node.text.startsWith("select") ? "select" : "for"} ${name} in ${word.text}` });
  }
}

/** `x=(secrets/*)`: an array's words are expanded as file name patterns too (ShellAnalysis.patterns, as a loop's). */
function arrayPatterns(assignment: Node, walk: Walk): void {
  const value = assignment.childForFieldName("value");
  if (value === null || value.type !== "array") return;
  const probe: Walk = { commands: [], depth: walk.depth, refusal: undefined };
  for (const word of value.namedChildren) {
    if (word === null) continue;
    const read = wordValue(word, probe);
    if (read.glob) for (const one of read.bare === undefined ? [read.text] : (expandBraces(read.bare)?.map(unescapeBare) ?? [read.text])) (walk.patterns ??= []).push({ at: walk.commands.length, word: one, shown: `${assignment.childForFieldName("name")?.text ?? ""}=(${word.text})` });
  }
}

/** A value bash always expands to a number: an arithmetic expansion, a length, `$?`, `$$`, `$#`, `$!`, RANDOM, SECONDS, .... */
const NUMERIC_VALUE = /^(?:\$\(\([\s\S]*\)\)|\$\[[\s\S]*\]|\$\{#[^}]*\}|\$[?$#!]|\$\{[?$#!]\}|\$\{?(?:RANDOM|SRANDOM|SECONDS|LINENO|BASHPID|PPID|EPOCHSECONDS|UID|EUID)\}?)$/;

/** Node types whose whole text bash evaluates as arithmetic. */
const ARITHMETIC_NODES = new Set(["arithmetic_expansion", "c_style_for_statement"]);
const ARITHMETIC_TEST = /\s-(?:eq|ne|lt|le|gt|ge)\s/;

/** Collects into walk.arithmetic the texts of `root` that bash evaluates as arithmetic. */
function arithmeticTexts(root: Node, walk: Walk): void {
  const out = (walk.arithmetic ??= []);
  const visit = (node: Node) => {
    const text = node.text;
    if (ARITHMETIC_NODES.has(node.type) || (node.type === "compound_statement" && text.startsWith("(("))) out.push(text);
    else if (node.type === "test_command" && ARITHMETIC_TEST.test(text)) out.push(text);
    // `${a[x]}`, `a[x]=1`, `${s:x:1}`, `${!x}` (the name x holds is read, subscript included).
    else if (node.type === "subscript") out.push(node.namedChildren.slice(1).map((child) => child?.text ?? "").join(" "));
    else if (node.type === "expansion") {
      // `${s:OFFSET:LENGTH}` (not `${s:-x}`, `${s:=x}`, ...), and `${!x}`: the name x holds is read, subscript included.
      const offset = /^\$\{[A-Za-z_0-9@*]+(?:\[[^\]]*\])?:(?![-=?+])/.exec(text);
      if (offset !== null) out.push(text.slice(offset[0].length));
      else if (text.startsWith("${!")) out.push(text);
    }
    else if (node.type === "array" && /\[[^\]]*\]=/.test(text)) out.push(text);
    else if (node.type === "command" && /^(?:builtin\s+|command\s+)?let\s/.test(text)) out.push(text);
    // `declare -i y`: every later assignment to y is arithmetic; the whole line is read so.
    else if (node.type === "declaration_command" && node.namedChildren.some((child) => child !== null && /^-[A-Za-z]*i/.test(child.text))) out.push(root.text);
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(root);
}

/**
 * A variable the line sets and then names in arithmetic: a static value's subscripts were read where
 * it was set; a value only known at run time may hold one (`read x < file; echo $((x))`), which a
 * deny cannot see.
 */
function arithmeticValues(walk: Walk): void {
  if (walk.values === undefined || walk.arithmetic === undefined || walk.arithmetic.length === 0) return;
  const naming = (name: string) => {
    const base = name.replace(/\[[\s\S]*$/, "");
    return { base, named: new RegExp(`(?<![A-Za-z0-9_])${base.replace(/[^A-Za-z0-9_]/g, "\\$&")}(?![A-Za-z0-9_])`) };
  };
  // A static value named in arithmetic is evaluated as arithmetic in turn (`y=x; echo $((y))` evaluates x): the names it holds are read too.
  const texts = [...walk.arithmetic];
  const reached = new Set<string>();
  for (let added = true; added && texts.length < 256; ) {
    added = false;
    for (const [name, value] of walk.values) {
      if (value === undefined || reached.has(name) || !/[A-Za-z_]/.test(value)) continue;
      if (texts.some((text) => naming(name).named.test(text))) {
        reached.add(name);
        texts.push(value);
        added = true;
      }
    }
  }
  for (const [name, value] of walk.values) {
    if (value !== undefined) continue;
    const { base, named } = naming(name);
    if (texts.some((text) => named.test(text))) {
      walk.unknown ??= `bash evaluates ${base} as arithmetic, and its value is only known when the line runs: an array subscript in it (a[$(cmd)]) runs the commands in it`;
      return;
    }
  }
}

/** Commands hidden anywhere inside a node (substitutions inside expansions, test expressions, ...). */
function collectNested(node: Node, walk: Walk, written?: string): void {
  if (node.type === "command_substitution" || node.type === "process_substitution") {
    walkSubstitution(node, walk, written);
    return;
  }
  for (const child of node.namedChildren) if (child !== null) collectNested(child, walk, written);
}

/**
 * The commands of `$(…)`, `<(…)` and `>(…)`. Those of `>(…)` read what the line writes to it
 * (`echo CMD > >(sh)`, `tee >(sh)`, `exec > >(sh)`): `written`, when the guard knows it.
 */
function walkSubstitution(node: Node, walk: Walk, written: string | undefined): void {
  const stdin: Stdin | undefined = node.type === "process_substitution" && node.text.startsWith(">(") ? { text: written, what: "what the line writes to >(…)" } : undefined;
  inSubshell(walk, () => {
    // `$(<F)`, `$(> F)`: a redirection alone in a substitution opens its file (bash and zsh substitute F's text for `$(<F)`).
    bareRedirections(node.namedChildren.filter((child): child is Node => child !== null && child.type.endsWith("redirect")), walk);
    for (const child of node.namedChildren) if (child !== null && !child.type.endsWith("redirect")) walkStatement(child, walk, false, stdin);
  });
}

/** What `statement` writes through `redirect` when that is its standard output into `>(…)` and the text is known (`echo CMD > >(sh)`). */
function writtenThrough(redirect: Node, statement: Node | null | undefined, walk: Walk): string | undefined {
  if (redirect.type !== "file_redirect" || statement === undefined || statement === null) return undefined;
  const operator = redirectOperator(redirect);
  const descriptor = redirect.namedChildren.find((child) => child?.type === "file_descriptor")?.text;
  if (![">", ">>", ">|"].includes(operator) || (descriptor !== undefined && descriptor !== "1")) return undefined;
  return pipedText(statement, walk);
}

/** bash opens a TCP or UDP connection for `/dev/tcp/HOST/PORT` and `/dev/udp/HOST/PORT` in a redirection. */
const NETWORK_FILE = /^["']?\/dev\/(?:tcp|udp)\//;

/** Why no allow covers a redirection that opens a network connection (`cat </dev/tcp/host/80`), else undefined. */
function networkRedirect(node: Node): string | undefined {
  if (node.type !== "file_redirect") return undefined;
  const destination = node.childForFieldName("destination")?.text ?? "";
  return NETWORK_FILE.test(destination) ? `bash opens a network connection for the redirection to ${destination}` : undefined;
}

/**
 * tree-sitter-bash reads the words after a file redirection as more destinations of it
 * (`xargs 2>/dev/null git push`: destinations /dev/null, git and push), where bash reads them as
 * words of the command. `target`: the redirection's own parts (its first destination is where it
 * goes); `words`: the command's words it holds.
 */
function redirectParts(node: Node): { target: Node[]; words: Node[] } {
  // `git <<EOF push`: the words after a here-document's start are words of the command (bash runs `git push`).
  if (node.type === "heredoc_redirect") return { target: [node], words: heredocWords(node) };
  if (node.type !== "file_redirect") return { target: [node], words: [] };
  const destinations = node.childrenForFieldName("destination").filter((child): child is Node => child !== null);
  if (destinations.length <= 1) return { target: [node], words: [] };
  const words = destinations.slice(1);
  const starts = new Set(words.map((word) => word.startIndex));
  return { target: node.namedChildren.filter((child): child is Node => child !== null && !starts.has(child.startIndex)), words };
}

/** A redirection that writes a file: its name (as written; an expansion in it as written too) goes into walk.written. */
function noteWritten(node: Node, walk: Walk): void {
  const destination = node.type === "file_redirect" ? node.childForFieldName("destination") : null;
  if (destination !== null && walk.written !== undefined) walk.written.add(scriptPath(wordValue(destination, { commands: [], depth: walk.depth, refusal: undefined }).text));
}

/** A file name as a script is run by it: `./s.sh` and `s.sh` are one file to `.`, `bash` and a redirection. */
function scriptPath(name: string): string {
  return name.replace(/^(?:\.\/)+/, "").replace(/\/{2,}/g, "/");
}

/** The directories of the system's own programs (`/usr/bin/python3`, `/bin/sh`). */
const SYSTEM_PROGRAMS = /^\/(?:usr\/)?s?bin\/[^/]+$/;

/** Programs that write the files named by their operands (`tee FILE`, `cp SRC DEST`): what they write is not read here. */
const OPERAND_WRITERS: Readonly<Record<string, "all" | "last">> = { tee: "all", cp: "last", mv: "last", install: "last", ln: "last", dd: "all" };

/**
 * The script file a command runs, if any: `. FILE`, `source FILE`, a shell given a file (`bash FILE`,
 * `sh -e FILE`), or the file as the program (`./FILE`).
 */
function scriptRun(words: readonly string[]): string | undefined {
  const program = basename(words[0] ?? "");
  if (program === "." || program === "source") return words[1];
  if (SHELLS.has(program)) {
    for (let i = 1; i < words.length; i++) {
      const word = words[i]!;
      if (word === "-c" || /^-[A-Za-z]*c[A-Za-z]*$/.test(word) || word === "-s") return undefined;
      if (word === "--") return words[i + 1];
      if (word === "-o" || word === "+o" || word === "-O" || word === "+O" || word === "--rcfile" || word === "--init-file") i += 1;
      else if (!word.startsWith("-") && !word.startsWith("+")) return word;
    }
    return undefined;
  }
  return words[0]?.includes("/") === true ? words[0] : undefined;
}

/**
 * A line that writes a file and runs it as a script (`echo CMD > s.sh; . s.sh`, `cat > s.sh <<EOF ...;
 * bash s.sh`, `printf ... | tee s.sh; ./s.sh`), or runs a file after a program wrote files whose names it
 * does not give (`patch < x.patch; ./s.sh`, `tar -xf a.tar; ./run.sh`, `git clone URL && cd r && make`,
 * `unzip a.zip && npm install`): what the script holds is only known when the line runs, so a deny cannot tell.
 * A file is run as a script (`. FILE`, `bash FILE`, `./FILE`: scriptRun), by an interpreter (`python3 FILE`),
 * or as make's makefile or a package's scripts (`make`, `npm test`: readProgram's `runs`).
 */
function scriptsWritten(walk: Walk): void {
  // Most lines run no file (no script, interpreter file, makefile or package script): nothing to read then.
  if ((walk.fedScripts?.size ?? 0) === 0 && !walk.commands.some((command) => scriptRun(command.words) !== undefined || filesRun(basename(command.words[0] ?? ""), command.words) !== undefined || codeLoader(command.words) !== undefined)) return;
  const written = new Set(walk.written);
  // Programs that load code from files they find themselves (git's hooks, pytest's conftest.py, a Python script's imports).
  const loads: { at: number; program: string; what: string; files: RegExp; interpreter: boolean }[] = [];
  // Where a program's own options or operands write a file (`git config KEY VALUE` writes .git/config): not a load of it by that same
  // command, nor by the commands it adds (`git config alias.st 'status -sb'` adds `git status -sb`, run by a later `git st`).
  const writtenBy = new Map<string, Set<number>>();
  // Files run, where they run in walk.commands (fed to a shell's input, `sh < s.sh`: anywhere), and how, as a phrase.
  const runs: { at: number; path: string; how: string; packageScripts?: boolean }[] = [...(walk.fedScripts ?? [])].map((path) => ({ at: Infinity, path, how: `${path} as a script` }));
  const unnamed: { at: number; why: string; packages?: boolean }[] = [];
  walk.commands.forEach((command, at) => {
    const script = scriptRun(command.words);
    if (script !== undefined) runs.push({ at, path: scriptPath(script), how: `${scriptPath(script)} as a script` });
    // Files a program's options or operands name as its output (`find -fprintf s.sh FORMAT`, `sort -o s.sh`, `curl -o s.sh URL`,
    // `sed -i … s.sh`), or files it reads the names of from elsewhere (`patch < x.patch`, `git apply x.patch`, `tar -xf a.tar`).
    const reading = readProgram(command.words);
    for (const file of reading.runs?.files ?? []) runs.push({ at, path: scriptPath(file), how: reading.runs!.what, ...(reading.runs!.packageScripts === true ? { packageScripts: true } : {}) });
    const loading = codeLoader(command.words);
    if (loading !== undefined) loads.push({ at, program: loading.program, what: loading.loader.what, files: loading.loader.files, interpreter: loading.loader.interpreter === true });
    for (const file of reading.writes ?? []) {
      const path = scriptPath(file);
      written.add(path);
      const by = writtenBy.get(path) ?? new Set<number>();
      writtenBy.set(path, by.add(at));
    }
    if (reading.writesUnnamed !== undefined) unnamed.push({ at, why: reading.writesUnnamed, ...(reading.installsPackages === true ? { packages: true } : {}) });
    const mode = OPERAND_WRITERS[basename(command.words[0] ?? "")];
    if (mode === undefined) return;
    const operands = command.words.slice(1).filter((word) => !word.startsWith("-") && !word.includes("="));
    for (const operand of mode === "all" ? operands : operands.slice(-1)) written.add(scriptPath(operand));
    if (basename(command.words[0] ?? "") === "dd") for (const word of command.words) if (word.startsWith("of=")) written.add(scriptPath(word.slice(3)));
  });
  if (runs.length === 0 && loads.length === 0) return;
  // A trap's command runs when its signal comes (at the end of the line for EXIT), not where it stands.
  const unordered = walk.unordered === true || walk.commands.some((command) => basename(command.words[0] ?? "") === "trap");
  // A run after the writer (anywhere, when the order of the commands is not the order they run in). A package script run after
  // a package install (`npm install && npm test`) runs no more of the fetched packages than the install itself does.
  for (const writer of unnamed) {
    // The commands the writer adds for what it runs itself (`git clone --upload-pack=CMD`, a wrapper's command) run as part of it.
    const end = walk.spans?.get(writer.at) ?? writer.at + 1;
    // The system's own programs (`/usr/bin/python3`) are not what an extraction or a checkout writes.
    const after = (at: number): boolean => (at < writer.at || at >= end) && (unordered || at >= end);
    const run = runs.find((one) => after(one.at) && !(writer.packages === true && one.packageScripts === true) && !SYSTEM_PROGRAMS.test(one.path));
    if (run !== undefined) {
      walk.unknown ??= unlistedScriptReason(run.how, writer.why);
      return;
    }
    // A package install's own scripts run anyway; a checkout or clone writes a tree, never the repository's hooks or configuration.
    const writerIsGit = basename(walk.commands[writer.at]?.words[0] ?? "") === "git";
    const load = writer.packages === true ? undefined : loads.find((one) => after(one.at) && !one.interpreter && !(writerIsGit && one.program.startsWith("git")));
    if (load === undefined) continue;
    walk.unknown ??= unlistedLoadedCodeReason(load.program, load.what, writer.why);
    return;
  }
  if (written.size === 0) return;
  const script = runs.find((run) => written.has(run.path));
  if (script !== undefined) {
    walk.unknown ??= `the line writes ${script.path} and then runs it${script.how === `${script.path} as a script` ? " as a script" : ` (${script.how})`}, and what it holds is only known when the line runs`;
    return;
  }
  for (const load of loads) {
    for (const path of written) {
      if (!load.files.test(path)) continue;
      const by = writtenBy.get(path);
      if (by !== undefined && [...by].every((at) => load.at >= at && load.at < (walk.spans?.get(at) ?? at + 1)) && !(walk.written?.has(path) ?? false)) continue;
      walk.unknown ??= loadedCodeReason(path, load.program, load.what);
      return;
    }
  }
}

function isHarmlessRedirect(node: Node): boolean {
  if (node.type === "heredoc_redirect" || node.type === "herestring_redirect") return true;
  if (node.type !== "file_redirect") return false;
  const operator = redirectOperator(node);
  const destination = node.childForFieldName("destination")?.text ?? "";
  if (NETWORK_FILE.test(destination)) return false;
  if (operator.startsWith("<") && !operator.startsWith("<>")) return true; // input only
  if (destination === "/dev/null") return true;
  return (operator === ">&" || operator === "<&") && /^(?:\d+|-)$/.test(destination); // descriptor duplication
}

function addCommand(walk: Walk, given: SimpleCommand): void {
  if (walk.commands.length >= MAX_COMMANDS) throw new Unreadable(`more than ${MAX_COMMANDS} commands`);
  const command = walk.settings === undefined || walk.settings.length === 0 ? given : { ...given, settings: [...walk.settings, ...(given.settings ?? [])] };
  const placed = walk.scope === undefined || walk.scope.length === 0 ? command : { ...command, scope: [...walk.scope] };
  walk.commands.push(walk.repeats === undefined ? placed : { ...placed, repeats: walk.repeats });
}

/** awk's names: `awk -f <(…)` runs the substitution's text as its program. */
const AWKS = new Set(["awk", "gawk", "mawk", "nawk"]);

/** make's names: `make -f FILE` reads its makefile (its recipes are command lines). */
const MAKES = new Set(["make", "gmake"]);

/** The program files sed or awk is given (`-f FILE`, `-fFILE`, `--file=FILE`, `--file FILE`, `-nf FILE`), up to `--`. */
function programFiles(program: string, words: readonly string[]): string[] {
  // Short options of theirs that take a value: after one of them the rest of the cluster is its value.
  const valued = AWKS.has(program) ? "fvFWEile" : MAKES.has(program) ? "CfIoW" : "eflS";
  // make's makefile is also `--makefile` (GNU getopt takes a long option's unique prefix).
  const long = MAKES.has(program) ? /^--(?:fi(?:le?)?|mak(?:e(?:f(?:i(?:le?)?)?)?)?)(?:=|$)/ : /^--fi(?:l(?:e)?)?(?:=|$)/;
  const files: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") break;
    if (long.test(word)) {
      const eq = word.indexOf("=");
      files.push(eq >= 0 ? word.slice(eq + 1) : (words[i + 1] ?? ""));
      continue;
    }
    if (!/^-[^-]/.test(word)) continue;
    for (let at = 1; at < word.length; at++) {
      if (!valued.includes(word[at]!)) continue;
      const value = word.slice(at + 1) !== "" ? word.slice(at + 1) : words[i + 1];
      if (word[at] === "f" && value !== undefined) files.push(value);
      break;
    }
  }
  return files;
}

/** A program word zsh expands to a command's path (`=rm`): `=` and a name without `/`. */
const ZSH_EQUALS = /^=[^/=\s]+$/;

/** The items of a brace sequence expression's body (`m..o`, `1..10..2`, `01..3`), at most 64; undefined when it is none. */
function braceSequence(body: string): string[] | undefined {
  const numbers = /^([-+]?\d+)\.\.([-+]?\d+)(?:\.\.([-+]?\d+))?$/.exec(body);
  const letters = numbers === null ? /^([A-Za-z])\.\.([A-Za-z])(?:\.\.([-+]?\d+))?$/.exec(body) : null;
  const match = numbers ?? letters;
  if (match === null) return undefined;
  const from = numbers !== null ? Number(match[1]) : match[1]!.charCodeAt(0);
  const to = numbers !== null ? Number(match[2]) : match[2]!.charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? 1)) || 1;
  // `{01..3}`: a number written with a leading zero pads every item to the wider width.
  const padded = numbers !== null && [match[1]!, match[2]!].some((one) => /^[-+]?0\d/.test(one));
  const width = padded ? Math.max(match[1]!.length, match[2]!.length) : 0;
  const out: string[] = [];
  for (let value = from; from <= to ? value <= to : value >= to; value += from <= to ? step : -step) {
    if (out.length >= 64) break;
    out.push(numbers !== null ? (value < 0 ? `-${String(-value).padStart(width - 1, "0")}` : String(value).padStart(width, "0")) : String.fromCharCode(value));
  }
  return out;
}

/** Bash brace expansion of an unquoted word (`{rm,-rf}`, `r{m,}`); undefined when it has none. */
function expandBraces(text: string, budget = { left: 64 }): string[] | undefined {
  let depth = 0;
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\\") {
      i += 1;
      continue;
    }
    if (ch === "{") {
      if (depth === 0) open = i;
      depth += 1;
    } else if (ch === "}" && depth > 0) {
      depth -= 1;
      if (depth !== 0) continue;
      const body = text.slice(open + 1, i);
      const parts: string[] = [];
      let level = 0;
      let start = 0;
      for (let j = 0; j < body.length; j++) {
        const c = body[j];
        if (c === "\\") j += 1;
        else if (c === "{") level += 1;
        else if (c === "}") level -= 1;
        else if (c === "," && level === 0) {
          parts.push(body.slice(start, j));
          start = j + 1;
        }
      }
      parts.push(body.slice(start));
      const head = text.slice(0, open);
      const tail = text.slice(i + 1);
      // A sequence expression (`{m..o}`, `{1..10..2}`, `{01..3}`): the letters or numbers it spans.
      const sequence = parts.length < 2 ? braceSequence(body) : undefined;
      if (sequence !== undefined) parts.splice(0, parts.length, ...sequence);
      if (parts.length < 2 && sequence === undefined) {
        const rest = expandBraces(tail, budget);
        return rest?.map((item) => `${head}{${body}}${item}`);
      }
      const out: string[] = [];
      for (const part of parts) {
        for (const item of expandBraces(`${head}${part}${tail}`, budget) ?? [`${head}${part}${tail}`]) {
          if (budget.left-- <= 0) return out;
          out.push(item);
        }
      }
      return out;
    }
  }
  return undefined;
}

/** Shell keywords: the parser reading one as a program's name has misread the line. */
const RESERVED = new Set(["do", "done", "then", "fi", "else", "elif", "esac", "in", "until", "while", "for", "if", "case", "select", "function", "{", "}", "!", "[[", "]]", "time", "coproc"].filter((word) => word !== "time" && word !== "coproc"));

/** File names that are the standard input. */
const STDIN_FILES = new Set(["/dev/stdin", "/proc/self/fd/0", "/dev/fd/0", "-"]);

const IFS_RE = /\$(?:\{IFS\}|IFS\b)/;

/** A brace expression bash expands (`{a,b}`, `{1..3}`). */
const BRACES_RE = /\{[^{}]*(?:,|\.\.)[^{}]*\}/;

/** The words after bash's brace expansion (`r{m,} x` is `rm x`), when a word has braces; undefined when none has. */
function bracedWords(words: readonly string[], values: readonly WordValue[]): string[] | undefined {
  if (!values.some((value) => value.bare !== undefined && value.bare.includes("{"))) return undefined;
  return values.flatMap((value, i) => (value.bare === undefined ? [words[i]!] : (expandBraces(value.bare)?.map(unescapeBare) ?? [words[i]!])));
}

/** The spellings a deny pattern is tried against. */
function denyForms(words: readonly string[], values: readonly WordValue[] | undefined): string[][] {
  const forms: string[][] = [];
  const seen = new Set<string>();
  const add = (form: string[]) => {
    if (form.length === 0 || forms.length >= MAX_FORMS) return;
    const key = form.join("\u0000");
    if (seen.has(key)) return;
    seen.add(key);
    forms.push(form);
  };
  const spellings: string[][] = [[...words]];
  if (values !== undefined) {
    // Brace expansion (bash): `{rm,-rf,/}` and `r{m,} x` are other argument vectors.
    const braced = bracedWords(words, values);
    if (braced !== undefined) spellings.push(braced);
    // `rm${IFS}-rf${IFS}/`: IFS is a space unless set otherwise.
    if (values.some((value) => value.dynamic && IFS_RE.test(value.text))) {
      spellings.push(words.flatMap((word, i) => (values[i]?.dynamic === true && IFS_RE.test(word) ? word.split(/\$(?:\{IFS\}|IFS\b)/).map((part) => unescapeBare(part.replace(/["']/g, ""))).filter((part) => part !== "") : [word])));
    }
  }
  for (const spelling of spellings) {
    add(spelling);
    const base = basename(spelling[0] ?? "");
    if (base !== spelling[0]) add([base, ...spelling.slice(1)]);
    // `grm -rf x`: the program under another of its names (Homebrew's g-prefixed GNU tools) is that program.
    const other = otherProgramName(base);
    if (other !== undefined) add([other, ...spelling.slice(1)]);
    // Look-alike letters, fullwidth forms, invisible characters, and words a Unicode space glues together.
    const normal = normalizeString(spelling.join(" "));
    if (normal !== spelling.join(" ")) {
      const split = normal === "" ? [] : normal.split(" ");
      add(split);
      const first = basename(split[0] ?? "");
      if (first !== split[0]) add([first, ...split.slice(1)]);
    }
  }
  return forms;
}

interface CommandFacts {
  assignments: boolean;
  writesFile: boolean;
  settings?: readonly Setting[];
  redirects?: readonly Redirect[];
}

/** Adds one simple command, and what its program runs (programs.ts), to the walk. */
type EnvironmentReading = ReturnType<typeof readEnvironment>;

function addSimple(
  words: readonly string[],
  values: readonly WordValue[] | undefined,
  facts: CommandFacts,
  walk: Walk,
  stdin: Stdin | undefined,
  level: number,
  dynamicTexts: ReadonlySet<string>,
  environment: readonly EnvironmentReading[] = [],
  within?: SimpleCommand["within"],
  input?: InputWords & { readonly implicit?: boolean },
): void {
  if (level > MAX_NESTED_COMMANDS) throw new Unreadable("commands nested too deep");
  // zsh (EQUALS, on by default) replaces a word `=NAME` by the path of the command NAME: `=rm x` runs rm.
  if (ZSH_EQUALS.test(words[0] ?? "")) {
    addSimple([words[0]!.slice(1), ...words.slice(1)], values === undefined ? undefined : [{ ...values[0]!, text: words[0]!.slice(1) }, ...values.slice(1)], facts, walk, stdin, level + 1, dynamicTexts, environment, within);
    walk.refusal ??= `zsh reads ${words[0]!} as the path of the command ${words[0]!.slice(1)}`;
  }
  const refusals: Refusal[] = [];
  let unknown: string | undefined;
  const isDynamic = (i: number) => (values === undefined ? dynamicTexts.has(words[i] ?? "") : values[i]?.dynamic === true);
  const dynamic = words.some((_, i) => isDynamic(i));
  if (dynamic) refusals.push({ reason: "an argument is only known when the command runs (an expansion or substitution)", token: "" });
  // What a prefix assignment makes the program do (`TAR_OPTIONS=...`, `PAGER=...`) is named before the plain fact of the prefix.
  for (const reading of environment) for (const refusal of reading.refusals) if (!refusals.some((known) => known.reason === refusal.reason)) refusals.push(refusal);
  // `HTTPS_PROXY=URL curl …`, `PIP_INDEX_URL=URL pip install x`: a place the command connects to, set in its environment.
  let placesUnknown = environment.find((reading) => reading.placesUnknown !== undefined)?.placesUnknown ?? walk.placesUnknown;
  if (facts.assignments) refusals.push({ reason: "the command is prefixed by a NAME=value assignment", token: "" });
  if (facts.writesFile) refusals.push({ reason: "the command writes a file through a redirection", token: "" });
  if (isDynamic(0)) unknown = `the program's name (${words[0] ?? ""}) is only known when it runs`;
  // A command a wrapper runs has lost its quoting: a name with pattern characters may be a pattern (`env /usr/bin/r[m] x`).
  if (values === undefined && /[*?[]/.test(words[0] ?? "")) unknown ??= `the program's name (${words[0] ?? ""}) may be a file name pattern`;
  if (values !== undefined) {
    if (values[0]?.glob === true) unknown ??= `the program's name (${words[0] ?? ""}) is a file name pattern`;
    const braced = values.find((value) => value.bare !== undefined && /(?<!\\)\{[^{}]*(?:,|\.\.)[^{}]*\}/.test(value.bare));
    if (braced !== undefined) refusals.push({ reason: `bash expands the braces in ${braced.bare ?? ""} (sh does not)`, token: "" });
    if (values.some((value) => value.ansiC)) refusals.push({ reason: "$'...' is read as ANSI-C quoting by bash but not by sh (dash)", token: "" });
  }
  const program = basename(words[0] ?? "");
  if (RESERVED.has(program)) unknown ??= `the parser read the shell keyword ${program} as a command`;
  if (walk.functions?.has(words[0] ?? "") === true) {
    refusals.push({ reason: `${words[0] ?? ""} is a function defined in the command line`, token: "" });
  }
  const forms: string[][] = denyForms(words, values);
  const braced = values === undefined ? undefined : bracedWords(words, values);
  const expanded = braced === undefined || (braced.length === words.length && braced.every((word, i) => word === words[i])) ? undefined : braced;
  const formKeys = new Set(forms.map((form) => form.join("\u0000")));
  /** Another spelling, once, while the forms are fewer than `cap`. */
  const addForm = (form: readonly string[], cap: number) => {
    const key = form.join("\u0000");
    if (forms.length < cap && !formKeys.has(key)) {
      formKeys.add(key);
      forms.push([...form]);
    }
  };
  const maybe: MaybeForm[] = [];
  const spellings: (readonly string[])[] = [];
  const nested: { commands: (readonly string[])[]; scripts: string[]; guesses: string[] } = { commands: [], scripts: [], guesses: [] };
  let transparent = false;
  let directory: { readonly word: string | undefined } | undefined;
  let allowAs: SimpleCommand["allowAs"];
  let connects: SimpleCommand["connects"];
  const placeForms: (readonly string[])[] = [];
  const otherScripts: string[] = [];
  /** The scripts the program hands to a shell that reads the program's standard input (`ssh HOST bash`, `script -c bash`). */
  const scriptsWithInput = new Set<string>();
  /** The commands this one runs with words read from the input (xargs's command), by their words. */
  const inputOf = new Map<string, InputWords & { readonly implicit?: boolean }>();
  for (const form of forms) {
    const reading = readProgram(form);
    for (const read of reading.input ?? []) {
      if (!inputOf.has(read.command.join("\u0000"))) inputOf.set(read.command.join("\u0000"), { at: read.at, by: read.by, ...(read.implicit === true ? { implicit: true } : {}), ...(read.paths === true ? { paths: true } : {}) });
    }
    if (form === forms[0] && input !== undefined) {
      // `xargs -I{} {} x`: the program itself is read from the input.
      if (input.at === 0) unknown ??= input.paths === true ? foundPathsReason() : inputProgramReason(input.by);
      // `echo -c 'alias.x=!rm y' x | xargs git`: the words read from the input reach a program whose
      // arguments may make it run another command; unless they only reach the command it runs
      // (`xargs sudo rm`, `xargs timeout 5 grep`), which is read with them.
      else if (reading.plainWords !== true && !reading.commands.some((inner) => inner.length > 0 && inner.length < words.length && words.length - inner.length <= input.at && inner.every((word, i) => words[words.length - inner.length + i] === word))) {
        unknown ??= input.paths === true ? foundPathsReason() : inputOptionsReason(input.by, basename(words[0] ?? ""));
      }
    }
    if (form === forms[0] && reading.transparent === true) transparent = true;
    if (form === forms[0]) allowAs = reading.allowAs;
    if (form === forms[0]) directory = reading.directory;
    if (form === forms[0] && reading.connects !== undefined) connects = { origins: reading.connects.origins, places: reading.connects.places, ...(reading.connects.configured === undefined ? {} : { configured: reading.connects.configured }) };
    // `curl 0x7f.1:8080` is also `curl http://127.0.0.1:8080/`: the places it connects to, as a deny reads them.
    placeForms.push(...(reading.connects?.forms ?? []));
    placesUnknown ??= reading.placesUnknown;
    for (const refusal of reading.refusals) if (!refusals.some((known) => known.reason === refusal.reason)) refusals.push(refusal);
    unknown ??= reading.unknown;
    for (const extra of reading.forms) addForm(extra, MAX_FORMS);
    for (const one of reading.maybe ?? []) if (maybe.length < MAX_FORMS) maybe.push(one);
    spellings.push(...(reading.spellings ?? []));
    nested.commands.push(...reading.commands);
    // The scripts of another spelling (look-alikes folded, white space runs made one space) are read
    // too; one that cannot be parsed leaves the line one a deny cannot be sure of (below).
    if (form === forms[0]) {
      nested.scripts.push(...reading.scripts);
      for (const script of reading.scripts) scriptsWithInput.add(script);
    }
    else otherScripts.push(...reading.scripts);
    nested.guesses.push(...reading.guesses);
    // `sh < s.sh`: a script file on the standard input (one the line writes is read in scriptsWritten).
    if (reading.readsStdin === true && stdin?.fromFile === true && stdin.file !== undefined) walk.fedScripts?.add(stdin.file);
    if (reading.readsStdin === true && stdin !== undefined && stdin.fromFile !== true) {
      if (stdin.text !== undefined && (reading.stdinShell === true || runsStdinAsShell(basename(form[0] ?? "")))) nested.scripts.push(stdin.text);
      else if (stdin.text === undefined) unknown ??= `${basename(form[0] ?? "")} runs a script read from ${stdin.what}, which the guard cannot read`;
    }
  }
  // `GIT_SSH_COMMAND='cmd' git fetch`, `BASH_ENV='$(cmd)' bash -c x`: what the prefix assignments make a program run.
  for (const reading of environment) {
    for (const refusal of reading.refusals) if (!refusals.some((known) => known.reason === refusal.reason)) refusals.push(refusal);
    unknown ??= reading.unknown;
    nested.commands.push(...reading.commands);
    nested.scripts.push(...reading.scripts);
  }
  // A function defined in the line may run its arguments (`g(){ "$@"; }; g rm x`): they are read as a command.
  if (walk.functions?.has(words[0] ?? "") === true && words.length > 1) nested.commands.push(words.slice(1));
  // `f(){ sh; }; f <<EOF … EOF`: the call's input is its body's, and a body that runs its input runs the text fed to the call.
  const body = walk.bodies?.get(words[0] ?? "");
  if (body !== undefined && stdin !== undefined && RUNS_INPUT.test(body)) {
    if (stdin.text !== undefined) nested.scripts.push(stdin.text);
    else if (stdin.fromFile === true) {
      // As a shell given the file (`bash < s.sh`): unknown only when the line writes it (scriptsWritten).
      if (stdin.file !== undefined) walk.fedScripts?.add(stdin.file);
    } else unknown ??= `the function ${words[0] ?? ""} runs what it reads from ${stdin.what}, which the guard cannot read`;
  }
  // `sed -f -`, `awk -f /dev/stdin`, `make -f - <<EOF`: the program (the makefile) is what the standard input holds.
  if (stdin !== undefined && stdin.fromFile !== true && (AWKS.has(program) || MAKES.has(program) || program === "sed" || program === "gsed") && programFiles(program, words).some((file) => STDIN_FILES.has(file))) {
    if (MAKES.has(program)) {
      // Recipe lines (a tab first) and a rule's recipe after `;` (`all: ; CMD`), make's own prefixes `-`, `@`, `+` dropped; the rest is make's own code.
      if (stdin.text !== undefined) for (const match of stdin.text.matchAll(/^(?:\t+|[^\t#\n=]*?::?[^\n;=]*;\s*)[-@+]*(.*)$/gm)) nested.guesses.push(match[1] ?? "");
      unknown ??= `${program} runs the makefile it reads from ${stdin.what}, which the guard cannot read`;
    } else if (stdin.text === undefined) unknown ??= `${program} runs the program it reads from ${stdin.what}, which the guard cannot read`;
    else nested.commands.push(AWKS.has(program) ? [program, stdin.text] : [program, "-e", stdin.text]);
  }
  // ed, ftp, gdb, mysql, sqlite3, dc, m4, crontab -, ...: commands read from the standard input, where a line may run a shell command.
  if (stdin !== undefined) {
    const fed = stdinCommands(forms[0] ?? words, stdin.text, stdin.what);
    if (fed !== undefined) {
      refusals.push(fed.refusal);
      nested.scripts.push(...fed.scripts);
      nested.guesses.push(...fed.guesses);
      unknown ??= fed.unknown;
    }
  }
  // `source /dev/stdin`, `. <(echo CMD)`, `bash <(printf ...)`: the text it reads is a script.
  if (program === "source" || program === "." || SHELLS.has(program)) {
    const file = words.slice(1).find((word, i) => !word.startsWith("-") || values?.[i + 1]?.feeds !== undefined);
    const at = file === undefined ? -1 : words.indexOf(file);
    const fed = at > 0 ? values?.[at]?.feeds : undefined;
    if (fed !== undefined) nested.scripts.push(fed);
    else if (file !== undefined && STDIN_FILES.has(file)) {
      if (stdin?.text !== undefined) nested.scripts.push(stdin.text);
      else unknown ??= `${program} runs a script read from ${stdin?.what ?? "its standard input"}, which the guard cannot read`;
    } else if (at > 0 && values?.[at]?.dynamic === true) unknown ??= `${program} runs a script whose name or text is only known when it runs`;
  }
  // `python3 <(echo CODE)`, `awk -f <(echo PROGRAM)`, `sed -f <(echo SCRIPT)`: the file a process substitution names is code whose text the line holds.
  const fedAt = values === undefined ? -1 : values.findIndex((value, i) => i > 0 && value.feeds !== undefined);
  if (fedAt > 0 && program !== "source" && program !== "." && !SHELLS.has(program)) {
    const code = values![fedAt]!.feeds!;
    const option = words[fedAt - 1];
    if (AWKS.has(program) && (option === "-f" || option === "--file")) nested.commands.push([program, code]);
    else if ((program === "sed" || program === "gsed") && (option === "-f" || option === "--file")) nested.commands.push([program, "-e", code]);
    else if (MAKES.has(program) && (option === "-f" || option === "--file" || option === "--makefile")) {
      // A makefile's recipe lines are command lines (their leading `-`, `@`, `+` are make's); the rest is make's own code.
      for (const match of code.matchAll(/^\t+[-@+]*(.*)$/gm)) nested.guesses.push(match[1] ?? "");
      unknown ??= `${program} runs the makefile a process substitution writes, which the guard cannot read`;
    }
    else if (readsCodeFromStdin(program) && words.slice(1, fedAt).every((word) => word.startsWith("-"))) {
      const reading = stdinCodeReading(program, code);
      nested.guesses.push(...reading.guesses);
      unknown ??= reading.unknown;
      placesUnknown ??= reading.placesUnknown;
    }
  }
  if (stdin?.text !== undefined && readsCodeFromStdin(basename(words[0] ?? ""))) {
    refusals.push({ reason: `${stdin.what} is fed to ${basename(words[0] ?? "")} as code`, token: "" });
    // An interpreter's code that starts processes: its literals are tried as commands, and a deny none matches cannot tell.
    if (!SHELLS.has(program)) {
      const code = stdinCodeReading(program, stdin.text);
      nested.guesses.push(...code.guesses);
      unknown ??= code.unknown;
      placesUnknown ??= code.placesUnknown;
    }
  }
  // `: > F`, `cat /dev/null > F`: a command that writes nothing through a redirection that truncates empties the file, as rm leaves nothing of it (same-effect.ts).
  // `cat < /dev/null > F`, `: | tee F`, `sponge F < /dev/null`: a program that copies an empty input over a file empties it.
  const emptyInput = stdin?.text === "" || (stdin?.fromFile === true && stdin.file === "/dev/null");
  for (const redirect of facts.redirects ?? []) {
    const emptied = redirect.truncates === true ? emptiedBy(words, redirect.word, emptyInput) : undefined;
    if (emptied !== undefined && maybe.length < MAX_FORMS) maybe.push(emptied);
  }
  const sunk = emptyInput ? inputSinksEmptied(words, readArguments) : undefined;
  if (sunk !== undefined && maybe.length < MAX_FORMS) maybe.push(sunk);
  // `cat </dev/tcp/0x7f.1/80`: bash connects to the redirection's host, read as a fetcher's place is.
  const network = redirectPlaces(words, facts.redirects ?? []);
  placeForms.push(...network.forms);
  placesUnknown ??= network.unknown;
  for (const form of placeForms) if (forms.length < MAX_FORMS) forms.push([...form]);
  // `cat < /srv/secrets/key`, `cat - < FILE`: the program reads the file it is fed as if it were named (a deny reads it so).
  if (stdin?.fromFile === true && stdin.file !== undefined && words.length > 0 && forms.length < MAX_FORMS) {
    const fed = stdin.file;
    const named = words.map((word, i) => (i > 0 && STDIN_FILES.has(word) ? fed : word));
    forms.push(named.some((word, i) => word !== words[i]) ? named : [...words, fed]);
  }
  // `npm pub`, `docker -H HOST rm`: the command by its other names, tried as they are (not read again).
  for (const spelling of spellings) addForm(spelling, 2 * MAX_FORMS);
  // A wrapper's command has lost its quoting: a word with pattern characters may be a pattern (`sudo git pu?h`).
  // `cat ~/x`, `dd if=~/x`: the shell puts a home directory there, which the guard cannot place.
  const wild = new Set(words.filter((word, i) => i > 0 && (isDynamic(i) || (values === undefined ? /[*?[]/.test(word) || TILDE_RE.test(word) : values[i]?.glob === true || values[i]?.tilde === true) || PLACELESS_RE.test(word))));
  // `env -C DIR CMD`: what the wrapper runs starts in DIR, in a scope of its own; a DIR the shell still replaces (`env -C "$D"`, `-C d*`) cannot be placed.
  let runsIn: SimpleCommand["runsIn"];
  if (directory !== undefined) {
    const word = directory.word;
    const replaced = word === undefined || /[$`*?[]/.test(word) || BRACES_RE.test(word) || [...wild].some((one) => one.includes(word) || word.includes(one));
    walk.scopes = (walk.scopes ?? 0) + 1;
    runsIn = { scope: [...(walk.scope ?? []), walk.scopes], directory: replaced ? undefined : word };
  }
  const self = walk.commands.length;
  addCommand(walk, {
    words,
    dynamic,
    assignments: facts.assignments,
    writesFile: facts.writesFile,
    ...(facts.settings === undefined ? {} : { settings: facts.settings }),
    construct: false,
    refusals,
    forms,
    unknown,
    ...(maybe.length === 0 ? {} : { maybe }),
    ...(connects === undefined ? {} : { connects }),
    ...(placesUnknown === undefined ? {} : { placesUnknown }),
    ...(within === undefined ? {} : { within }),
    ...(transparent || input?.implicit === true ? { transparent: true } : {}),
    ...(allowAs === undefined || input !== undefined ? {} : { allowAs }),
    ...(input === undefined ? {} : { input: inputReading(input, words) }),
    ...(wild.size === 0 ? {} : { wild }),
    ...(expanded === undefined ? {} : { expanded }),
    ...(runsIn === undefined ? {} : { runsIn }),
    ...(facts.redirects === undefined ? {} : { redirects: facts.redirects }),
  });
  const outerScope = walk.scope;
  if (runsIn !== undefined) walk.scope = [...runsIn.scope];
  try {
    addNested(words, values, walk, stdin, level, dynamicTexts, nested, otherScripts, scriptsWithInput, inputOf, input, placesUnknown, facts.settings);
  } finally {
    walk.scope = outerScope;
  }
  walk.spans?.set(self, walk.commands.length);
}

/** The commands, scripts and guesses a command runs (addSimple), added to the walk after it. */
function addNested(
  words: readonly string[],
  values: readonly WordValue[] | undefined,
  walk: Walk,
  stdin: Stdin | undefined,
  level: number,
  dynamicTexts: ReadonlySet<string>,
  nested: { commands: (readonly string[])[]; scripts: string[]; guesses: string[] },
  otherScripts: readonly string[],
  scriptsWithInput: ReadonlySet<string>,
  inputOf: ReadonlyMap<string, InputWords & { readonly implicit?: boolean }>,
  input: (InputWords & { readonly implicit?: boolean }) | undefined,
  placesUnknown: string | undefined,
  settings: readonly Setting[] | undefined,
): void {
  const seenInner = new Set<string>();
  for (const inner of nested.commands) {
    const key = inner.join("\u0000");
    if (seenInner.has(key)) continue;
    seenInner.add(key);
    // A wrapper's command reads the wrapper's standard input (`sudo sh <<EOF`).
    const at = words.length - inner.length;
    const tail = at > 0 && inner.every((word, i) => words[at + i] === word) ? { words, at } : undefined;
    // The words read from the input: those of the wrapper's own reading (`xargs git`), and this
    // command's own ones, which end the command it runs (`echo rm | xargs sudo`: sudo's command).
    const own = inputOf.get(key);
    const passed = input !== undefined && tail !== undefined ? { ...input, at: Math.max(0, input.at - at), implicit: false } : undefined;
    const innerInput = own === undefined ? passed : passed === undefined || own.at <= passed.at ? own : passed;
    // The words of a command that ends the wrapper's are the same shell words (`coproc . <(printf …)`: the file `.` reads is the substitution's text).
    // A place the wrapper sets in the environment of the command it runs (`env HTTPS_PROXY=URL curl …`) reaches that command.
    const passedPlaces = tail !== undefined && placesUnknown !== undefined ? [{ commands: [], scripts: [], guesses: [], refusals: [], forms: [], placesUnknown }] : [];
    // The variables the wrapper's own prefix sets (`GIT_DIR=d timeout 5 git log`) and those it sets itself (`env GIT_DIR=d git log`, `sudo NAME=v CMD`) reach its command.
    const wrapperSets = tail === undefined ? [] : words.slice(1, at).flatMap((word, i) => {
      const set = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(word);
      return set === null || environmentFiles(set[1]!) === undefined ? [] : [{ name: set[1]!, value: set[2]!, dynamic: values?.[i + 1]?.dynamic === true }];
    });
    const passedSettings = tail === undefined ? [] : [...(settings ?? []), ...wrapperSets];
    addSimple(inner, tail === undefined ? undefined : values?.slice(at), { assignments: false, writesFile: false, ...(passedSettings.length === 0 ? {} : { settings: passedSettings }) }, walk, stdin, level + 1, dynamicTexts, passedPlaces, tail, innerInput);
  }
  for (const script of new Set(nested.scripts)) nestedScript(script, basename(words[0] ?? ""), walk, scriptsWithInput.has(script) ? stdin : undefined);
  for (const script of new Set(otherScripts)) {
    if (nested.scripts.includes(script)) continue;
    try {
      nestedScript(script, basename(words[0] ?? ""), walk);
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      walk.unknown ??= `another spelling of the line cannot be read (${error.message})`;
    }
  }
  for (const guess of new Set(nested.guesses)) {
    const probe: Walk = { commands: [], depth: walk.depth + 1, refusal: undefined, written: new Set(), fedScripts: new Set() };
    if (walk.depth < MAX_NESTED_SCRIPTS && parseInto(guess, probe) === undefined) {
      for (const command of probe.commands) addCommand(walk, command);
      // A literal that writes a script and runs it (awk's `"exec 3> s.sh; …; bash s.sh" | getline`): what it runs is not known.
      probe.unknown = undefined;
      scriptsWritten(probe);
      walk.unknown ??= probe.unknown;
    }
  }
}

/** SimpleCommand.input: where the words only known when it runs start, why a rule cannot tell, and how `policy explain` shows it. */
function inputReading(input: InputWords, words: readonly string[]): NonNullable<SimpleCommand["input"]> {
  const known = JSON.stringify(words.slice(0, input.at).join(" "));
  if (input.paths === true) return { at: input.at, by: input.by, reason: foundPathsReason(), shown: foundPathsShown(known) };
  return { at: input.at, by: input.by, reason: input.at === 0 ? inputProgramReason(input.by) : inputWordsReason(input.by), shown: inputWordsShown(known, input.by) };
}

/** A command line a program hands to a shell (`bash -c`, `eval`, `env -S`, `find -exec sh -c`): parsed, its commands added. */
function nestedScript(script: string, name: string, walk: Walk, input?: Stdin): void {
  if (walk.depth >= MAX_NESTED_SCRIPTS) throw new Unreadable("shell scripts nested too deep");
  const inner: Walk = {
    ...(input === undefined ? {} : { input }),
    commands: walk.commands,
    depth: walk.depth + 1,
    refusal: walk.refusal,
    functions: walk.functions,
    ...(walk.values === undefined ? {} : { values: walk.values }),
    ...(walk.arithmetic === undefined ? {} : { arithmetic: walk.arithmetic }),
    ...(walk.written === undefined ? {} : { written: walk.written }),
    ...(walk.fedScripts === undefined ? {} : { fedScripts: walk.fedScripts }),
    ...(walk.references === undefined ? {} : { references: walk.references }),
    ...(walk.bodies === undefined ? {} : { bodies: walk.bodies }),
    // Its commands run in the subshell the program runs in (`(cd /srv && bash -c 'cat k')`, `env -C DIR bash -c …`).
    ...(walk.scope === undefined ? {} : { scope: [...walk.scope] }),
    ...(walk.scopes === undefined ? {} : { scopes: walk.scopes }),
    ...(walk.spans === undefined ? {} : { spans: walk.spans }),
  };
  const problem = readLine(script, inner);
  walk.scopes = inner.scopes;
  // `bash -c '< F'`, `eval '> F'`: the script's redirections with no command open their files too (zsh pages `< F` out).
  if (inner.bare !== undefined) (walk.bare ??= []).push(...inner.bare);
  if (inner.patterns !== undefined) (walk.patterns ??= []).push(...inner.patterns);
  walk.refusal ??= inner.refusal;
  walk.unknown ??= inner.unknown;
  if (inner.unordered === true) walk.unordered = true;
  if (problem !== undefined) throw new Unreadable(`the script given to ${name}: ${problem}`);
}

/** `trailing`: words of the command that the parser put in a redirection after it (`redirectParts`). */
function readCommand(node: Node, walk: Walk, writesFile: boolean, stdin: Stdin | undefined, trailing: readonly Node[] = []): void {
  // The redirections of the statement this command starts (`cat < F`, `{ cat; } < F`) are its own, not those of a command substituted in its words.
  const redirects = walk.redirects ?? [];
  walk.redirects = undefined;
  const words: string[] = [];
  const values: WordValue[] = [];
  let assignments = false;
  const environment: (EnvironmentReading & { readonly setting?: Setting })[] = [];
  let input = stdin;
  const push = (value: WordValue) => {
    words.push(value.text);
    values.push(value);
  };
  let lastEnd = -1;
  /** A word of the command; the parser splits some words bash reads as one (`pu${x}\blish`, `${x}p$*ublish`): parts with nothing between them are joined. */
  const pushWord = (part: Node) => {
    // The parser reads bracket words in a row as one word with a blank in it (`pa } }` as `pa` and `} }`); a plain word
    // has no unquoted blank to bash, which reads one word on each side of it.
    if (part.type === "word" && /^(?:[^\s\\$`'"]|\\\S)+(?:[ \t]+(?:[^\s\\$`'"]|\\\S)+)+$/.test(part.text)) {
      for (const piece of part.text.split(/[ \t]+/)) {
        const text = piece.replace(/\\(.)/g, "$1");
        push({ text, dynamic: false, glob: /(?<!\\)[*?[]/.test(piece), ansiC: false, bare: piece });
      }
      lastEnd = part.endIndex;
      return;
    }
    const value = wordValue(part, walk);
    const previous = values.at(-1);
    if (part.startIndex === lastEnd && previous !== undefined && previous.feeds === undefined && value.feeds === undefined) {
      const joined: WordValue = {
        text: previous.text + value.text,
        dynamic: previous.dynamic || value.dynamic,
        glob: previous.glob || value.glob,
        ansiC: previous.ansiC || value.ansiC,
        bare: previous.bare !== undefined && value.bare !== undefined ? previous.bare + value.bare : undefined,
      };
      values[values.length - 1] = joined;
      words[words.length - 1] = joined.text;
    } else push(value);
    lastEnd = part.endIndex;
  };
  for (const child of node.namedChildren) {
    if (child === null) continue;
    if (child.type === "variable_assignment") {
      const reading = assignmentReading(child, walk);
      // `NODE_ENV=test npm test`: a plain setting with a static value changes nothing an allow vouches for.
      if (!reading.plain) assignments = true;
      environment.push(reading);
    } else if (child.type === "command_name") {
      for (const part of child.namedChildren) if (part !== null) pushWord(part);
    } else if (child.type === "herestring_redirect") {
      if (stdin?.later !== true) input = herestringInput(child, walk);
    } else if (child.type.endsWith("redirect")) {
      if (!isHarmlessRedirect(child)) {
        writesFile = true;
        noteWritten(child, walk);
      }
      const opened = redirectOf(child, walk);
      if (opened !== undefined) redirects.push(opened);
      if (stdin?.later !== true) input = fileInput(child, walk) ?? input;
      walk.refusal ??= networkRedirect(child);
      noteDashSplit(child, walk);
      const parts = redirectParts(child);
      for (const part of parts.target) collectNested(part, walk);
      for (const word of parts.words) pushWord(word);
    } else if (child.type !== "comment") pushWord(child);
  }
  // The parser drops a lone `-` right before a redirection (`sed -f - <<EOF`, `cat - 2>&1`): bash reads it as a word.
  const next = node.nextSibling;
  if (next !== null && next.type.endsWith("redirect") && node.tree.rootNode.text.slice(node.endIndex, next.startIndex).trim() === "-") {
    push({ text: "-", dynamic: false, glob: false, ansiC: false, bare: "-" });
  }
  for (const word of trailing) pushWord(word);
  // `read PAGER <<< cmd`, `printf -v PATH DIR`: a builtin sets a variable, as an assignment would.
  for (const set of variablesSet(words, (i) => values[i]?.dynamic === true)) {
    if (set.name === undefined) walk.unknown ??= `${words[0] ?? ""} sets a variable whose name is only known when it runs`;
    else setVariable(set.name, set.value, "the command line", walk);
  }
  if (words.length === 0) {
    // `> F` alone opens F all the same.
    if (redirects.length > 0) (walk.bare ??= []).push({ at: walk.commands.length, redirects });
    // A bare assignment runs nothing itself (its substitutions were walked), but an exported variable reaches every later command.
    for (const reading of environment) lineEnvironment(reading, walk);
    return;
  }
  const dynamicTexts = new Set(words.filter((_, i) => values[i]?.dynamic === true));
  const settings = environment.flatMap((reading) => (reading.setting === undefined ? [] : [reading.setting]));
  addSimple(words, values, { assignments, writesFile, ...(redirects.length === 0 ? {} : { redirects }), ...(settings.length === 0 ? {} : { settings }) }, walk, input, 0, dynamicTexts, environment);
}


/**
 * What `NAME=value` sets (programs.ts's environment table); the value's substitutions are walked.
 * `plain`: a plain setting (programs.ts's PLAIN_ENVIRONMENT) with a static value, spelled the same in bash and sh.
 */
function assignmentReading(node: Node, walk: Walk): EnvironmentReading & { readonly plain: boolean; readonly setting?: Setting } {
  const nameNode = node.childForFieldName("name");
  const name = referenced(nameNode?.text ?? "", walk);
  // `a[$(cmd)]=1`: bash evaluates the subscript, substitutions included.
  if (nameNode !== null) collectNested(nameNode, walk);
  const valueNode = node.childForFieldName("value");
  const value = valueNode === null ? { text: "", dynamic: false, ansiC: false } : wordValue(valueNode, walk);
  // A value that is only an arithmetic result or a count (`n=$((n+1))`, `len=${#list[@]}`) is a number, whatever runs.
  walk.values?.set(name, !value.dynamic ? value.text : valueNode !== null && NUMERIC_VALUE.test(valueNode.text) ? "0" : undefined);
  if (!value.dynamic) readSubscripts(value.text, "an array subscript in a variable's value", walk);
  const plain = node.type === "variable_assignment" && nameNode?.type === "variable_name" && !value.ansiC && isPlainSetting(name, value.text, value.dynamic);
  // `RIPGREP_CONFIG_PATH=f`, `GIT_DIR=d`: a variable programs read files or options through, kept for the file rules.
  const setting = environmentFiles(name) === undefined ? undefined : { name, value: value.text, dynamic: value.dynamic };
  return { ...readEnvironment(name, value.text, value.dynamic, "the command line"), plain, ...(setting === undefined ? {} : { setting }) };
}

/** An assignment outside a command (`PAGER=cmd; git log`, `export GIT_SSH_COMMAND=cmd`): it reaches the commands after it. */
function lineEnvironment(reading: EnvironmentReading & { readonly setting?: Setting }, walk: Walk): void {
  if (reading.setting !== undefined) (walk.settings ??= []).push(reading.setting);
  if (reading.refusals.length === 0) return;
  walk.refusal ??= reading.refusals[0]!.reason;
  walk.unknown ??= reading.unknown;
  walk.placesUnknown ??= reading.placesUnknown;
  for (const command of reading.commands) addSimple(command, undefined, { assignments: false, writesFile: false }, walk, undefined, 1, new Set());
  for (const script of new Set(reading.scripts)) nestedScript(script, "an environment variable", walk);
}

function walkStatements(node: Node, walk: Walk, writesFile = false): void {
  // A job in the background (`a & b`) runs alongside the commands after it.
  if (node.children.some((child) => child?.type === "&")) walk.unordered = true;
  for (const child of node.namedChildren) {
    if (child === null) continue;
    walkStatement(child, walk, writesFile, walk.input);
  }
}

/** The text a here-string feeds (`<<< 'text'`: the word and a newline; unknown when it has an expansion). */
function herestringInput(node: Node, walk: Walk): Stdin {
  walk.refusal ??= "the command has a here-string (<<<)";
  const target = node.namedChildren.find((part) => part !== null && part.type !== "file_descriptor");
  const value = target === undefined || target === null ? undefined : wordValue(target, walk);
  return { text: value === undefined || value.dynamic ? undefined : `${value.text}\n`, what: "a here-string" };
}

/** The text a here-document feeds: its body, and whether the shell expands it (unquoted delimiter). */
function heredocInput(node: Node, walk: Walk): Stdin & { readonly readsOn?: number } {
  const start = node.namedChildren.find((child) => child?.type === "heredoc_start")?.text ?? "";
  const body = node.namedChildren.find((child) => child?.type === "heredoc_body");
  const quoted = /["'\\]/.test(start);
  const bash = bashHeredocBody(node, start, body ?? undefined);
  walk.refusal ??= bash === undefined ? "the command has a here-document (<<)" : "the here-document's end line has more after its delimiter, so bash reads the here-document on past it";
  // The parser reads `$(...)` in an unquoted body, not backquotes: those are read here (in bash's body, when it reads on).
  const text = bash?.text ?? body?.text;
  const backquoted = !quoted && text !== undefined ? [...text.matchAll(/(?<!\\)`((?:\\.|[^`\\])*)`/gs)] : [];
  for (const match of backquoted) nestedScript((match[1] ?? "").replace(/\\([`$\\])/g, "$1"), "a here-document's backquotes", walk);
  if (bash !== undefined) {
    // The parser's reading of the rest of the line is not bash's (which often finds a syntax error): a deny not matched cannot tell.
    walk.unknown ??= "the here-document's end line has more after its delimiter, so bash reads the here-document on past it";
    return { text: quoted ? bash.text : unescapeHeredoc(bash.text), what: "a here-document", readsOn: bash.lineEnd };
  }
  // Substitutions in an unquoted body run (collectNested walks them); the text fed in is then only known for a body without expansions.
  // A body with expansions is read as written (its substitutions run when it is read; the rest is the script).
  if (body === undefined || body === null) return { text: undefined, what: "a here-document" };
  return { text: quoted ? body.text : unescapeHeredoc(body.text), what: "a here-document" };
}

/**
 * What tree-sitter-bash puts inside a here-document's redirection that belongs to the line around it
 * (`cat <<EOF > f.txt && rm x | sh⏎…⏎EOF`): the here-document's own parts, the command's later
 * redirections (`> f.txt`), and the rest of the line: the operator after the command (`|`, `&&`,
 * `||`) and the statements it joins. bash reads them as written on the line.
 */
/** The words the parser puts in a here-document's redirection after its start (`git <<EOF push origin`), and in the redirections it holds (`git <<EOF > out push`). */
function heredocWords(node: Node): Node[] {
  const own = node.childrenForFieldName("argument").filter((child): child is Node => child !== null);
  const held = node.namedChildren.filter((child): child is Node => child !== null && child.type.endsWith("redirect") && child.type !== "heredoc_redirect").flatMap((child) => redirectParts(child).words);
  return [...own, ...held].sort((a, b) => a.startIndex - b.startIndex);
}

function heredocTail(node: Node): { own: Node[]; redirects: Node[]; operator: string | undefined; statements: Node[] } {
  const own: Node[] = [];
  const redirects: Node[] = [];
  const statements: Node[] = [];
  let operator: string | undefined;
  const words = new Set(node.childrenForFieldName("argument").filter((child): child is Node => child !== null).map((child) => child.startIndex));
  for (const child of node.children) {
    // (The descriptor of `2<<EOF` is the redirection's own, not a statement after it.)
    if (child === null || words.has(child.startIndex) || child.type === "file_descriptor") continue;
    if (!child.isNamed) {
      if (child.type !== "<<" && child.type !== "<<-") operator ??= child.type;
    } else if (child.type.startsWith("heredoc_")) own.push(child);
    else if (child.type.endsWith("redirect")) redirects.push(child);
    else statements.push(child);
  }
  // `cat <<EOF | sh`: the pipe is the first token of the pipeline that follows.
  const first = statements[0];
  if (operator === undefined && first !== undefined && first.type === "pipeline") operator = first.children[0]?.type === "|&" ? "|&" : first.children[0]?.type === "|" ? "|" : undefined;
  return { own, redirects, operator, statements };
}

/** What a command writes to a pipe when it is `cat` of its input (`cat`, `cat -`): that input's text, when known. */
function catOutput(node: Node, input: Stdin | undefined): string | undefined {
  if (node.type !== "command" || input === undefined) return undefined;
  const words = node.namedChildren.filter((child): child is Node => child !== null).map((child) => child.text);
  return words[0] === "cat" && (words.length === 1 || (words.length === 2 && words[1] === "-")) ? input.text : undefined;
}

/**
 * bash ends a here-document only at a line that is its delimiter and nothing else (after the leading
 * tabs `<<-` strips): the parser also ends it at a line that starts with the delimiter (`EOF < a.txt`,
 * `EOF; ls`), and reads the rest as more of the line (bash too, for `EOF)` ending a command substitution). Then bash's body: from the body's start to the
 * next line that is the delimiter, or to the end of the text; `lineEnd` is where the parser's end line
 * ends (what it read there after the delimiter is part of the body). Undefined when both agree.
 */
function bashHeredocBody(node: Node, start: string, body: Node | undefined): { text: string; lineEnd: number } | undefined {
  const end = node.namedChildren.find((child) => child?.type === "heredoc_end");
  if (end === undefined || end === null) return undefined;
  const source = node.tree.rootNode.text;
  const newline = source.indexOf("\n", end.endIndex);
  const lineEnd = newline < 0 ? source.length : newline;
  const after = source.slice(end.endIndex, lineEnd);
  if (after === "") return undefined;
  // `$(sh <<EOF … EOF)`: in a command or process substitution bash ends the here-document at the latest where the substitution ends.
  let limit = source.length;
  for (let up = node.parent; up !== null; up = up.parent) {
    if (up.type !== "command_substitution" && up.type !== "process_substitution") continue;
    if (end.endIndex >= up.endIndex - 1) return undefined;
    limit = up.endIndex - 1;
    break;
  }
  const strip = node.text.startsWith("<<-");
  const delimiter = start.replace(/["'\\]/g, "");
  const from = body?.startIndex ?? end.startIndex;
  let to = limit;
  for (let at = lineEnd; at < limit; ) {
    const next = source.indexOf("\n", at + 1);
    const line = source.slice(at + 1, next < 0 || next > limit ? limit : next);
    if ((strip ? line.replace(/^\t+/, "") : line) === delimiter) {
      to = at + 1;
      break;
    }
    if (next < 0) break;
    at = next;
  }
  const text = source.slice(from, to);
  return { text: strip ? text.replace(/^\t+/gm, "") : text, lineEnd };
}

function unescapeHeredoc(text: string): string {
  return text.replace(/\\([$`\\\n])/g, (_m, ch: string) => (ch === "\n" ? "" : ch));
}

/** The text `echo WORDS` / `printf TEXT` writes, when static: what a following `| sh` reads. */
function pipedText(node: Node, walk: Walk): string | undefined {
  if (node.type !== "command") return undefined;
  const probe: Walk = { commands: [], depth: walk.depth, refusal: undefined };
  const words: string[] = [];
  for (const child of node.namedChildren) {
    if (child === null) continue;
    if (child.type === "command_name" || child.type === "word" || child.type === "raw_string" || child.type === "string" || child.type === "concatenation" || child.type === "number") {
      const value = wordValue(child.type === "command_name" ? (child.namedChildren[0] ?? child) : child, probe);
      if (value.dynamic) return undefined;
      words.push(value.text);
    } else return undefined;
  }
  const name = basename(words[0] ?? "");
  // `:`, `true`, `false`, `cat /dev/null`, `echo -n` write nothing.
  if (name === ":" || name === "true" || name === "false") return "";
  if (name === "cat" && words.length > 1 && words.slice(1).every((word) => word === "/dev/null")) return "";
  if (name === "echo" && words[1] === "-n" && words.slice(2).every((word) => word === "")) return "";
  if (name === "echo" && !/^-/.test(words[1] ?? "")) return `${words.slice(1).join(" ")}\n`;
  // printf FORMAT with no conversion: its backslash escapes (\n, \t, \\) are what it writes.
  if (name === "printf" && words.length === 2 && !(words[1] ?? "").includes("%") && !/\\[^nt\\]/.test(words[1] ?? "")) return (words[1] ?? "").replace(/\\([nt\\])/g, (_m, ch: string) => (ch === "n" ? "\n" : ch === "t" ? "\t" : "\\"));
  if (name === "printf" && (words[1] === "%s\\n" || words[1] === "%s\n") && words.length > 2) return `${words.slice(2).join("\n")}\n`;
  return undefined;
}

function walkStatement(node: Node, walk: Walk, writesFile: boolean, stdin: Stdin | undefined): void {
  if (walk.deferred !== undefined && walk.deferred.start === node.startIndex && walk.deferred.end === node.endIndex) {
    walk.redirects = [...(walk.redirects ?? []), ...walk.deferred.redirects];
    walk.deferred = undefined;
  }
  if (node.type === "command") {
    readCommand(node, walk, writesFile, stdin);
    return;
  }
  if (node.type === "redirected_statement") {
    const trailing = node.namedChildren.flatMap((child) => (child !== null && child.type.endsWith("redirect") ? redirectParts(child).words : []));
    // `> out.txt > out.txt xargs rm x`: only redirections, the command's words inside the last one.
    if (trailing.length > 0 && node.namedChildren.every((child) => child === null || child.type.endsWith("redirect"))) {
      readCommand(node, walk, writesFile, stdin);
      return;
    }
    let writes = writesFile;
    let input = stdin;
    // A here-document's redirection holds the command's later redirections too (`cat <<EOF > f.txt`).
    const redirections = node.namedChildren.flatMap((child) => (child === null || !child.type.endsWith("redirect") ? [] : child.type === "heredoc_redirect" ? [child, ...heredocTail(child).redirects] : [child]));
    /** bash reads a here-document on past the line where the parser ended it: what the parser read on that line is part of it. */
    let swallowed = -1;
    const opened: Redirect[] = [];
    for (const child of redirections) {
      if (child.startIndex < swallowed) continue;
      const one = redirectOf(child, walk);
      if (one !== undefined) opened.push(one);
      if (!isHarmlessRedirect(child)) {
        writes = true;
        noteWritten(child, walk);
      }
      walk.refusal ??= networkRedirect(child);
      noteDashSplit(child, walk);
      const before = input;
      if (child.type === "heredoc_redirect") {
        const doc = heredocInput(child, walk);
        input = doc;
        if (doc.readsOn !== undefined) swallowed = doc.readsOn;
      } else if (child.type === "herestring_redirect") input = herestringInput(child, walk);
      input = fileInput(child, walk) ?? input;
      if (input !== before && input !== undefined) input = { ...input, later: true };
    }
    const statement = node.namedChildren.find((child) => child !== null && !child.type.endsWith("redirect"));
    // tree-sitter hangs `cd sub && cat < F` and `a | b > F` on the list or the pipeline; bash gives them to its last
    // command (`cat`, `b`), which opens them where it runs (in sub, after the cd).
    let target = statement ?? undefined;
    while (target !== undefined && (target.type === "list" || target.type === "pipeline")) target = target.namedChildren.filter((child): child is Node => child !== null && child.type !== "comment").at(-1);
    const deferred = opened.length > 0 && target !== undefined && target !== statement ? (walk.deferred = { start: target.startIndex, end: target.endIndex, redirects: opened }) : undefined;
    // The first command read in the statement opens them (readCommand takes them over); with none (`> F`), the shell alone does.
    const pending = opened.length > 0 && deferred === undefined ? (walk.redirects = [...(walk.redirects ?? []), ...opened]) : undefined;
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === "heredoc_redirect") {
        const tail = heredocTail(child);
        for (const part of tail.own) collectNested(part, walk);
        for (const redirect of tail.redirects) for (const part of redirectParts(redirect).target) collectNested(part, walk);
        // The rest of the line: `| sh` reads what the command writes (a here-document's text, through `cat`), `&& rm x` runs after it.
        const piped: Stdin | undefined = tail.operator === "|" || tail.operator === "|&" ? { text: statement === undefined || statement === null ? undefined : catOutput(statement, input), what: "a pipe" } : undefined;
        for (const rest of tail.statements) walkStatement(rest, walk, writesFile, piped);
      } else if (child.type.endsWith("redirect")) {
        const written = writtenThrough(child, statement, walk);
        for (const part of redirectParts(child).target) collectNested(part, walk, written);
      } else if (trailing.length > 0 && child.type === "command") readCommand(child, walk, writes, input, trailing);
      else {
        // Words after a redirection of a compound command: bash refuses the line; its reading here would be a guess.
        if (trailing.length > 0) walk.unknown ??= "words follow a redirection of a compound command";
        walkStatement(child, walk, writes, input);
      }
    }
    if (pending !== undefined && walk.redirects === pending) {
      (walk.bare ??= []).push({ at: walk.commands.length, redirects: pending });
      walk.redirects = undefined;
    }
    if (deferred !== undefined && walk.deferred === deferred) {
      (walk.bare ??= []).push({ at: walk.commands.length, redirects: deferred.redirects });
      walk.deferred = undefined;
    }
    return;
  }
  if (node.type === "pipeline") {
    let previous: Node | undefined;
    const parts = node.namedChildren.filter((child): child is Node => child !== null);
    for (const [i, child] of parts.entries()) {
      const input: Stdin | undefined = previous === undefined ? stdin : { text: pipedText(previous, walk), what: "a pipe" };
      // Each part but the last runs in a subshell (bash runs the last in one too, zsh in the current shell).
      if (i < parts.length - 1) inSubshell(walk, () => walkStatement(child, walk, writesFile, input));
      else walkStatement(child, walk, writesFile, input);
      previous = child;
    }
    return;
  }
  if (node.type === "variable_assignment" || node.type === "variable_assignments") {
    for (const assignment of node.type === "variable_assignment" ? [node] : node.namedChildren) {
      if (assignment !== null && assignment.type === "variable_assignment") {
        lineEnvironment(assignmentReading(assignment, walk), walk);
        arrayPatterns(assignment, walk);
      } else if (assignment !== null) collectNested(assignment, walk);
    }
    return;
  }
  if (node.type === "subshell") {
    inSubshell(walk, () => walkContainer(node, walk, writesFile, stdin));
    return;
  }
  if (node.type === "for_statement" || node.type === "while_statement") {
    repeating(walk, "loop", () => walkContainer(node, walk, writesFile, stdin));
    return;
  }
  if (CONTAINERS.has(node.type) || node.type === "command_substitution" || node.type === "process_substitution") {
    walkContainer(node, walk, writesFile, stdin);
    return;
  }
  walkRest(node, walk, writesFile, stdin);
}

/** The statements a container holds (a list, a group, a loop, an if, a substitution walked as a statement). */
function walkContainer(node: Node, walk: Walk, writesFile: boolean, stdin: Stdin | undefined): void {
  {
    if (node.type === "for_statement") loopVariable(node, walk);
    // A loop runs its commands again after the ones below them, a job in the background (`a & b`) alongside the ones after it.
    if (node.type === "for_statement" || node.type === "while_statement" || node.children.some((child) => child?.type === "&")) walk.unordered = true;
    // `$(<F)`, `$(> F)`: a redirection alone in a substitution opens its file (bash and zsh substitute F's text for `$(<F)`).
    if (node.type === "command_substitution" || node.type === "process_substitution") bareRedirections(node.namedChildren.filter((child): child is Node => child !== null && child.type.endsWith("redirect")), walk);
    for (const child of node.namedChildren) {
      if (child === null || ((node.type === "command_substitution" || node.type === "process_substitution") && child.type.endsWith("redirect"))) continue;
      // Conditions, loop values and case subjects hold words with substitutions, statements hold commands.
      if (child.type === "word" || child.type === "string" || child.type === "concatenation" || child.type.endsWith("expansion")) collectNested(child, walk);
      else if (child.type === "variable_name" || child.type === "comment") continue;
      // The group's input is its commands' input (`! sh <<EOF`, `{ sh; } <<EOF`, `while ...; do sh; done < f`): any of them may read it.
      else walkStatement(child, walk, writesFile, node.type === "command_substitution" || node.type === "process_substitution" ? undefined : stdin);
    }
  }
}

/** Redirections with no command (`$(<F)`): the files they open, opened by the shell alone where they stand (ShellAnalysis.bare). */
function bareRedirections(redirections: readonly Node[], walk: Walk): void {
  const opened: Redirect[] = [];
  for (const child of redirections) {
    const one = redirectOf(child, walk);
    if (one !== undefined) opened.push(one);
    if (!isHarmlessRedirect(child)) noteWritten(child, walk);
    walk.refusal ??= networkRedirect(child);
    for (const part of redirectParts(child).target) collectNested(part, walk);
  }
  if (opened.length > 0) (walk.bare ??= []).push({ at: walk.commands.length, redirects: opened });
}

/** Any other statement: a function definition, a loop's arithmetic, a test, a simple command. */
function walkRest(node: Node, walk: Walk, writesFile: boolean, stdin: Stdin | undefined): void {
  // A function's body runs where it is called, a C-style loop's body again after itself.
  if (node.type === "function_definition" || node.type === "c_style_for_statement") walk.unordered = true;
  if (node.type === "function_definition") {
    const name = node.childForFieldName("name")?.text;
    if (name !== undefined) (walk.functions ??= new Set()).add(name);
    const body = node.childForFieldName("body");
    if (name !== undefined && body !== null) (walk.bodies ??= new Map()).set(name, body.text);
    if (body !== null) repeating(walk, "function", () => walkStatement(body, walk, writesFile, undefined));
  }
  // `for ((…)); do …; done`: the body's commands run (the loop's arithmetic is read below as the construct's).
  const body = node.type === "c_style_for_statement" ? node.childForFieldName("body") : null;
  if (body !== null) repeating(walk, "loop", () => walkStatement(body, walk, writesFile, stdin));
  // A construct the allow rules cannot vouch for (declaration, test, function, arithmetic, ...).
  if (body === null) collectNested(node, walk);
  else for (const child of node.namedChildren) if (child !== null && child.startIndex !== body.startIndex) collectNested(child, walk);
  // `export PAGER=cmd`, `declare -x GIT_SSH_COMMAND=cmd`: the variable reaches the commands after it.
  if (node.type === "declaration_command") {
    // `declare -n r=GIT_SSH_COMMAND`: r refers to GIT_SSH_COMMAND, and setting r sets it.
    const reference = node.namedChildren.some((child) => child !== null && /^-[A-Za-z]*n/.test(child.text));
    for (const child of node.namedChildren) {
      if (child === null || child.type !== "variable_assignment") continue;
      if (reference) {
        const value = child.childForFieldName("value");
        const target = value === null ? undefined : wordValue(value, { commands: [], depth: walk.depth, refusal: undefined });
        if (target !== undefined && !target.dynamic && /^[A-Za-z_][A-Za-z0-9_]*$/.test(target.text)) (walk.references ??= new Map()).set(child.childForFieldName("name")?.text ?? "", target.text);
        else walk.unknown ??= nameReferenceReason(node.text.split(/\s/)[0] ?? "declare");
        continue;
      }
      lineEnvironment(assignmentReading(child, { ...walk, commands: [] }), walk);
      // `declare -a x=(secrets/*)`, `local x=(…)`: the array's patterns are expanded as a bare assignment's are.
      arrayPatterns(child, walk);
    }
  }
  // Array subscripts in names and arithmetic operands are evaluated by bash: `declare 'a[$(cmd)]=1'`, `[[ -v 'a[$(cmd)]' ]]`.
  for (const text of quotedTexts(node)) readSubscripts(text, node.type, walk);
  const words = [node.text];
  addCommand(walk, {
    words,
    dynamic: true,
    assignments: false,
    writesFile,
    construct: true,
    refusals: [{ reason: `the command is a shell construct (${node.type.replace(/_/g, " ")}) no allow pattern reads`, token: "" }],
    forms: [words],
    unknown: undefined,
  });
}

/** The static texts of quoted strings and words inside a construct. */
function quotedTexts(node: Node): string[] {
  const out: string[] = [];
  const visit = (current: Node) => {
    if (current.type === "raw_string") out.push(current.text.slice(1, -1));
    else if (current.type === "string" || current.type === "word") out.push(current.text);
    else if (current.type === "concatenation") {
      // `'a[$(tar -I '\''rm x'\'' f)]'`: quoted pieces and escaped quotes are one text to bash.
      const parts = current.children.filter((child): child is Node => child !== null);
      if (parts.every((part) => part.type === "raw_string" || part.type === "word")) out.push(parts.map((part) => (part.type === "raw_string" ? part.text.slice(1, -1) : unescapeBare(part.text))).join(""));
    }
    for (const child of current.namedChildren) if (child !== null) visit(child);
  };
  visit(node);
  return out;
}

function parseInto(source: string, walk: Walk): string | undefined {
  const tree = shellParser().parse(source);
  if (tree === null) return "the parser gave no tree";
  try {
    const root = tree.rootNode;
    if (root.hasError) return "it is not valid shell syntax";
    walkStatements(root, walk);
    // Only a variable the line sets to a value known at run time makes the arithmetic texts matter (arithmeticValues).
    if (walk.arithmetic !== undefined && walk.values !== undefined && [...walk.values.values()].includes(undefined)) arithmeticTexts(root, walk);
    return undefined;
  } catch (error) {
    if (error instanceof Unreadable) return error.message;
    throw error;
  } finally {
    tree.delete();
  }
}

/** A backslash before a blank, somewhere in the line (bashLexerReading reads those that start a word). */
const ESCAPED_BLANK = /\\[ \t]/;

/**
 * The source as bash's lexer reads it where tree-sitter reads it otherwise: a backslash-newline is
 * removed outside single quotes and comments (`git pu\⏎sh` is `git push`), a carriage return is
 * a word character, not white space (`\␍␊` escapes the CR and the LF ends the command), and a line
 * that starts with a backslash starts a new command (`ls⏎\rm x`; the parser reads `\rm` as a word
 * of `ls`). Carriage returns become U+00A0, which the parser also reads as a word character; a
 * blank is put before such a backslash. An escaped blank (`\ `, `\⇥`) is a character of a word to
 * bash; the parser reads it as white space, and drops it, where it starts a word (`\ git`,
 * `git \ push`, `pa \  x`), follows a quote or an expansion (`'a'\ b`, `${x}\ b`), or is a tab: there
 * it is spelled quoted (`' '`), which bash reads alike. Undefined when there is nothing to change.
 */
export function bashLexerReading(source: string): string | undefined {
  if (!source.includes("\\\n") && !source.includes("\r") && !source.includes("\n\\") && !DESCRIPTOR_ZERO.test(source) && !NAMED_DESCRIPTOR.test(source) && !ESCAPED_BLANK.test(source)) return undefined;
  let out = "";
  let quote: "'" | '"' | "$'" | undefined;
  let comment = false;
  let wordStart = true;
  // `"$(git 0< f push)"`: a command substitution inside double quotes is read as a command line; the
  // parentheses open in it, and those of the substitutions that enclose it, are kept here.
  let depth = 0;
  const enclosing: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch === "\r") {
      out += "\u00a0";
      wordStart = false;
      continue;
    }
    if (comment) {
      out += ch;
      if (ch === "\n") {
        comment = false;
        wordStart = true;
        if (source[i + 1] === "\\") out += " "; // a line that starts with a backslash, as below
      }
      continue;
    }
    if (quote === "'") {
      out += ch;
      if (ch === "'") quote = undefined;
      continue;
    }
    if (ch === "\\") {
      const next = source[i + 1];
      if (next === "\n" && quote !== "$'") {
        i += 1; // line joining: both characters vanish
        continue;
      }
      if (next === "\r") {
        out += "\\\u00a0";
        i += 1;
        wordStart = false;
        continue;
      }
      if ((next === " " || next === "\t") && (wordStart || next === "\t" || !/[\w./=:,+%@-]$/.test(out) || /\$\w+$/.test(out)) && quote === undefined) {
        out += `'${next}'`;
        i += 1;
        wordStart = false;
        continue;
      }
      out += ch + (next ?? "");
      i += 1;
      wordStart = false;
      continue;
    }
    if (quote === '"') {
      if (ch === "$" && source[i + 1] === "(" && source[i + 2] !== "(") {
        out += "$(";
        i += 1;
        enclosing.push(depth);
        depth = 0;
        quote = undefined;
        wordStart = true;
        continue;
      }
      out += ch;
      if (ch === '"') quote = undefined;
      continue;
    }
    if (quote === "$'") {
      out += ch;
      if (ch === "'") quote = undefined;
      continue;
    }
    if (ch === "#" && wordStart) {
      comment = true;
      out += ch;
      continue;
    }
    // `git 0</dev/null push`: bash reads `0<` (and `0>`, `0<<<`, `0<&-`, ...) as a redirection of
    // descriptor 0; the parser reads a lone `0` as a word of the command (`git 0 push`). A blank for
    // the `0` keeps the redirection (`<` is descriptor 0's) and the offsets.
    if (ch === "0" && wordStart && (source[i + 1] === "<" || source[i + 1] === ">")) {
      out += " ";
      continue;
    }
    // `git {fd}>out.txt push`: bash reads `{NAME}` right before `<` or `>` as the redirection's (a
    // descriptor it allocates and names), the parser as a word of the command (`git {fd} push`).
    // Blanks for it keep the redirection and the offsets.
    if (ch === "{" && wordStart) {
      const named = NAMED_DESCRIPTOR_AT.exec(source.slice(i, i + 260));
      if (named !== null) {
        out += " ".repeat(named[0].length);
        i += named[0].length - 1;
        continue;
      }
    }
    if (ch === "(") depth += 1;
    else if (ch === ")" && depth === 0 && enclosing.length > 0) {
      // The end of a command substitution inside double quotes: back in the string.
      out += ch;
      depth = enclosing.pop()!;
      quote = '"';
      wordStart = false;
      continue;
    } else if (ch === ")") depth = Math.max(0, depth - 1);
    if (ch === "'") quote = source[i - 1] === "$" ? "$'" : "'";
    else if (ch === '"') quote = '"';
    out += ch;
    // A line that starts with an escaped character (`\rm -rf x`, `\npm`) is a new command to bash;
    // the parser joins it to the line before as one more word. A blank before it changes nothing
    // to bash and keeps the two apart for the parser.
    if (ch === "\n" && source[i + 1] === "\\") out += " ";
    wordStart = /[\s;&|()<>]/.test(ch);
  }
  return out;
}

/**
 * `2>&- push`, `<&- push`: a redirection that closes a descriptor is complete, and the next word is
 * the command's; the parser reads that word as the redirection's destination (and a second word as an
 * error). Spelled as a duplication (`2>&1`, `<&0`: same length, no file opened, nothing else changed)
 * the same words run and the parser reads them as bash does.
 * Undefined when the line has no such redirection outside quotes and comments.
 */
function closingReading(source: string): string | undefined {
  if (!source.includes("&-")) return undefined;
  let out = "";
  let quote: "'" | '"' | undefined;
  let comment = false;
  let changed = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (comment) {
      if (ch === "\n") comment = false;
    } else if (quote === "'") {
      if (ch === "'") quote = undefined;
    } else if (ch === "\\") {
      out += ch + (source[i + 1] ?? "");
      i += 1;
      continue;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "#" && (i === 0 || /[\s;&|()]/.test(source[i - 1]!))) comment = true;
    else if ((ch === ">" || ch === "<") && source[i + 1] === "&" && source[i + 2] === "-" && (i + 3 >= source.length || /[\s;&|()<>]/.test(source[i + 3]!))) {
      out += `${ch}&${ch === ">" ? "1" : "0"}`;
      i += 2;
      changed = true;
      continue;
    }
    out += ch;
  }
  return changed ? out : undefined;
}

/** A `0` that starts a word right before `<` or `>`: a redirection of descriptor 0 to bash, a word to the parser. */
const DESCRIPTOR_ZERO = /(?:^|[\s;&|(){}])0[<>]/;
/** `{NAME}` that starts a word right before `<` or `>`: a named descriptor's redirection to bash, a word to the parser. */
const NAMED_DESCRIPTOR = /(?:^|[\s;&|(){}])\{[A-Za-z_][A-Za-z0-9_]*\}[<>]/;
const NAMED_DESCRIPTOR_AT = /^\{[A-Za-z_][A-Za-z0-9_]*\}(?=[<>])/;

/** Why no allow covers a line, from its characters alone (before parsing). */
function lexicalRefusal(source: string): string | undefined {
  if (source.includes("\\\r\n")) return "the command has a line continuation (backslash before CR LF)";
  if (source.includes("\\\n")) return "the command has a line continuation (backslash before LF)";
  if (source.includes("\r")) return "the command has a carriage return (bash reads it as part of a word)";
  return undefined;
}

const MAX_COMMAND_CHARS = 16 * 1024;
/** Analyses by line, kept while this machine's names stay the same (a fetcher's places include the hosts that reach this machine). */
const cache = new MachineBoundReadings<ShellAnalysis>(512);

/**
 * `{rm,-rf,/}` is one word to bash (brace expansion makes it `rm -rf /`) but the parser reads `{`
 * as a group: this reading escapes a `{` that starts a word and is not followed by white space,
 * so the parser sees the word (undefined when there is none).
 */
function braceWordReading(source: string): string | undefined {
  const out = source.replace(/(^|[\s;&|(])\{(?=[^\s}])/g, `$1${BRACE_MARK}`);
  return out === source ? undefined : out;
}

/** The source as sh (dash) reads `&>`: `&` then `>`. */
function dashReading(source: string, splits: readonly number[]): string {
  let out = "";
  let from = 0;
  for (const at of [...splits].sort((a, b) => a - b)) {
    out += `${source.slice(from, at)}&\n`;
    from = at + 1;
  }
  return out + source.slice(from);
}

/** Adds the commands of another reading of the line; names why it is unknown when that reading cannot be parsed. */
function addReading(walk: Walk, reading: string, what: string): string | undefined {
  const other: Walk = { commands: [], depth: 0, refusal: undefined };
  const problem = parseInto(reading, other);
  if (problem !== undefined) return `${what} reads the line differently and that reading cannot be parsed (${problem})`;
  for (const command of other.commands) addCommand(walk, command);
  return other.commands.find((command) => command.unknown !== undefined)?.unknown;
}

/** `! for ...`, `! if ...`: the parser reads the keyword as a program; the negation changes no command that runs. */
function negationReading(source: string): string | undefined {
  const out = source.replace(/(^|[;&|\n(]\s*)!\s+(?=(?:for|if|while|until|case|select|function)\b|[{(]|\[\[)/g, "$1");
  return out === source ? undefined : out;
}

/** `coproc NAME { ...; }`, `coproc ( ... )`: the parser misreads a coprocess's compound command; its commands run as written. */
function coprocReading(source: string): string | undefined {
  const out = source.replace(/(^|[;&|\n(]\s*)coproc\s+(?:[A-Za-z_][A-Za-z0-9_]*\s+)?(?=[{(])/g, "$1");
  return out === source ? undefined : out;
}

/**
 * Reads one command line (the whole input or a nested script) into `walk`: the parser's reading,
 * then every other reading where bash reads the text otherwise (continuations and carriage
 * returns, words that start with `{`, `!` before a compound command). A reading that differs is
 * added (deny rules see its commands too); when the parser cannot read the text, a reading that
 * parses takes its place and the line stays one a deny cannot be sure of. Returns the problem
 * when no reading parses.
 */
function readLine(text: string, walk: Walk): string | undefined {
  const source = closingReading(text) ?? text;
  const lexical = bashLexerReading(source);
  const braced = braceWordReading(lexical ?? source);
  const negation = negationReading(braced ?? lexical ?? source);
  const coproc = coprocReading(negation ?? braced ?? lexical ?? source);
  const combined = coproc ?? negation ?? braced ?? lexical;
  const problem = parseInto(source, walk);
  if (problem !== undefined) {
    if (combined === undefined) return problem;
    const retry: Walk = { ...walk, commands: [] };
    if (parseInto(combined, retry) !== undefined) return problem;
    for (const command of retry.commands) addCommand(walk, command);
    walk.refusal ??= retry.refusal ?? "the parser reads the line only once it is rewritten as bash reads it";
    walk.unknown ??= retry.unknown ?? "the parser reads the line only once it is rewritten as bash reads it";
    walk.functions = retry.functions;
    return undefined;
  }
  walk.refusal ??= lexicalRefusal(source);
  for (const [reading, what] of [
    [lexical, "bash's lexer"],
    [negationReading(source), "bash (a negated compound command)"],
    [coprocReading(source), "bash (a coprocess's compound command)"],
  ] as const) {
    if (reading === undefined || reading === source) continue;
    const other: Walk = { ...walk, commands: [], dashSplits: undefined };
    const otherProblem = parseInto(reading, other);
    if (otherProblem !== undefined) walk.unknown ??= `${what} reads the line differently and that reading cannot be parsed (${otherProblem})`;
    else for (const command of other.commands) addCommand(walk, command);
    walk.unknown ??= other.unknown;
    walk.refusal ??= `${what} reads the line differently from the parser`;
  }
  return undefined;
}

/** A word as a shell reads it back: single-quoted. */
const quoteShellWord = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/** How many times an alias's value is itself read for aliases (`alias y=x x='rm …'`: y is x, x is rm). */
const MAX_ALIAS_ROUNDS = 8;
/** How many commands one command's aliases may expand into (`alias -g A='A A'` doubles them each round). */
const MAX_ALIAS_COMMANDS = 64;
/** Set while an alias's expansion is read: names it rebinds again are not expanded again (the line asks instead). */
let readingAlias = false;

/** Names bound by alias: plain ones (the command word), zsh's global ones (any word) and suffix ones (a command word ending `.SUFFIX`). */
interface Aliases {
  readonly plain: Map<string, string[]>;
  readonly global: Map<string, string[]>;
  readonly suffix: Map<string, string[]>;
}

const bind = (map: Map<string, string[]>, name: string, value: string) => map.set(name, [...(map.get(name) ?? []), value]);

/** `alias [-g|-s|-r|+g …] NAME=VALUE …` (bash, zsh): each binding by its kind. */
function readAliasCommand(args: readonly string[], aliases: Aliases): void {
  let kind: "plain" | "global" | "suffix" = "plain";
  let options = true;
  for (const arg of args) {
    if (options && arg === "--") {
      options = false;
      continue;
    }
    if (options && /^[-+][A-Za-z]+$/.test(arg)) {
      if (arg.includes("g")) kind = "global";
      else if (arg.includes("s")) kind = "suffix";
      continue;
    }
    options = false;
    const eq = arg.indexOf("=");
    if (eq > 0) bind(aliases[kind], arg.slice(0, eq), arg.slice(eq + 1));
  }
}

/**
 * The commands a command runs once aliases are expanded as bash and zsh expand them: a plain alias
 * at the command word (and, when its value ends in a blank, at the word after it: `alias s='sudo '`),
 * a global alias (zsh `alias -g`) at any word, a suffix alias (zsh `alias -s txt=CMD`) at a command
 * word ending `.txt`; each value is read again for aliases (`alias y=x x='rm …'`).
 */
function expandAliases(command: SimpleCommand, aliases: Aliases, walk: Walk): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let pending: (readonly string[])[] = [command.words];
  const seen = new Set<string>([command.words.join("\u0000")]);
  for (let round = 0; round < MAX_ALIAS_ROUNDS && pending.length > 0; round++) {
    const next: (readonly string[])[] = [];
    for (const words of pending) {
      if (out.length > MAX_ALIAS_COMMANDS) break;
      for (const text of aliasTexts(words, aliases)) {
        if (out.length > MAX_ALIAS_COMMANDS) {
          walk.unknown ??= `aliases expand into more than ${MAX_ALIAS_COMMANDS} commands`;
          break;
        }
        const outer = readingAlias;
        readingAlias = true;
        let inner: ShellAnalysis;
        try {
          inner = analyzeShell(text);
        } finally {
          readingAlias = outer;
        }
        if (!inner.ok) {
          walk.unknown ??= `an alias cannot be read (${inner.reason})`;
          continue;
        }
        // What the alias's own line leaves untold (`alias ls='echo CMD > s.sh; bash s.sh'`) is untold of this line.
        walk.unknown ??= inner.unknown;
        for (const added of inner.commands) {
          const key = added.words.join("\u0000");
          if (seen.has(key)) continue;
          seen.add(key);
          out.push(added);
          next.push(added.words);
        }
      }
    }
    pending = next;
  }
  if (pending.length > 0) walk.unknown ??= `aliases are expanded more than ${MAX_ALIAS_ROUNDS} times`;
  return out;
}

/** The command lines `words` reads as after one expansion of the aliases that apply to it. */
function aliasTexts(words: readonly string[], aliases: Aliases): string[] {
  const texts: string[] = [];
  const [program, ...rest] = words;
  if (program === undefined) return texts;
  const quoted = (from: number) => words.slice(from).map(quoteShellWord).join(" ");
  // A plain alias at the command word; a value ending in a blank makes the next word a command word too.
  for (const value of new Set(aliases.plain.get(program) ?? [])) {
    texts.push(`${value} ${quoted(1)}`);
    if (/[ \t]$/.test(value) && rest[0] !== undefined) for (const second of new Set(aliases.plain.get(rest[0]) ?? [])) texts.push(`${value}${second} ${quoted(2)}`);
  }
  // zsh's suffix alias: `a.txt` runs as `VALUE a.txt`.
  const dot = program.lastIndexOf(".");
  if (dot >= 0) for (const value of new Set(aliases.suffix.get(program.slice(dot + 1)) ?? [])) texts.push(`${value} ${quoted(0)}`);
  // zsh's global alias: the word is replaced by the value's text wherever it stands (`ls G` with `alias -g G='; rm x'`).
  words.forEach((word, i) => {
    for (const value of new Set(aliases.global.get(word) ?? [])) texts.push(`${words.slice(0, i).map(quoteShellWord).join(" ")} ${value} ${quoted(i + 1)}`);
  });
  return texts;
}

/**
 * `hash -p PATH NAME` (bash) and `hash NAME=PATH` (zsh) make NAME run PATH, and `alias NAME=VALUE`
 * (with expand_aliases in bash; always in zsh) makes NAME read as VALUE, for the rest of the line:
 * every command named NAME gets the rebound reading too (a deny rule tries both), and no allow covers
 * a line that rebinds a name.
 */
function rebindNames(walk: Walk): void {
  const hashed = new Map<string, string>();
  // Every value a name is bound to: the line may be read more than one way (another spelling of a script, bash's lexer), each binding its value.
  const aliases: Aliases = { plain: new Map(), global: new Map(), suffix: new Map() };
  for (const command of walk.commands) {
    const [program, ...args] = command.words;
    if (program === "hash") {
      const p = args.indexOf("-p");
      if (p >= 0 && args[p + 1] !== undefined) for (const name of args.slice(p + 2)) if (!name.startsWith("-")) hashed.set(name, args[p + 1]!);
      for (const arg of args) if (!arg.startsWith("-") && arg.indexOf("=") > 0) hashed.set(arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1));
    } else if (program === "alias") readAliasCommand(args, aliases);
  }
  if (hashed.size === 0 && aliases.plain.size + aliases.global.size + aliases.suffix.size === 0) return;
  walk.refusal ??= "the command rebinds a command name (hash or alias), so a name may run another program";
  // An alias whose expansion defines aliases again (`alias -g A='alias -g A=…'`): what it finally runs is not read.
  if (readingAlias) {
    walk.unknown ??= "an alias's expansion rebinds a command name again";
    return;
  }
  const added: SimpleCommand[] = [];
  walk.commands = walk.commands.map((command) => {
    const [program, ...rest] = command.words;
    if (program === undefined) return command;
    // The alias and hash commands themselves run nothing their words name.
    if (program !== "alias" && program !== "hash") added.push(...expandAliases(command, aliases, walk));
    const path = hashed.get(program);
    if (path === undefined) return command;
    return { ...command, forms: [...command.forms, [path, ...rest], [basename(path), ...rest]] };
  });
  for (const command of added) addCommand(walk, command);
  // An alias's command is added after the line's own: where it runs is not where it stands in walk.commands.
  if (added.length > 0) walk.unordered = true;
}

function analyze(source: string): ShellAnalysis {
  if (source.length > MAX_COMMAND_CHARS) return { ok: false, reason: `longer than ${MAX_COMMAND_CHARS} characters` };
  const walk: Walk = { commands: [], depth: 0, refusal: undefined, values: new Map(), arithmetic: [], written: new Set(), fedScripts: new Set(), references: new Map(), spans: new Map() };
  const problem = readLine(source, walk);
  if (problem !== undefined) return { ok: false, reason: problem };
  rebindNames(walk);
  arithmeticValues(walk);
  scriptsWritten(walk);
  let unknown = walk.unknown ?? walk.commands.find((command) => command.unknown !== undefined)?.unknown;
  let refusal = walk.refusal;
  // `$"..."` is a translated string to bash and `$` then a quoted string to sh (dash).
  if (/\$"/.test(source)) refusal ??= 'the command has $"…", which bash reads as a translated string and sh (dash) as $ followed by a string';
  if (walk.dashSplits !== undefined) {
    const known = new Set(walk.commands.map((command) => command.words.join("\u0000")));
    const before = walk.commands.length;
    unknown ??= addReading(walk, dashReading(source, walk.dashSplits), "sh (dash)");
    // `cmd &>/dev/null` runs the same command either way; `cmd &>f rm x` does not.
    if (walk.commands.slice(before).some((command) => !known.has(command.words.join("\u0000")))) refusal ??= DASH_SPLIT;
  }
  return { ok: true, commands: walk.commands, refusal, unknown, ...(walk.bare === undefined ? {} : { bare: walk.bare }), ...(walk.patterns === undefined ? {} : { patterns: walk.patterns }) };
}

/** Splits a command line into the simple commands a shell would run; `ok: false` names why it could not. */
export function analyzeShell(source: string): ShellAnalysis {
  const cached = cache.get(source);
  if (cached !== undefined) return cached;
  let result: ShellAnalysis;
  try {
    result = analyze(source);
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    result = { ok: false, reason: error.message };
  }
  cache.set(source, result);
  return result;
}
