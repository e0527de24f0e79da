/**
 * PowerShell's reading of a command line, as data: the cmdlets and aliases that delete, read, write, copy, move, change
 * directory, fetch URLs, search files or start programs, each read as the POSIX command with the same effect, so a rule
 * written for a shell (`Bash(rm:*)`, `Read(.env)`, `Edit(./src/**)`, `WebFetch(domain:x)`) holds for a PowerShell line.
 * The aliases are Microsoft's documented ones ("Compatibility Aliases" and each cmdlet's own aliases, Windows PowerShell
 * 5.1's `curl`, `wget`, `sc` included). Names and parameters are read in any case, parameters by a unique prefix
 * (`-rec`, `-Recurse:$true`). What cannot be read (Invoke-Expression of a string only known when it runs, `&` with a
 * variable, .NET calls that act on files, processes or the network) is said, and a deny rule then cannot tell.
 */

/** The POSIX command a cmdlet is read as, and how its words map onto that command's. */
type CmdletReading =
  /** rm: every operand is a target; `-Recurse` is -r and `-Force` -f. */
  | "remove"
  /** cat: every operand is a file it reads. */
  | "read"
  /** tee: every operand is a file it may write (the path, and any positional word after it). */
  | "write"
  /** cp or mv: operands read, `-Destination` (or the last operand) written. */
  | "copy"
  | "move"
  /** cd: the first operand is where the next statements run. */
  | "location"
  /** curl: `-Uri` or the first operand is fetched; `-OutFile` written, `-InFile` read and sent, `-Proxy` connected through. */
  | "fetch"
  /** grep: `-Pattern` or the first operand is the pattern, the rest files it reads. */
  | "search"
  /** The program `-FilePath` (or the first operand) names, run with `-ArgumentList` (or the rest). */
  | "start"
  /** Runs a string as PowerShell code (Invoke-Expression). */
  | "eval"
  /** Runs a script file in the current scope, as bash's `source` does (Import-Module of a path, dot-sourcing). */
  | "source";

/** Cmdlets by their lower-case name, with their readings. */
const CMDLETS: Readonly<Record<string, CmdletReading>> = {
  "remove-item": "remove",
  "get-content": "read",
  "set-content": "write",
  "add-content": "write",
  "clear-content": "write",
  "out-file": "write",
  "new-item": "write",
  "copy-item": "copy",
  "move-item": "move",
  "rename-item": "move",
  "set-location": "location",
  "push-location": "location",
  "invoke-webrequest": "fetch",
  "invoke-restmethod": "fetch",
  "start-bitstransfer": "fetch",
  "select-string": "search",
  "start-process": "start",
  "invoke-expression": "eval",
  "import-module": "source",
};

/**
 * PowerShell's aliases of those cmdlets (Microsoft's "Compatibility Aliases" table and the cmdlets' documented aliases;
 * `curl`, `wget`, `sc` are Windows PowerShell 5.1's). Where an alias is also a program's name (`rm`, `cat`, `curl`), the
 * line is read both ways: PowerShell 7 on Linux and macOS runs the program, Windows the cmdlet.
 */
const ALIASES: Readonly<Record<string, string>> = {
  ri: "remove-item",
  rm: "remove-item",
  rmdir: "remove-item",
  del: "remove-item",
  erase: "remove-item",
  rd: "remove-item",
  gc: "get-content",
  cat: "get-content",
  type: "get-content",
  sc: "set-content",
  ac: "add-content",
  clc: "clear-content",
  ni: "new-item",
  md: "new-item",
  mkdir: "new-item",
  cpi: "copy-item",
  cp: "copy-item",
  copy: "copy-item",
  mi: "move-item",
  mv: "move-item",
  move: "move-item",
  rni: "rename-item",
  ren: "rename-item",
  sl: "set-location",
  cd: "set-location",
  chdir: "set-location",
  pushd: "push-location",
  iwr: "invoke-webrequest",
  curl: "invoke-webrequest",
  wget: "invoke-webrequest",
  irm: "invoke-restmethod",
  sls: "select-string",
  saps: "start-process",
  start: "start-process",
  iex: "invoke-expression",
  ipmo: "import-module",
};

