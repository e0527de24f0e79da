import { foldCase, normalizeString } from "../normalize.js";
import { analyzeShell, basename, type SimpleCommand } from "./shell.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * `command` matcher: a shell command line is split into simple commands (see shell.ts).
 * - allow: every simple command must match an allow pattern, be free of run-time expansions,
 *   `NAME=value` prefixes and file redirections; anything else is not vouched for.
 * - deny/ask: any simple command matching — as written, with its program's directory dropped
 *   (`/bin/rm`), or with wrappers peeled off (`sudo`, `env`, `nohup`, `timeout 5`, `xargs`, ...) — matches.
 * - a command line that cannot be parsed is UNKNOWN: the policy asks.
 *
 * Patterns (Claude Code's Bash rules): `npm run test` (exactly these words), `npm run test:*` (these
 * words, then anything: `npm run test -- --watch`, never `npm run testevil`), `git * main` (`*` spans
 * any characters, whole command anchored).
 */
interface CommandPattern {
  readonly source: string;
  matches(words: readonly string[]): boolean;
}

function splitWords(text: string): string[] {
  const normal = normalizeString(text);
  return normal === "" ? [] : normal.split(" ");
}

export function compileCommandPattern(pattern: string, caseSensitive: boolean): CommandPattern {
  const fold = (text: string) => (caseSensitive ? text : foldCase(text));
  const trimmed = pattern.trim();
  if (trimmed.endsWith(":*")) {
    const prefix = splitWords(trimmed.slice(0, -2)).map(fold);
    return {
      source: pattern,
      matches: (words) => words.length >= prefix.length && prefix.every((word, i) => fold(words[i] ?? "") === word),
    };
  }
  if (trimmed.includes("*")) {
    const body = splitWords(trimmed)
      .join(" ")
      .split("*")
      .map((part) => part.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"))
      .join("[\\s\\S]*");
    const regex = new RegExp(`^${body}$`, caseSensitive ? "" : "i");
    return { source: pattern, matches: (words) => regex.test(words.join(" ")) };
  }
  const exact = splitWords(trimmed).map(fold);
  return {
    source: pattern,
    matches: (words) => words.length === exact.length && exact.every((word, i) => fold(words[i] ?? "") === word),
  };
}

/** Option letters of wrappers that take a value (`sudo -u root`, `timeout -s KILL`, `xargs -I {}`). */
const WRAPPERS: Readonly<Record<string, { valued: RegExp; positional?: number }>> = {
  sudo: { valued: /^-[ugpChDrtTU]$/ },
  doas: { valued: /^-[uC]$/ },
  env: { valued: /^-[uSC]$/ },
  command: { valued: /^$/ },
  builtin: { valued: /^$/ },
  exec: { valued: /^-a$/ },
  nohup: { valued: /^$/ },
  time: { valued: /^-[fo]$/ },
  nice: { valued: /^-n$/ },
  ionice: { valued: /^-[cnp]$/ },
  stdbuf: { valued: /^-[ioe]$/ },
  timeout: { valued: /^-[sk]$/, positional: 1 },
  xargs: { valued: /^-[IiLlnPsdEa]$/ },
  chronic: { valued: /^$/ },
  unbuffer: { valued: /^$/ },
};

/** The command with one wrapper peeled off, or undefined when the first word is no wrapper. */
function unwrap(words: readonly string[]): string[] | undefined {
  const name = basename(words[0] ?? "");
  const wrapper = WRAPPERS[name];
  if (wrapper === undefined) return undefined;
  let i = 1;
  while (i < words.length) {
    const word = words[i] ?? "";
    if (word === "--") {
      i += 1;
      break;
    }
    if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i += 1;
    else if (word.startsWith("-") && word.length > 1) i += wrapper.valued.test(word) ? 2 : 1;
    else break;
  }
  i += wrapper.positional ?? 0;
  return i < words.length ? words.slice(i) : undefined;
}

/** Every spelling of one simple command a deny pattern is tried against. */
function denyForms(command: SimpleCommand): string[][] {
  const forms: string[][] = [];
  let current: string[] | undefined = [...command.words];
  for (let guard = 0; current !== undefined && guard < 8; guard += 1) {
    forms.push(current);
    const first = current[0] ?? "";
    const base = basename(first);
    if (base !== first) forms.push([base, ...current.slice(1)]);
    current = unwrap(current);
  }
  return forms;
}

function allowable(command: SimpleCommand): boolean {
  return !command.dynamic && !command.assignments && !command.writesFile && !command.construct;
}

/** Verdict of one command line against compiled patterns (any pattern may match). */
export function judgeCommand(text: string, patterns: readonly CommandPattern[], restrictive: boolean): Verdict {
  const analysis = analyzeShell(text);
  if (!analysis.ok) return restrictive ? UNKNOWN : NO;
  const { commands } = analysis;
  if (restrictive) {
    for (const command of commands) {
      for (const form of denyForms(command)) {
        if (patterns.some((pattern) => pattern.matches(form))) return YES;
      }
    }
    return NO;
  }
  if (commands.length === 0) return NO;
  return commands.every((command) => allowable(command) && patterns.some((pattern) => pattern.matches(command.words))) ? YES : NO;
}

/** For explanations: how a command line was split. */
export function describeCommand(text: string): string {
  const analysis = analyzeShell(text);
  if (!analysis.ok) return `unparseable (${analysis.reason})`;
  return analysis.commands.map((command) => JSON.stringify(command.words.join(" "))).join(", ");
}


/**
 * The texts a plain string matcher (`equals`, `prefix`, `glob`, `regex`) on a command field
 * compares, each simple command's words joined by single spaces: for a deny or ask (`restrictive`)
 * every spelling of every simple command (program directory dropped, wrappers peeled off); for an
 * allow each simple command as written, or undefined when one of them is not fully static (an
 * expansion, an assignment, a file redirection, a construct). Undefined when the line cannot be parsed.
 */
export function commandTexts(text: string, restrictive: boolean): string[] | undefined {
  const analysis = analyzeShell(text);
  if (!analysis.ok) return undefined;
  if (restrictive) return analysis.commands.flatMap((command) => denyForms(command).map((form) => form.join(" ")));
  if (!analysis.commands.every(allowable)) return undefined;
  return analysis.commands.map((command) => command.words.join(" "));
}
