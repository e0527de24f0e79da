import { posix } from "node:path";
import type { SandboxState } from "./state.js";

/** Commands that only read: a command line made only of these (and no redirection) may run in parallel. */
export const READ_ONLY_COMMANDS = new Set(["ls", "cat", "grep", "wc", "echo"]);
export const SHELL_COMMANDS = ["echo", "ls", "cat", "grep", "wc", "rm", "touch"] as const;

const HOME = "/home/agent";

export interface ShellResult {
  stdout: string;
  exitCode: number;
}

interface Stage {
  argv: string[];
  /** `>` or `>>` target. */
  redirect?: { path: string; append: boolean };
}

/** Splits a command line into `;`/`&&`-separated pipelines of stages. Quotes group words; nothing expands. */
export function parseCommandLine(line: string): { pipeline: Stage[]; op: ";" | "&&" }[] {
  const tokens: string[] = [];
  let current = "";
  let quote: "'" | '"' | undefined;
  let inWord = false;
  const flush = () => {
    if (inWord) tokens.push(current);
    current = "";
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? "";
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) flush();
    else if (ch === ";" || ch === "|") {
      flush();
      tokens.push(ch);
    } else if (ch === "&" && line[i + 1] === "&") {
      flush();
      tokens.push("&&");
      i++;
    } else if (ch === ">") {
      flush();
      if (line[i + 1] === ">") {
        tokens.push(">>");
        i++;
      } else tokens.push(">");
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`bash: unexpected end of input: unmatched ${quote}`);
  flush();
  const commands: { pipeline: Stage[]; op: ";" | "&&" }[] = [];
  let pipeline: Stage[] = [];
  let stage: Stage = { argv: [] };
  let op: ";" | "&&" = ";";
  const endStage = () => {
    if (stage.argv.length === 0) throw new Error("bash: syntax error: empty command");
    pipeline.push(stage);
    stage = { argv: [] };
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? "";
    if (token === ";" || token === "&&") {
      if (stage.argv.length > 0 || pipeline.length > 0) {
        endStage();
        commands.push({ pipeline, op });
      }
      pipeline = [];
      op = token;
    } else if (token === "|") endStage();
    else if (token === ">" || token === ">>") {
      const target = tokens[++i];
      if (target === undefined || [";", "&&", "|", ">", ">>"].includes(target)) throw new Error("bash: syntax error near redirection");
      stage.redirect = { path: target, append: token === ">>" };
    } else stage.argv.push(token);
  }
  if (stage.argv.length > 0 || pipeline.length > 0) {
    endStage();
    commands.push({ pipeline, op });
  }
  return commands;
}

/** Whether a command line only reads (every command read-only, no redirection); unparsable lines are not. */
export function isReadOnlyCommand(line: string): boolean {
  try {
    const commands = parseCommandLine(line);
    return (
      commands.length > 0 &&
      commands.every(({ pipeline }) => pipeline.every((s) => !s.redirect && READ_ONLY_COMMANDS.has(s.argv[0] ?? "")))
    );
  } catch {
    return false;
  }
}

/** A tiny shell over the sandbox's virtual filesystem. It never spawns a process. */
export class VirtualShell {
  constructor(private readonly fs: Pick<SandboxState, "files" | "dirs">) {}

  run(line: string): ShellResult {
    let commands;
    try {
      commands = parseCommandLine(line);
    } catch (error) {
      return { stdout: (error as Error).message, exitCode: 2 };
    }
    const output: string[] = [];
    let exitCode = 0;
    for (const { pipeline, op } of commands) {
      if (op === "&&" && exitCode !== 0) continue;
      let stdin: string | undefined;
      for (const stage of pipeline) {
        const result = this.#exec(stage.argv, stdin);
        exitCode = result.exitCode;
        stdin = result.stdout;
        if (stage.redirect) {
          const path = this.#abs(stage.redirect.path);
          this.fs.files[path] = (stage.redirect.append ? this.fs.files[path] ?? "" : "") + result.stdout;
          stdin = "";
        }
      }
      if (stdin) output.push(stdin);
    }
    return { stdout: output.join(""), exitCode };
  }