/** Parameters that take a value (the word after them), by cmdlet reading: any other `-Name` is a switch. */
const VALUED: Readonly<Record<CmdletReading, readonly string[]>> = {
  remove: ["path", "literalpath", "filter", "include", "exclude", "credential", "stream"],
  read: ["path", "literalpath", "filter", "include", "exclude", "credential", "stream", "readcount", "totalcount", "tail", "head", "first", "last", "delimiter", "encoding"],
  write: ["path", "literalpath", "filepath", "value", "encoding", "filter", "include", "exclude", "credential", "stream", "itemtype", "type", "name", "target", "inputobject", "width"],
  copy: ["path", "literalpath", "destination", "filter", "include", "exclude", "credential", "tosession", "fromsession"],
  move: ["path", "literalpath", "destination", "newname", "filter", "include", "exclude", "credential"],
  location: ["path", "literalpath", "stackname"],
  fetch: ["uri", "outfile", "infile", "proxy", "method", "body", "headers", "contenttype", "useragent", "timeoutsec", "maximumredirection", "sessionvariable", "websession", "credential", "proxycredential", "certificate", "source", "destination"],
  search: ["pattern", "path", "literalpath", "include", "exclude", "encoding", "context", "inputobject"],
  start: ["filepath", "argumentlist", "workingdirectory", "verb", "redirectstandardinput", "redirectstandardoutput", "redirectstandarderror", "windowstyle", "credential"],
  eval: ["command"],
  source: ["name", "path"],
};

/** PowerShell's statement keywords: what follows them is conditions and blocks, each read on its own. */
const KEYWORDS = new Set(["if", "elseif", "else", "foreach", "for", "while", "do", "until", "switch", "try", "catch", "finally", "function", "filter", "workflow", "param", "begin", "process", "end", "return", "throw", "trap", "data", "break", "continue", "exit", "class", "enum"]);

/**
 * .NET and COM calls that delete, read or write files, start processes, open connections or run code the line builds
 * (`[IO.File]::Delete`, `[Diagnostics.Process]::Start`, `New-Object Net.WebClient`, `[scriptblock]::Create`): the guard
 * does not read them.
 */
