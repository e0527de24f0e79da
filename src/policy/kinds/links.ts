import { posix } from "node:path";
import { readNaming } from "./programs.js";

/**
 * Links a command line makes for itself (`ln -s /etc/shadow x; cat x`): they do not exist when the guard decides, so
 * this machine's files cannot tell where they lead. The line's own ln, link, cp, install and mv commands are read as their
 * programs read their words (programs.ts, readNaming), and a word of the line that names one of the links (or a path
 * under it) is read as its target too. The links hold for every command of the line, before them as well: a loop, a
 * pipeline or a background job may run a command after one written later.
 *
 * Places are absolute, or relative to the directory the line starts in (the commands' working directories as
 * command.ts tracks them: `cd e && cat key`).
 */
export interface LineLink {
  /** Where the link is; undefined when the guard cannot tell (an expansion, a directory it cannot place). */
  readonly name: string | undefined;
  /** For a name the guard cannot tell: the directory it is in, when that is known (`ln -s FILE $N` is in the line's directory; `cp $X d/` in d). */
  readonly within?: string;
  /** Where it leads; undefined when the guard cannot tell. */
  readonly target: string | undefined;
  /** A symbolic link's relative target as written (it leads elsewhere once the link is moved or copied). */
  readonly text?: string;
  /** The command that makes it, as written. */
  readonly by: string;
}

/**
 * A word whose value is only known when the line runs: an expansion, a home directory, a word the shell replaces, the
 * path `find -exec` (or `xargs -I{}`) puts in place of `{}`.
 */