  #abs(path: string): string {
    return posix.resolve(HOME, path);
  }

  #isDir(path: string): boolean {
    const prefix = path === "/" ? "/" : `${path}/`;
    return path === HOME || this.fs.dirs.includes(path) || Object.keys(this.fs.files).some((f) => f.startsWith(prefix));
  }

  #exec(argv: string[], stdin: string | undefined): ShellResult {
    const [command = "", ...rest] = argv;
    const flags = rest.filter((a) => /^-[a-zA-Z]+$/.test(a)).join("").replaceAll("-", "");
    const args = rest.filter((a) => !/^-[a-zA-Z]+$/.test(a));
    switch (command) {
      case "echo":
        return { stdout: `${rest.join(" ")}\n`, exitCode: 0 };
      case "ls":
        return this.#ls(args.length ? args : ["."]);
      case "cat":
        return this.#readAll(args, stdin, (text) => text);
      case "grep": {
        const [pattern, ...files] = args;
        if (pattern === undefined) return { stdout: "grep: usage: grep [-icv] PATTERN [FILE...]\n", exitCode: 2 };
        const ignoreCase = flags.includes("i");
        const needle = ignoreCase ? pattern.toLowerCase() : pattern;
        // A fixed string, not a regex: the pattern may come from a model.
        const hit = (l: string) => (ignoreCase ? l.toLowerCase() : l).includes(needle) !== flags.includes("v");
        let matched = 0;
        const result = this.#readAll(files, stdin, (text) => {
          const lines = splitLines(text).filter(hit);
          matched += lines.length;
          return flags.includes("c") ? `${lines.length}\n` : lines.map((l) => `${l}\n`).join("");
        });
        return result.exitCode !== 0 ? result : { stdout: result.stdout, exitCode: matched > 0 ? 0 : 1 };
      }
      case "wc":
        return this.#readAll(args, stdin, (text) => {
          const lines = splitLines(text).length;
          if (flags.includes("l")) return `${lines}\n`;
          return `${lines} ${text.split(/\s+/).filter(Boolean).length} ${Buffer.byteLength(text)}\n`;
        });
      case "touch":
        for (const arg of args) this.fs.files[this.#abs(arg)] ??= "";
        return { stdout: "", exitCode: 0 };
      case "rm":
        return this.#rm(args, flags.includes("r") || flags.includes("R"), flags.includes("f"));
      default:
        return { stdout: `bash: ${command}: command not found (sandbox commands: ${SHELL_COMMANDS.join(", ")})\n`, exitCode: 127 };
    }
  }

  #ls(paths: string[]): ShellResult {
    const out: string[] = [];
    let exitCode = 0;
    for (const arg of paths) {
      const path = this.#abs(arg);
      if (this.fs.files[path] !== undefined) {
        out.push(arg);
        continue;
      }
      if (!this.#isDir(path)) {
        out.push(`ls: cannot access '${arg}': No such file or directory`);
        exitCode = 2;
        continue;
      }
      const prefix = path === "/" ? "/" : `${path}/`;
      const children = new Set<string>();
      for (const entry of [...Object.keys(this.fs.files), ...this.fs.dirs]) {
        if (entry.startsWith(prefix) && entry !== path) children.add(entry.slice(prefix.length).split("/")[0] ?? "");
      }
      out.push(...[...children].filter(Boolean).sort());
    }
    return { stdout: out.map((l) => `${l}\n`).join(""), exitCode };
  }

  #readAll(files: string[], stdin: string | undefined, transform: (text: string) => string): ShellResult {
    if (files.length === 0) return { stdout: transform(stdin ?? ""), exitCode: 0 };
    const out: string[] = [];
    let exitCode = 0;
    for (const file of files) {
      const content = this.fs.files[this.#abs(file)];
      if (content === undefined) {
        out.push(`${file}: No such file or directory\n`);
        exitCode = 1;
      } else out.push(transform(content));
    }
    return { stdout: out.join(""), exitCode };
  }

  #rm(args: string[], recursive: boolean, force: boolean): ShellResult {
    const out: string[] = [];
    let exitCode = 0;
    for (const arg of args) {
      const path = this.#abs(arg);
      if (this.fs.files[path] !== undefined) {
        delete this.fs.files[path];
      } else if (this.#isDir(path)) {
        if (!recursive) {
          out.push(`rm: cannot remove '${arg}': Is a directory\n`);
          exitCode = 1;
          continue;
        }
        const prefix = path === "/" ? "/" : `${path}/`;
        for (const file of Object.keys(this.fs.files)) if (file.startsWith(prefix)) delete this.fs.files[file];
        const kept = this.fs.dirs.filter((d) => d !== path && !d.startsWith(prefix));
        this.fs.dirs.splice(0, this.fs.dirs.length, ...kept, ...(path === "/" ? ["/"] : []));
      } else if (!force) {
        out.push(`rm: cannot remove '${arg}': No such file or directory\n`);
        exitCode = 1;
      }
    }
    return { stdout: out.join(""), exitCode };
  }
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