const DOTNET = /\[\s*(?:System\.)?(?:IO\.|Net\.|Diagnostics\.|Reflection\.|Runtime\.|Management\.Automation\.|ScriptBlock\s*\]|Activator\s*\]|AppDomain\s*\]|Environment\s*\]::SetEnvironmentVariable)|\bNew-Object\b|\bAdd-Type\b|\$ExecutionContext\b|\.InvokeCommand\b|\.Invoke(?:Script)?\s*\(/i;

/** One word of a PowerShell statement: its literal parts and the parts only known when it runs (variables, subexpressions). */
interface Word {
  readonly parts: readonly { readonly text: string; readonly dynamic: boolean }[];
  /** A parameter name (`-Path`, `-Recurse:$false` keeps its value in `value`). */
  readonly parameter?: string;
  readonly value?: Word;
  /** The word opens or is a script block, a parenthesised pipeline, an array or a hash literal (not a command name). */
  readonly expression?: boolean;
  /** Written in quotes: a quoted word at a statement's start is a string, not a command. */
  readonly quoted?: boolean;
  /** `&` (call) or `.` (dot-source) operator. */
  readonly operator?: "&" | ".";
  /** The source text. */
  readonly source: string;
}

/** What readPowerShell found: the line's commands as a POSIX shell line, and why some of it cannot be read. */
interface PowerShellReading {
  /** The commands as a shell line (one command a line; words quoted), empty when none is read. */
  readonly script: string;
  /** Why some of the line cannot be read (the first cause), if so. */
  readonly unknown: string | undefined;
}

const literal = (word: Word): string | undefined => (word.parts.every((part) => !part.dynamic) ? word.parts.map((part) => part.text).join("") : undefined);

/** `word` as one word of a POSIX shell line: its literal parts quoted, its run-time parts a variable the shell expands. */
function shellWord(word: Word): string {
  if (word.parts.length === 0) return "''";
  return word.parts
    .map((part) => (part.dynamic ? "${PSVALUE}" : `'${part.text.replace(/'/g, `'\\''`)}'`))
    .join("");
}

/** A path word as a POSIX shell word: PowerShell's file system provider reads `\` as a directory separator (on Linux and macOS too). */
function pathWord(word: Word): string {
  return shellWord({ ...word, parts: word.parts.map((part) => (part.dynamic ? part : { text: part.text.replace(/\\/g, "/"), dynamic: false })) });
}

/** Words split at PowerShell's unquoted commas (`a,b` is an array of two). */
function commaSplit(word: Word): Word[] {
  if (word.quoted === true || word.parameter !== undefined) return [word];
  const text = literal(word);
  if (text === undefined || !text.includes(",")) return [word];
  return text
    .split(",")
    .filter((piece) => piece !== "")
    .map((piece) => ({ parts: [{ text: piece, dynamic: false }], source: piece }));
}

/** Whether the parameter `-given` is `-name` (by a unique prefix: PowerShell reads `-rec` as -Recurse). */
function isParameter(given: string, name: string): boolean {
  const lower = given.toLowerCase();
  return lower.length > 0 && name.startsWith(lower);
}

class Reader {
  private at = 0;
  readonly commands: string[][] = [];
  unknown: string | undefined;
  private depth: number;

  constructor(
    private readonly text: string,
    depth: number,
  ) {
    this.depth = depth;
  }

  private fail(why: string): void {
    this.unknown ??= why;
  }

  /** The statements up to the end, or up to `close` (a `}` or `)` this reader's caller opened). */
  statements(close?: string): void {
    /** The separator before this statement joins it to the one before (`|`, `&&`, `||`): it may not be empty. */
    let joined = false;
    for (;;) {
      const statement = this.statement(close);
      if (statement.length > 0) this.command(statement);
      const c = this.text[this.at];
      const joins = c === "|" || (c === "&" && this.text[this.at + 1] === "&");
      // `| x`, `x |`, `&& x`, `x &&`: a pipeline or a chain with an empty part, which PowerShell would not parse.
      if (statement.length === 0 && (joined || joins)) this.fail("PowerShell would not parse the line (a pipeline or a chain with an empty part)");
      if (c === undefined) return;
      if (close !== undefined && c === close) {
        this.at += 1;
        return;
      }
      // A separator: `;`, a new line, `|`, `||`, `&&`, `&` (a background job).
      joined = joins;
      this.at += (c === "|" || c === "&") && this.text[this.at + 1] === c ? 2 : 1;
    }
  }

  private skipBlanks(): void {
    for (;;) {
      const c = this.text[this.at];
      if (c === " " || c === "\t" || c === "\r") this.at += 1;
      else if (c === "`" && (this.text[this.at + 1] === "\n" || this.text[this.at + 1] === "\r")) this.at += 2;
      else if (c === "<" && this.text[this.at + 1] === "#") {
        const end = this.text.indexOf("#>", this.at + 2);
        this.at = end < 0 ? this.text.length : end + 2;
      } else if (c === "#") {
        while (this.at < this.text.length && this.text[this.at] !== "\n") this.at += 1;
      } else return;
    }
  }

  /** The words of one statement, the reader left at its separator (or the end, or `close`). */
  private statement(close: string | undefined): Word[] {
    const words: Word[] = [];
    for (;;) {
      this.skipBlanks();
      const c = this.text[this.at];
      if (c === undefined || c === ";" || c === "\n" || c === "|" || (close !== undefined && c === close)) return words;
      if (c === "}" || c === ")") {
        // A closing bracket this reader did not open: PowerShell would not parse the line.
        this.fail(`PowerShell would not parse the line (an unmatched ${c})`);
        this.at += 1;
        continue;
      }
      if (c === "&") {
        if (this.text[this.at + 1] === "&") return words;
        if (words.length === 0) {
          this.at += 1;
          words.push({ parts: [], operator: "&", source: "&" });
          continue;
        }
        return words;
      }
      // A redirection: `>`, `>>`, `2>`, `*>`, `2>&1`, `3>>` (into a file: Out-File's effect).
      const redirect = /^(?:[*1-6]?>>?)(&[12])?/.exec(this.text.slice(this.at));
      if (redirect !== null && (c === ">" || /^[*1-6]>/.test(this.text.slice(this.at, this.at + 2)))) {
        this.at += redirect[0].length;
        if (redirect[1] !== undefined) continue;
        this.skipBlanks();
        const target = this.word();
        if (target !== undefined) {
          const name = literal(target);
          if (name === undefined || name.toLowerCase() !== "$null") this.commands.push(["tee", pathWord(target)]);
        }
        continue;
      }
      const word = this.word();
      if (word === undefined) return words;
      words.push(word);
    }
  }

  /** The reading of a nested text (a script block, a subexpression, a string Invoke-Expression runs): its commands join this one's. */
  private nested(close: string): void {
    if (this.depth > 20) {
      this.fail("the line nests too deep for the guard to read");
      return;
    }
    const inner = new Reader(this.text, this.depth + 1);
    inner.at = this.at;
    inner.statements(close);
    this.at = inner.at;
    this.commands.push(...inner.commands);
    if (inner.unknown !== undefined) this.fail(inner.unknown);
  }

  /** One word at the reader's place (undefined at a separator). */
  private word(): Word | undefined {
    const start = this.at;
    const parts: { text: string; dynamic: boolean }[] = [];
    let quoted = false;
    let expression = false;
    const add = (text: string, dynamic: boolean) => {
      const last = parts[parts.length - 1];
      if (last !== undefined && last.dynamic === dynamic && !dynamic) parts[parts.length - 1] = { text: last.text + text, dynamic };
      else if (!(dynamic && last?.dynamic === true)) parts.push({ text, dynamic });
    };
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined || c === " " || c === "\t" || c === "\r" || c === "\n" || c === ";" || c === "|" || c === "}" || c === ")") break;
      if (c === "&" && parts.length > 0) break;
      if (c === ">" && parts.length > 0) break;
      if (c === "`") {
        const next = this.text[this.at + 1];
        if (next === undefined) {
          this.at += 1;
          break;
        }
        add(next, false);
        this.at += 2;
        continue;
      }
      if (c === "'" || c === "\u2018" || c === "\u2019") {
        quoted = true;
        this.at += 1;
        let text = "";
        for (;;) {
          const d = this.text[this.at];
          if (d === undefined) {
            this.fail("PowerShell would not parse the line (an unterminated string)");
            break;
          }
          if ((d === "'" || d === "\u2018" || d === "\u2019") && (this.text[this.at + 1] === "'" || this.text[this.at + 1] === "\u2018" || this.text[this.at + 1] === "\u2019")) {
            text += "'";
            this.at += 2;
            continue;
          }
          this.at += 1;
          if (d === "'" || d === "\u2018" || d === "\u2019") break;
          text += d;
        }
        add(text, false);
        continue;
      }
      if (c === '"' || c === "\u201c" || c === "\u201d") {
        quoted = true;
        this.at += 1;
        for (;;) {
          const d = this.text[this.at];
          if (d === undefined) {
            this.fail("PowerShell would not parse the line (an unterminated string)");
            break;
          }
          if (d === '"' || d === "\u201c" || d === "\u201d") {
            if (this.text[this.at + 1] === '"') {
              add('"', false);
              this.at += 2;
              continue;
            }
            this.at += 1;
            break;
          }
          if (d === "`") {
            add(this.text[this.at + 1] ?? "", false);
            this.at += 2;
            continue;
          }
          if (d === "$" && this.text[this.at + 1] === "(") {
            this.at += 2;
            this.nested(")");
            add("", true);
            continue;
          }
          if (d === "$" && /[\w{:?^$]/.test(this.text[this.at + 1] ?? "")) {
            this.variable();
            add("", true);
            continue;
          }
          add(d, false);
          this.at += 1;
        }
        continue;
      }
      if ((c === "@" || c === "$") && this.text[this.at + 1] === "(") {
        this.at += 2;
        this.nested(")");
        add("", true);
        expression = true;
        continue;
      }
      if (c === "(") {
        this.at += 1;
        this.nested(")");
        add("", true);
        expression = true;
        continue;
      }
      if (c === "{" || (c === "@" && this.text[this.at + 1] === "{")) {
        // A script block (or a hash literal): its statements are read as commands the line may run.
        this.at += c === "@" ? 2 : 1;
        this.nested("}");
        add("", true);
        expression = true;
        continue;
      }
      if (c === "$") {
        this.variable();
        add("", true);
        continue;
      }
      if (c === "@" && /[\w]/.test(this.text[this.at + 1] ?? "")) {
        // Splatting: `@args` hands a table of parameters the guard does not read.
        this.at += 1;
        this.variable();
        add("", true);
        continue;
      }
      if (c === "[" && parts.length === 0) {
        // A type literal (`[IO.File]::Delete(...)`): an expression.
        const end = this.text.indexOf("]", this.at);
        const upto = end < 0 ? this.text.length : end + 1;
        add(this.text.slice(this.at, upto), false);
        this.at = upto;
        expression = true;
        continue;
      }
      add(c, false);
      this.at += 1;
    }
    if (this.at === start) return undefined;
    const source = this.text.slice(start, this.at);
    const text = literal({ parts, source });
    // `-Uri:'http://x'`, `-Path:"$d/x"`, `-Path:$p`: a parameter and its value in one word.
    const named = /^-([A-Za-z_][\w]*):/.exec(source);
    if (named !== null && parts[0]?.dynamic === false && parts[0].text.startsWith(named[0])) {
      const rest = [{ text: parts[0].text.slice(named[0].length), dynamic: false }, ...parts.slice(1)].filter((part) => part.dynamic || part.text !== "");
      return { parts, parameter: named[1]!, value: { parts: rest, source: source.slice(named[0].length), ...(quoted ? { quoted: true } : {}) }, source };
    }
    if (!quoted && text !== undefined && /^-[A-Za-z_?]/.test(text) && parts.length === 1) return { parts, parameter: text.slice(1), source };
    if (!quoted && text === "." && parts.length === 1) return { parts, operator: ".", source };
    return { parts, source, ...(quoted ? { quoted: true } : {}), ...(expression ? { expression: true } : {}) };
  }

  /** A variable (`$x`, `${a b}`, `$env:HOME`, `$_`): skipped as a run-time value. */
  private variable(): void {
    this.at += 1;
    if (this.text[this.at] === "{") {
      const end = this.text.indexOf("}", this.at);
      this.at = end < 0 ? this.text.length : end + 1;
      return;
    }
    if (/[?^$_]/.test(this.text[this.at] ?? "") && !/\w/.test(this.text[this.at + 1] ?? "")) {
      this.at += 1;
      return;
    }
    while (/[\w:]/.test(this.text[this.at] ?? "")) this.at += 1;
    // Member access and indexing (`$x.Path`, `$a[0]`) stay part of the value.
    while (this.text[this.at] === "." && /[A-Za-z_]/.test(this.text[this.at + 1] ?? "")) {
      this.at += 1;
      while (/\w/.test(this.text[this.at] ?? "")) this.at += 1;
    }
  }

  /** A string run as PowerShell code (Invoke-Expression, cmd /c): its commands join this one's. */
  private eval(text: string): void {
    if (this.depth > 20) {
      this.fail("the line nests too deep for the guard to read");
      return;
    }
    const inner = readPowerShellCode(text, this.depth + 1);
    if (inner.script !== "") this.commands.push(...inner.script.split("\n").map((line) => [line]));
    if (inner.unknown !== undefined) this.fail(inner.unknown);
  }

  /** One statement's words read as the command they run, if any. */
  private command(words: Word[]): void {
    if (DOTNET.test(words.map((word) => word.source).join(" "))) {
      const found = DOTNET.exec(words.map((word) => word.source).join(" "))?.[0] ?? "";
      this.fail(`PowerShell calls .NET or COM (${found.trim()}), which the guard does not read`);
    }
    let at = 0;
    // `$x = Get-Content .env`, `$a += …`: the value is a pipeline of its own.
    const first = words[0];
    if (first !== undefined && literal(first) === undefined && first.parts[0]?.dynamic === true && words[1] !== undefined && /^[-+*/%?]?=$/.test(literal(words[1]) ?? "")) at = 2;
    while (at < words.length && KEYWORDS.has((literal(words[at]!) ?? "").toLowerCase()) && words[at]!.quoted !== true) {
      const keyword = (literal(words[at]!) ?? "").toLowerCase();
      at += 1;
      // `function NAME { … }`, `foreach ($f in $files) { … }`: the name and the conditions are no command (their blocks were read).
      if (keyword === "function" || keyword === "filter" || keyword === "workflow" || keyword === "class" || keyword === "enum") return;
      if (keyword === "return" || keyword === "throw" || keyword === "exit") continue;
      return;
    }
    const head = words[at];
    if (head === undefined) return;
    if (head.operator !== undefined) {
      const target = words[at + 1];
      if (target === undefined) return;
      const name = literal(target);
      if (name === undefined || target.expression === true) {
        if (target.expression !== true || name !== undefined) this.fail(`PowerShell's ${head.operator === "&" ? "call operator &" : "dot-sourcing operator ."} runs a command whose name is only known when it runs`);
        return;
      }
      if (head.operator === ".") {
        this.commands.push(["source", shellWord(target), ...words.slice(at + 2).map(shellWord)]);
        return;
      }
      this.run(name, target, words.slice(at + 2));
      return;
    }
    const name = literal(head);
    // `'rm' x`, `-f x`: a value then more words, which PowerShell would not parse (a value at a statement's start is no command).
    if ((head.quoted === true || head.parameter !== undefined) && words.length > at + 1 && words[at + 1]!.parameter === undefined) {
      this.fail("PowerShell would not parse the line (a value followed by more words)");
      return;
    }
    if (head.parameter !== undefined) {
      this.fail(`PowerShell would not parse the line (${head.source} at a statement's start)`);
      return;
    }
    if (name === undefined || head.quoted === true || head.expression === true) return;
    this.run(name, head, words.slice(at + 1));
  }

  /** The command `name` run with `args`, as PowerShell resolves it: a cmdlet (or an alias of one), else a program. */
  private run(name: string, head: Word, args: Word[]): void {
    const lower = name.toLowerCase().replace(/^microsoft\.powershell\.(?:management|utility|core)\\/, "");
    const cmdlet = Object.hasOwn(CMDLETS, lower) ? lower : Object.hasOwn(ALIASES, lower) ? ALIASES[lower]! : undefined;
    if (cmdlet === undefined) {
      // cmd.exe runs the line after /c (or /k) with its own del, erase, rd, rmdir, type, copy and move: read as PowerShell reads those names.
      if (/^cmd(?:\.exe)?$/i.test(name)) {
        const at = args.findIndex((word) => /^\/[ck]$/i.test(literal(word) ?? ""));
        if (at >= 0) {
          const line = args.slice(at + 1).map((word) => literal(word));
          if (line.some((word) => word === undefined)) this.fail("cmd /c runs a command line only known when it runs");
          else this.eval(line.join(" "));
          return;
        }
      }
      // A program (`git push`, `./x.ps1`, `curl.exe`): read as the POSIX line reads it, its parameters as words.
      const program = /^[\w.-]+\.(?:exe|com|cmd|bat)$/i.test(name) ? { parts: [{ text: name.replace(/\.(?:exe|com|cmd|bat)$/i, ""), dynamic: false }], source: name } : head;
      if (program !== head) {
        this.commands.push([shellWord(program), ...args.flatMap((word) => (word.parameter !== undefined && word.value !== undefined ? [`'-${word.parameter}'`, shellWord(word.value)] : [shellWord(word)]))]);
        return;
      }
      if (/[\\/]/.test(name) || !/^[A-Za-z][\w-]*$/.test(name) || !name.includes("-")) this.commands.push([shellWord(head), ...args.flatMap((word) => (word.parameter !== undefined && word.value !== undefined ? [`'-${word.parameter}'`, shellWord(word.value)] : [shellWord(word)]))]);
      return;
    }
    const reading = CMDLETS[cmdlet]!;
    const valued = VALUED[reading];
    const named = new Map<string, Word[]>();
    const operands: Word[] = [];
    const switches: string[] = [];
    for (let i = 0; i < args.length; i++) {
      const word = args[i]!;
      if (word.parameter === undefined) {
        operands.push(...commaSplit(word));
        continue;
      }
      const full = valued.find((one) => isParameter(word.parameter!, one));
      if (full === undefined) {
        switches.push(word.parameter.toLowerCase());
        continue;
      }
      const value = word.value ?? args[++i];
      if (value === undefined) continue;
      named.set(full, [...(named.get(full) ?? []), ...commaSplit(value)]);
    }
    const get = (...names: string[]) => names.flatMap((one) => named.get(one) ?? []);
    const has = (name: string) => switches.some((one) => isParameter(one, name) && one.length >= 2);
    const words = (list: Word[]) => list.map((word) => (reading === "fetch" ? shellWord(word) : pathWord(word)));
    switch (reading) {
      case "remove": {
        const targets = [...get("path", "literalpath"), ...operands, ...get("include", "filter")];
        if (has("whatif")) return;
        this.commands.push(["rm", ...(has("recurse") ? ["-r"] : []), ...(has("force") ? ["-f"] : []), ...(targets.length === 0 ? ["${PSVALUE}"] : words(targets))]);
        return;
      }
      case "read": {
        const files = [...get("path", "literalpath"), ...operands];
        this.commands.push(["cat", ...(files.length === 0 ? ["${PSVALUE}"] : words(files))]);
        return;
      }
      case "write": {
        const files = [...get("path", "literalpath", "filepath"), ...operands];
        if (has("whatif")) return;
        const type = (get("itemtype", "type").map(literal)[0] ?? "").toLowerCase();
        if (cmdlet === "new-item" && /^(?:d|j|s|h)/.test(type)) {
          // A directory, a junction or a link: mkdir, or ln -s to the target.
          const target = get("target", "value");
          const names = files.map((file, i) => (i === 0 && get("name").length > 0 ? { parts: [...file.parts, { text: "/", dynamic: false }, ...get("name")[0]!.parts], source: file.source } : file));
          if (type.startsWith("d")) this.commands.push(["mkdir", "-p", ...words(names.length > 0 ? names : get("name"))]);
          else this.commands.push(["ln", "-s", ...(target.length > 0 ? words(target) : ["${PSVALUE}"]), ...words(names.length > 0 ? names : get("name"))]);
          return;
        }
        const all = files.length > 0 ? files : get("name");
        this.commands.push(["tee", ...(all.length === 0 ? ["${PSVALUE}"] : words(all))]);
        return;
      }
      case "copy":
      case "move": {
        const from = [...get("path", "literalpath"), ...operands];
        const to = get("destination", "newname");
        if (has("whatif")) return;
        this.commands.push([reading === "copy" ? "cp" : "mv", ...(has("recurse") ? ["-r"] : []), ...words(from), ...words(to)]);
        return;
      }
      case "location": {
        const where = [...get("path", "literalpath"), ...operands][0];
        this.commands.push(["cd", where === undefined ? "~" : pathWord(where)]);
        return;
      }
      case "fetch": {
        const urls = [...get("uri", "source"), ...operands];
        const out = get("outfile", "destination");
        const sent = get("infile");
        const proxy = get("proxy");
        this.commands.push(["curl", ...out.flatMap((file) => ["-o", pathWord(file)]), ...sent.flatMap((file) => ["-T", pathWord(file)]), ...proxy.flatMap((one) => ["-x", shellWord(one)]), ...(urls.length === 0 ? ["${PSVALUE}"] : words(urls))]);
        return;
      }
      case "search": {
        const pattern = get("pattern");
        const rest = [...(pattern.length > 0 ? [] : operands.slice(0, 1)), ...get("path", "literalpath"), ...(pattern.length > 0 ? operands : operands.slice(1))];
        const patternWord = pattern[0] ?? operands[0];
        this.commands.push(["grep", "-e", patternWord === undefined ? "${PSVALUE}" : shellWord(patternWord), ...(pattern.length > 0 ? words(rest) : words(rest.slice(1))), ...(has("recurse") ? ["-r"] : [])]);
        return;
      }
      case "start": {
        const program = [...get("filepath"), ...operands][0];
        if (program === undefined || literal(program) === undefined) {
          this.fail("PowerShell's Start-Process runs a program whose name is only known when it runs");
          return;
        }
        const list = [...get("argumentlist"), ...operands.slice(get("filepath").length > 0 ? 0 : 1)];
        const argv = list.flatMap((word) => {
          const text = literal(word);
          return text === undefined ? [shellWord(word)] : text.split(/\s+/).filter(Boolean).map((piece) => shellWord({ parts: [{ text: piece, dynamic: false }], source: piece }));
        });
        this.commands.push([shellWord(program), ...argv]);
        return;
      }
      case "eval": {
        const code = [...get("command"), ...operands];
        const text = code.length === 1 ? literal(code[0]!) : undefined;
        if (text === undefined) {
          this.fail("PowerShell's Invoke-Expression runs a string that is only known when it runs");
          return;
        }
        this.eval(text);
        return;
      }
      case "source": {
        const file = [...get("path", "name"), ...operands][0];
        // Import-Module of a module name (no path) loads an installed module; of a file, runs it in the session.
        if (file !== undefined && (literal(file) === undefined || /[\\/.]/.test(literal(file) ?? ""))) this.commands.push(["source", pathWord(file)]);
        return;
      }
    }
  }
}

function readPowerShellCode(text: string, depth: number): PowerShellReading {
  const reader = new Reader(text, depth);
  reader.statements();
  return { script: reader.commands.map((command) => command.join(" ")).join("\n"), unknown: reader.unknown };
}

/**
 * A PowerShell command line read as the POSIX commands it runs (`Remove-Item -Recurse x` as `rm -r x`, `gc .env` as
 * `cat .env`, `iwr URL -OutFile f` as `curl -o f URL`; a program it runs as itself), and why some of it cannot be read.
 */
export function readPowerShell(text: string): PowerShellReading {
  return readPowerShellCode(text, 0);
}

/** Whether the tool `name` runs PowerShell command lines (by its name: PowerShell, pwsh, run_powershell, …). */
export function isPowerShellTool(name: string): boolean {
  return /powershell|pwsh/i.test(name);
}