const unknownWord = (word: string, wild: ReadonlySet<string> | undefined) => word === "" || wild?.has(word) === true || /^~|[$`]|\{\}/.test(word);

/** A working directory the guard cannot place (command.ts: `cd -`, `cd $DIR`, `cd ~`). */
const unplacedCwd = (cwd: string | undefined) => cwd !== undefined && cwd.startsWith("~");

/** A place as the kernel names it lexically (`./x` and `x/` are x, `d//x` is d/x). */
const normal = (path: string) => {
  const out = posix.normalize(path);
  return out.length > 1 ? out.replace(/\/+$/, "") : out;
};

/** `word` placed in `cwd` (relative to where the line starts); undefined when the directory cannot be placed. */
function place(word: string, cwd: string | undefined): string | undefined {
  if (word.startsWith("/")) return normal(word);
  if (unplacedCwd(cwd)) return undefined;
  return normal(cwd === undefined ? word : `${cwd}/${word}`);
}

/** Whether `path` is `directory` or under it. */
function under(path: string, directory: string): boolean {
  if (directory === ".") return !path.startsWith("/") && path !== ".." && !path.startsWith("../");
  return path === directory || path.startsWith(directory === "/" ? "/" : `${directory}/`);
}

/** `path` with its start `from` (under which it is) moved to `to`. */
function moved(path: string, from: string, to: string): string {
  if (path === from) return to;
  return normal(`${to}/${from === "." ? path : path.slice(from.length + 1)}`);
}

/** Most links a line is read to make (a line that makes more asks through the last one's unknown name). */
const MAX_LINKS = 64;

/**
 * The links the commands make, in order: each command's spellings (`forms`, wrappers peeled off) in its working
 * directory (`cwds`, undefined where the line starts), with the words the shell still replaces (`wild`).
 */
export function lineLinks(
  commands: readonly { readonly forms: readonly (readonly string[])[]; readonly wild?: ReadonlySet<string>; readonly words: readonly string[]; readonly input?: { readonly at: number } }[],
  cwds: readonly (string | undefined)[],
): LineLink[] {
  const links: LineLink[] = [];
  for (const [i, command] of commands.entries()) {
    const cwd = cwds[i];
    const read = new Set<string>();
    // `… | xargs ln -s FILE`, `find -exec ln -s {} x \;`: the words from the input on are only known when it runs
    // (none, one or many: two words the guard cannot tell stand for them).
    const input = command.input;
    const forms = input === undefined ? command.forms : command.forms.map((form) => [...form.slice(0, Math.max(1, Math.min(form.length, input.at - (command.words.length - form.length)))), "$input", "$input"]);
    for (const [k, form] of forms.entries()) {
      const naming = readNaming(form);
      if (naming === undefined || read.has(form.join("\u0000"))) continue;
      read.add(form.join("\u0000"));
      const by = input === undefined ? form.join(" ") : `${command.forms[k]!.join(" ")} …`;
      if (naming.unknown !== undefined) {
        links.push({ name: undefined, target: undefined, by });
        continue;
      }
      for (const { source, names } of naming.made) {
        for (const written of names) {
          const sourceUnknown = unknownWord(source, command.wild);
          // (`ln -s /srv/secrets/* d/` names d/<each match>: a name the guard cannot tell.)
          const name = unknownWord(written, command.wild) || /[$`]|\{\}/.test(written) || (sourceUnknown && /[*?[]/.test(written)) ? undefined : place(written, cwd);
          // `cp $X d/` names d/<the last name of what $X becomes>: a name in d. (An expansion written in the name itself,
          // `ln -s FILE d/$N`, may hold `/` and `..`: that name may be anywhere.)
          const parent = written.includes("/") ? written.slice(0, written.lastIndexOf("/")) || "/" : ".";
          const inDirectory = written !== source && written.endsWith(`/${source.replace(/\/+$/, "").split("/").at(-1) ?? ""}`);
          const within = name === undefined && inDirectory && !unknownWord(parent, command.wild) ? place(parent, cwd) : undefined;
          const unnamed = within === undefined ? {} : { within };
          if (naming.makes === "symlink" || naming.makes === "hard") {
            // A symbolic link's relative target is read from the link's directory (`ln -r`: from the working directory).
            const fromLink = naming.makes === "symlink" && !naming.relative && !source.startsWith("/");
            const target = sourceUnknown ? undefined : fromLink ? (name === undefined ? undefined : normal(`${posix.dirname(name)}/${source}`)) : place(source, cwd);
            links.push({ name, target, by, ...unnamed, ...(fromLink && !sourceUnknown ? { text: source } : {}) });
            continue;
          }
          // A copy or a move holds what its source held (`cp -r d e; cat e/x` reads d/x, `mv x y; cat y` reads x), and
          // of a link made earlier (or a directory holding one) it is another name for where the link leads.
          const from = sourceUnknown ? undefined : place(source, cwd);
          links.push({ name, target: from, by, ...unnamed });
          if (from === undefined) continue;
          for (const link of [...links]) {
            if (link.name === undefined || !under(link.name, from)) continue;
            const at = name === undefined ? undefined : moved(link.name, from, name);
            links.push({ name: at, target: link.target, by });
            // A relative symbolic link moved or copied as a link leads from its new directory.
            if (link.text !== undefined && at !== undefined) links.push({ name: at, target: normal(`${posix.dirname(at)}/${link.text}`), text: link.text, by });
          }
        }
      }
    }
    if (links.length > MAX_LINKS) return [...links.slice(0, MAX_LINKS), { name: undefined, target: undefined, by: links.at(-1)!.by }];
  }
  return links;
}

/** Forms of a command with a word that may name a link read as where it leads; `unsure` when the guard cannot tell the link's name or target. */
interface LinkReadings {
  readonly sure: string[][];
  /** Forms with a word read through a link whose name or target the guard cannot tell (`${link}` for an unknown target). */
  readonly unsure: { readonly form: string[]; readonly link: LineLink; readonly unknown: "name" | "target" | "word"; readonly word?: string }[];
}

/** A word that stands for a place the guard cannot tell, as mayMatch reads an expansion (command.ts). */
export const UNKNOWN_TARGET = "${link}";

/** `--file=` or `NAME=` before a path (`if=x`). */
const VALUE_HEAD = /^(?:--?[A-Za-z0-9][\w.-]*=|[A-Za-z_][A-Za-z0-9_]*=)/;

/** Most forms read through links per command. */
const MAX_FORMS = 32;

/**
 * The other readings of one word through the line's links: each of its leading paths (in `cwd`) that is a link's name,
 * replaced by the link's target (then again, for a link to a link). `..` after a link climbs from its target.
 */
function throughLinks(word: string, cwd: string | undefined, links: readonly LineLink[], out: { sure: string[]; unsure: { text: string; link: LineLink; unknown: "name" | "target" }[] }): void {
  let pending: { path: string; cwd: string | undefined }[] = [{ path: word, cwd }];
  const seen = new Set<string>();
  for (let round = 0; round < 4 && pending.length > 0; round++) {
    const next: typeof pending = [];
    for (const { path, cwd: dir } of pending) {
      if (path.startsWith("-") || path === "") continue;
      const placed = path.startsWith("/") ? path : unplacedCwd(dir) ? undefined : dir === undefined ? path : `${dir}/${path}`;
      if (placed === undefined) continue;
      const segments = placed.split("/");
      for (let k = 1; k <= segments.length; k++) {
        const prefix = segments.slice(0, k).join("/");
        if (prefix === "" || segments[k - 1] === "" || segments[k - 1] === ".") continue;
        const at = normal(prefix);
        const rest = segments.slice(k).filter((segment) => segment !== "" && segment !== ".").join("/");
        for (const link of links) {
          if (link.name === undefined) {
            // A link the guard cannot place may be any leading path of the word (in its directory, when that is known).
            if (link.within !== undefined && normal(posix.dirname(at)) !== link.within) continue;
            out.unsure.push({ text: `${link.target ?? UNKNOWN_TARGET}${rest === "" ? "" : `/${rest}`}`, link, unknown: "name" });
            continue;
          }
          if (link.name !== at) continue;
          if (link.target === undefined) {
            out.unsure.push({ text: `${UNKNOWN_TARGET}${rest === "" ? "" : `/${rest}`}`, link, unknown: "target" });
            continue;
          }
          const text = rest === "" ? link.target : `${link.target}/${rest}`;
          if (seen.has(text)) continue;
          seen.add(text);
          out.sure.push(text);
          next.push({ path: text, cwd: undefined });
        }
      }
    }
    pending = next;
  }
}

/** An expansion in a word's source text (`$X`, `${X}`, `$(…)`, backquotes): any text, `/` included. */
const EXPANSION = /\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$.|`[^`]*`/g;

/**
 * What a word the shell still replaces may name, as regular expressions over places, one for each of its leading paths
 * (split at each `/`) with the rest after it: a file name pattern's `*`, `?` and `[…]` any name's characters, an
 * expansion any text. Empty when it starts at a place the guard cannot tell (`~`).
 */
function wildPlaces(word: string, cwd: string | undefined): { place: RegExp; rest: string }[] {
  if (word.startsWith("~") || (!word.startsWith("/") && unplacedCwd(cwd))) return [];
  const placed = (word.startsWith("/") || cwd === undefined ? word : `${cwd}/${word}`).replace(/\/{2,}/g, "/").replace(/(^|\/)(?:\.\/)+/g, "$1");
  const escape = (text: string) =>
    text
      .replace(/["']/g, "")
      .replace(/[.+^${}()|\\/]/g, "\\$&")
      .replace(/\[[^\]]*\]/g, "[^/]")
      .replace(/\*/g, "[^/]*")
      .replace(/\?/g, "[^/]");
  const regex = (text: string) => {
    let body = "";
    let last = 0;
    for (const match of text.matchAll(EXPANSION)) {
      body += `${escape(text.slice(last, match.index))}[\\s\\S]*`;
      last = match.index + match[0].length;
    }
    return `${body}${escape(text.slice(last))}`;
  };
  const out: { place: RegExp; rest: string }[] = [];
  const segments = placed.split("/");
  for (let k = 1; k <= segments.length; k++) {
    const head = segments.slice(0, k).join("/");
    if (head === "") continue;
    try {
      out.push({ place: new RegExp(`^${regex(head)}$`), rest: segments.slice(k).join("/") });
    } catch {
      // a pattern the guard cannot read: the word's other readings stand
    }
  }
  return out;
}

/** The forms of a command (in working directory `cwd`) with one word read through the line's links; `wild`: words the shell still replaces. */
export function linkReadings(forms: readonly (readonly string[])[], cwd: string | undefined, links: readonly LineLink[], wild?: ReadonlySet<string>): LinkReadings {
  const sure: string[][] = [];
  const unsure: LinkReadings["unsure"][number][] = [];
  if (links.length === 0) return { sure, unsure };
  for (const form of forms) {
    for (let i = 1; i < form.length && sure.length < MAX_FORMS; i++) {
      const word = form[i]!;
      // `ln -s FILE xy; cat x*`: a word the shell replaces may name the link (or a path under it) once it exists.
      if (wild?.has(word) === true && unsure.length < MAX_FORMS) {
        const places = wildPlaces(word, cwd);
        for (const link of links) {
          if (link.name === undefined || link.target === undefined) continue;
          for (const { place, rest } of places) {
            if (!place.test(link.name)) continue;
            for (const text of rest === "" ? [link.target] : [`${link.target}/${rest}`, `${link.target}/${UNKNOWN_TARGET}`]) unsure.push({ form: form.map((one, j) => (j === i ? text : one)), link, unknown: "word", word });
          }
        }
      }
      const head = VALUE_HEAD.exec(word)?.[0] ?? "";
      for (const start of head === "" ? [""] : ["", head]) {
        const out: Parameters<typeof throughLinks>[3] = { sure: [], unsure: [] };
        throughLinks(word.slice(start.length), cwd, links, out);
        for (const text of out.sure) sure.push(form.map((one, j) => (j === i ? `${start}${text}` : one)));
        for (const one of out.unsure.slice(0, MAX_FORMS)) if (unsure.length < MAX_FORMS) unsure.push({ form: form.map((w, j) => (j === i ? `${start}${one.text}` : w)), link: one.link, unknown: one.unknown });
      }
    }
  }
  return { sure: sure.slice(0, MAX_FORMS), unsure };
}
