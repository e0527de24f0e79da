import { lstatSync, readdirSync, readlinkSync, statSync, type Dirent } from "node:fs";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { picomatchLibrary } from "../../deps/on-demand.js";
import { fileReachDoubt, fileReachReason, listingDoubt, listingReason, searchToolReason, urlFileDoubt, urlFileReason, virtualPathDoubt, virtualPathReason, type FileReachDoubt, type FileReachVerb } from "../../messages/index.js";
import { commandPlaces } from "./command.js";
import { compilePathPattern, judgeOtherNames, normaliseBase, readPathValue } from "./path.js";
import { basename, environmentFiles, listedPlaces, readFileUses, readNaming, readProgram, unknownWordPlaces, wrapperInputFiles, type FileUse, type WalkFilter } from "./programs.js";
import { analyzeShell, type SimpleCommand } from "./shell.js";
import { NO, UNKNOWN, YES, type Verdict } from "./verdict.js";

/**
 * A file tool's deny or ask rule (`Read(.env)`, `Edit(./secrets/**)`) read for the shell: a command line reaches a file
 * it covers when one of its simple commands (shell.ts: after `cd`s, wrappers unwrapped, `bash -c` scripts, `xargs`,
 * `find -exec`, substitutions) opens it as its program opens its words (programs.ts's FILE_PROGRAMS) or through a
 * redirection. A program the guard knows to read a word (Read rules) or write, remove, move or link it (Edit rules)
 * reaches it for sure (the rule's mode); a program that only names its words (`ls`, `stat`, `echo`, `test -e`) does not;
 * a program it does not know, a directory walked, a word the shell still replaces, a place only known when the line
 * runs, words xargs adds, or code that names the file cannot be told (the rule asks).
 */

/** Which accesses a file rule restricts: a Read rule reading, an Edit/Write rule writing, a declared path tool's rule both. */
export type FileAccess = "read" | "write" | "any";

/** A file tool's rule as the shell reads it. */
export interface FileRule {
  readonly access: FileAccess;
  readonly mode: string;
  /** The rule as the user wrote it, for reasons (`Read(.env)`). */
  readonly source: string;
  /** The path patterns (gitignore-like, as the path matcher reads them), their base and case rule. */
  readonly patterns: readonly string[];
  readonly base: string;
  readonly caseSensitive: boolean;
  readonly followSymlinks: boolean;
}

/** A FileRule compiled: `test` on an absolute, normalised path; `shapes` for words the guard can only read as shapes. */
interface CompiledFileRule extends FileRule {
  readonly test: (absolute: string) => boolean;
  /** The patterns as the path kind compiles them: their places read through this machine's links (path.ts). */
  readonly paths: ReturnType<typeof compilePathPattern>[];
  readonly shapes: readonly Token[][];
  /** Every path the rule covers has a name starting with a dot below any directory it does not cover itself (`.env`, `/x/.aws/**`). */
  readonly hiddenLeaf: boolean;
  /** Those names (`.env`, `.aws`), when hiddenLeaf; else each pattern's last name (`secrets` of `./secrets/**`). */
  readonly hiddenNames: readonly string[];
  /** Every pattern names files by their last name (`.env`, `**\/*.pem`, `./config/.env`), none a directory's contents (`secrets/**`, `secrets/`). */
  readonly namesFiles: boolean;
  /** Every pattern names a directory's contents (`secrets/**`, `secrets/`): the shapes of the paths strictly inside it. */
  readonly inside: readonly Token[][] | undefined;
}

/** A shell command's reach of one rule's files: YES (reason), UNKNOWN (why), or NO. */
interface FileReach {
  readonly verdict: Verdict;
  readonly reason: string | undefined;
}

const NOT_REACHED: FileReach = { verdict: NO, reason: undefined };

/**
 * Whether one of the globs a walk was given may match one of the names (any case; a glob with a slash, or a name that is
 * itself a pattern, may).
 */
function admitsAny(globs: readonly string[], names: readonly string[]): boolean {
  if (globs.length === 0) return false;
  return globs.some((glob) => {
    if (glob.includes("/")) return true;
    const isMatch = picomatchLibrary()(glob, { dot: true, nocase: true });
    return names.some((name) => /[*?[\]{}()!+@]/.test(name) || isMatch(name));
  });
}

// Shapes: a path as a sequence of characters and wildcards. ANY: one character but `/`; STAR: any run without `/`;
// STAR0: a shell `*` that starts a name (it never matches a leading `.`); GLOBSTAR: any run.
const ANY = -1;
const STAR = -2;
const STAR0 = -3;
const GLOBSTAR = -4;
type Token = number;
const SLASH = 47;
const DOT = 46;

/** The longest shapes compared (longer: the guard cannot tell). */
const MAX_SHAPE = 256;

/** A rule's pattern as shapes of the absolute paths it covers (and everything under them), as compilePathPattern reads it. */
function patternShapes(pattern: string, base: string): Token[][] {
  let glob = pattern.replace(/\\/g, "/");
  if (glob.endsWith("/")) glob = `${glob}**`;
  const anchored = glob.slice(0, -1).includes("/") || glob.startsWith("/");
  const texts: string[] = [];
  if (!anchored) texts.push(`**/${glob}`);
  else texts.push(glob.startsWith("/") ? posix.normalize(glob) : posix.join(base, glob.replace(/^\.\//, "")));
  const out: Token[][] = [];
  for (const text of texts) {
    // A deny that covers a path covers what is under it; `/**/` also matches no directory at all.
    const alternatives = [text, `${text}/**`];
    if (text.endsWith("/**")) alternatives.push(text.slice(0, -3) || "/");
    for (const alternative of alternatives) {
      for (const spelled of new Set([alternative, alternative.replace(/\/\*\*\//g, "/")])) out.push(patternTokens(spelled.startsWith("**/") ? `/${spelled}` : spelled));
    }
  }
  return out;
}

/** A picomatch glob as a shape (braces and extended globs read as any text: the shape may then cover more, never less). */
function patternTokens(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        out.push(GLOBSTAR);
        while (glob[i + 1] === "*") i++;
      } else out.push(STAR);
    } else if (ch === "?") out.push(ANY);
    else if (ch === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) out.push(ch.charCodeAt(0));
      else {
        out.push(ANY);
        i = end;
      }
    } else if (ch === "{" || ch === "(" || ch === "!" || ch === "+" || ch === "@") {
      out.push(GLOBSTAR);
      const close = ch === "{" ? "}" : ")";
      const end = glob.indexOf(close, i + 1);
      if (end >= 0 && (ch === "{" || glob[i + 1] === "(" || ch === "(")) i = end;
    } else if (ch === "\\" && i + 1 < glob.length) out.push(glob.charCodeAt(++i));
    else out.push(glob.charCodeAt(i));
  }
  return out;
}

/**
 * A shell word (placed: absolute, or `**` then its tail when it starts at an unknown place) as a shape: an expansion
 * (`$X`, `${X}`, `$(…)`, `` `…` ``) is any text, `*` and `?` and `[…]` are the shell's patterns (a `*` or `?` that starts
 * a name never matches a leading dot), find's `{}` is any path.
 */
function wordTokens(word: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < word.length; i++) {
    const ch = word[i]!;
    const startsName = i === 0 || word[i - 1] === "/";
    if (ch === "$") {
      const next = word[i + 1];
      if (next === "(" || next === "{") {
        let depth = 0;
        const open = next;
        const close = next === "(" ? ")" : "}";
        let j = i + 1;
        for (; j < word.length; j++) {
          if (word[j] === open) depth++;
          else if (word[j] === close && --depth === 0) break;
        }
        i = j;
      } else while (i + 1 < word.length && /[A-Za-z0-9_@*#?$!-]/.test(word[i + 1]!)) i++;
      out.push(GLOBSTAR);
    } else if (ch === "`") {
      const end = word.indexOf("`", i + 1);
      i = end < 0 ? word.length : end;
      out.push(GLOBSTAR);
    } else if (ch === "{" && word[i + 1] === "}") {
      out.push(GLOBSTAR);
      i++;
    } else if (ch === "*") {
      while (word[i + 1] === "*") i++;
      out.push(startsName ? STAR0 : STAR);
    } else if (ch === "?") out.push(startsName ? STAR0 : ANY);
    else if (ch === "[") {
      const end = word.indexOf("]", i + 2);
      if (end < 0) out.push(ch.charCodeAt(0));
      else {
        out.push(startsName ? STAR0 : ANY);
        i = end;
      }
    } else out.push(word.charCodeAt(i));
  }
  return out;
}

/** Characters one position of a shape may take: undefined for any (but `/` unless `slash`). */
function takes(token: Token, code: number, consumed: boolean): boolean {
  if (token >= 0) return token === code;
  if (token === GLOBSTAR) return true;
  if (code === SLASH) return false;
  if (token === STAR0 && !consumed) return code !== DOT;
  return true;
}

/**
 * Whether some path fits both shapes (the intersection of two patterns is not empty): the two read side by side, a
 * character at a time, over the characters either spells and two others (`/`-free, a dot). Undefined when too long.
 */
function overlaps(a: readonly Token[], b: readonly Token[]): boolean | undefined {
  if (a.length > MAX_SHAPE || b.length > MAX_SHAPE) return undefined;
  const alphabet = new Set<number>([SLASH, DOT, 0x78]);
  for (const token of [...a, ...b]) if (token >= 0) alphabet.add(token);
  const width = b.length + 1;
  // State: (i, j, a's star at i has consumed, b's star at j has consumed).
  const seen = new Uint8Array((a.length + 1) * width * 4);
  const stack: number[] = [];
  const push = (i: number, j: number, ca: number, cb: number) => {
    const key = ((i * width + j) << 2) | (ca << 1) | cb;
    if (seen[key] === 1) return;
    seen[key] = 1;
    stack.push(i, j, ca, cb);
  };
  push(0, 0, 0, 0);
  while (stack.length > 0) {
    const cb = stack.pop()!;
    const ca = stack.pop()!;
    const j = stack.pop()!;
    const i = stack.pop()!;
    if (i === a.length && j === b.length) return true;
    const ta = a[i];
    const tb = b[j];
    const aStar = ta !== undefined && ta < ANY;
    const bStar = tb !== undefined && tb < ANY;
    // A star may end here (match nothing more).
    if (aStar) push(i + 1, j, 0, cb);
    if (bStar) push(i, j + 1, ca, 0);
    if (ta === undefined || tb === undefined) continue;
    for (const code of alphabet) {
      if (!takes(ta, code, ca === 1) || !takes(tb, code, cb === 1)) continue;
      push(aStar ? i : i + 1, bStar ? j : j + 1, aStar ? 1 : 0, bStar ? 1 : 0);
    }
  }
  return false;
}

/** The last name of a pattern (trailing `/`, `/**` dropped) is a literal that starts with a dot (`.env`, `/x/.aws/**`). */
function hiddenLeafOf(pattern: string): boolean {
  const leaf = leafOf(pattern);
  return leaf.startsWith(".") && leaf !== "." && leaf !== ".." && !/[*?[\]{}()!+@]/.test(leaf);
}

/** A pattern's last name, without the `/**` that follows it (`.aws` of `/x/.aws/**`). */
function leafOf(pattern: string): string {
  const trimmed = pattern.replace(/\\/g, "/").replace(/(?:\/\*\*)+$/, "").replace(/\/+$/, "");
  return trimmed.split("/").at(-1) ?? "";
}

/** A pattern that names what a directory holds: `secrets/**`, `secrets/`, `/x/.aws/**`. */
function namesContents(pattern: string): boolean {
  return /(?:\/\*\*|\/)$/.test(pattern.replace(/\\/g, "/"));
}

/** The shapes of the paths strictly inside the directory a contents pattern names (`ROOT/secrets/` then any path). */
function insideShapes(pattern: string, base: string): Token[][] {
  const directory = pattern.replace(/\\/g, "/").replace(/(?:\/\*\*)+$/, "").replace(/\/+$/, "");
  return patternShapes(`${directory}/`, base).filter((shape) => shape.at(-1) === GLOBSTAR && shape.at(-2) === SLASH);
}

const compiledRules = new WeakMap<FileRule, CompiledFileRule>();

function compiled(rule: FileRule): CompiledFileRule {
  let out = compiledRules.get(rule);
  if (out !== undefined) return out;
  const base = normaliseBase(rule.base);
  const globs = rule.patterns.flatMap((pattern) => {
    let glob = pattern.replace(/\\/g, "/");
    if (glob.endsWith("/")) glob = `${glob}**`;
    const anchored = glob.slice(0, -1).includes("/") || glob.startsWith("/");
    if (!anchored) return [`**/${glob}`, `/${glob}`];
    const absolute = glob.startsWith("/") ? posix.normalize(glob) : posix.join(base, glob.replace(/^\.\//, ""));
    return absolute.endsWith("/**") ? [absolute, absolute.slice(0, -3) || "/"] : [absolute];
  });
  const isMatch = picomatchLibrary()(globs, { dot: true, nocase: !rule.caseSensitive });
  out = {
    ...rule,
    base,
    test: (absolute) => isMatch(absolute),
    paths: rule.patterns.map((pattern) => compilePathPattern(pattern, { base, caseSensitive: rule.caseSensitive })),
    shapes: rule.patterns.flatMap((pattern) => patternShapes(pattern, base)),
    hiddenLeaf: rule.patterns.every(hiddenLeafOf),
    hiddenNames: rule.patterns.map(leafOf),
    namesFiles: rule.patterns.every((pattern) => !namesContents(pattern)),
    inside: rule.patterns.every(namesContents) ? rule.patterns.flatMap((pattern) => insideShapes(pattern, base)) : undefined,
  };
  compiledRules.set(rule, out);
  return out;
}

/** The path or one of the directories it is in is covered (a deny of a directory covers what is in it). */
function covers(rule: CompiledFileRule, absolute: string): boolean {
  for (let place = absolute; ; place = posix.dirname(place)) {
    if (rule.test(place)) return true;
    if (place === "/" || place === ".") return false;
  }
}

/** A word as the guard places it: an absolute path, or a shape (with the reason it is one) when the shell still changes it or its start is unknown. */
/** `climbs`: the path as the kernel is given it, when a `..` in it may climb from a symlink's target (`docs/link/../k`). */
type Placed = { readonly absolute: string; readonly climbs?: string } | { readonly shape: Token[]; readonly doubt: "wild" | "unplaced"; readonly home?: Token[] };

/**
 * `where`: the directory the command runs in (absolute, or `~`-led when the guard cannot place it). `homeSet`: the line
 * assigns HOME, so `~` is wherever it was set to.
 */
function place(word: string, wild: boolean, where: string, homeSet = false): Placed {
  let text = word;
  // `"$PWD/.env"`, `~+/.env`: where the command runs.
  if (where.startsWith("/")) text = text.replace(/^\$(?:PWD\b|\{PWD\})/, where).replace(/^~\+(?=\/|$)/, where);
  // find's `{}` stands for each path it finds.
  const changes = (wild && /[$`*?[]/.test(text)) || text.includes("{}");
  const unplacedStart = text.startsWith("~") || (!text.startsWith("/") && !where.startsWith("/"));
  if (!changes && !unplacedStart) {
    // The shell's working directory is read as bash's logical one; the word's own `..` is the kernel's, which climbs from
    // where a symlink before it leads (`cd docs/link && cat ../k`, `cat docs/link/../k`).
    const given = text.startsWith("/") ? text : `${posix.normalize(where)}/${text}`;
    // `grep -r KEY ./` walks `.`: a trailing slash names the same directory.
    return { absolute: posix.normalize(given).replace(/(?<=.)\/+$/, ""), ...(/(?:^|\/)\.\.(?:\/|$)/.test(given) ? { climbs: given } : {}) };
  }
  if (unplacedStart) {
    // From a place the guard does not know, a `..` climbs anywhere: what follows the last one is all that is known.
    const tail = (text.startsWith("~") ? text.replace(/^~[^/]*/, "") : `/${text}`).replace(/^.*\/\.\.(?=\/|$)/, "");
    const tokens = wordTokens(tail === "" ? "/" : tail);
    // A home directory is not inside a directory a rule covers: `~/notes.txt` is not under /home/u/.aws/**. Not so `~-` (the
    // previous directory, `$OLDPWD`), `~+N` and `~-N` (the directory stack's), `~+` where the command's place is unknown,
    // nor `~` after the line set HOME.
    const elsewhere = /^~[+-]\d*(?:\/|$)/.test(text) || (homeSet && /^~(?:\/|$)/.test(text));
    const home = text.startsWith("~") && !elsewhere && !/(?:^|\/)\.\.(?:\/|$)/.test(text) ? { home: tokens } : {};
    return { shape: [GLOBSTAR, ...tokens], doubt: changes ? "wild" : "unplaced", ...home };
  }
  const absolute = text.startsWith("/") ? text : `${where}/${text}`;
  // `..` after a pattern character climbs from what the shell put there.
  const known = /[$`*?[{].*\/\.\.(?:\/|$)/.test(absolute) ? `/**${absolute.replace(/^.*\/\.\.(?=\/|$)/, "")}` : posix.normalize(absolute);
  return { shape: known.startsWith("/**") ? [GLOBSTAR, ...wordTokens(known.slice(3))] : wordTokens(known), doubt: "wild" };
}

/** Whether a placed word names a file the rule covers: YES, UNKNOWN (the shape may), NO. */
function judgePlaced(placed: Placed, rule: CompiledFileRule, glob: boolean): Verdict {
  if ("absolute" in placed) {
    if (covers(rule, placed.absolute)) return YES;
    if (!rule.followSymlinks) return NO;
    // Through this machine's symlinks (`cat link` where link leads to .env).
    const { readings } = readPathValue(placed.climbs ?? placed.absolute, { base: rule.base, followSymlinks: true });
    if (readings.some((reading) => covers(rule, reading.absolute))) return YES;
    if (placed.climbs !== undefined && readPathValue(placed.absolute, { base: rule.base, followSymlinks: true }).readings.some((reading) => covers(rule, reading.absolute))) return YES;
    // `cat /private/tmp/x` under a rule on /tmp/x (a link leads there), `cat docs/h` where h is another name of the file.
    return judgeOtherNames(placed.absolute, rule.paths, normaliseBase(rule.base));
  }
  if (glob && rule.followSymlinks) {
    // The names the shell expands a pattern to now (a file the line makes itself is read from what makes it).
    const text = shapeText(placed.shape);
    if (text !== undefined) {
      const { readings } = readPathValue(text, { base: rule.base, followSymlinks: true });
      if (readings.some((reading) => !/[*?[]/.test(reading.absolute) && covers(rule, reading.absolute))) return YES;
    }
  }
  if (placed.home !== undefined) return homeOverlaps(placed.home, rule) ? UNKNOWN : NO;
  return rule.shapes.some((shape) => overlaps(placed.shape, shape) !== false) ? UNKNOWN : NO;
}

/**
 * Whether a path under a home directory (`~/TAIL`, TAIL `/`-led) may be one the rule covers, for a home that is not
 * itself covered: the tail placed at each directory a rule's shape spells before one of its `/` (that is not covered
 * itself), and at a directory no rule names.
 */
function homeOverlaps(tail: readonly Token[], rule: CompiledFileRule): boolean {
  const anchors: Token[][] = [[], [SLASH, 1]];
  for (const shape of rule.shapes) {
    for (let k = 1; k < shape.length; k++) {
      if (shape[k] !== SLASH) continue;
      const anchor = shape.slice(0, k);
      if (!rule.shapes.some((one) => overlaps(anchor, one) !== false)) anchors.push(anchor);
    }
  }
  return anchors.some((anchor) => rule.shapes.some((shape) => overlaps([...anchor, ...tail], shape) !== false));
}

/** A shape of characters and shell patterns only, back as text (undefined when it holds an expansion). */
function shapeText(shape: readonly Token[]): string | undefined {
  let out = "";
  for (const token of shape) {
    if (token === GLOBSTAR) return undefined;
    out += token >= 0 ? String.fromCharCode(token) : token === ANY ? "?" : "*";
  }
  return out;
}

/**
 * Whether every directory whose contents the rule covers is one place, spelled without a pattern (`./secrets/**`,
 * `/srv/keys/`), that does not exist on this machine: a listing from above it then prints no name inside it.
 */
function coveredDirectoriesAbsent(rule: CompiledFileRule): boolean {
  return rule.patterns.every((pattern) => {
    const absolute = literalDirectory(pattern, rule.base);
    if (absolute === undefined) return false;
    // Not there, not even as a dangling link (nor, for a rule that reads names in any case, in another case).
    try {
      lstatSync(absolute);
      return false;
    } catch {
      if (rule.caseSensitive) return true;
      try {
        const name = posix.basename(absolute).toLowerCase();
        return !readdirSync(posix.dirname(absolute)).some((entry) => entry.toLowerCase() === name);
      } catch {
        return true;
      }
    }
  });
}

/** How many entries below a walk's start coveredDirectoryBelow looks at, how deep, and how long what it saw is kept. */
const DIRECTORY_LOOK = { entries: 8_000, depth: 6, keepMs: 2_000 };

/** The directories and the links' real places below a start, as DIRECTORY_LOOK bounds them (treeBelow). */
interface TreeBelow {
  readonly at: number;
  readonly directories: readonly string[];
  readonly linked: readonly string[];
  /** The files (not read further: treeBelow does not open or stat them). */
  readonly files: readonly string[];
}

const treesBelow = new Map<string, TreeBelow>();

/**
 * The directories and the places its symlinks lead below `start` on this machine, breadth first, as a walk that does not
 * follow links enters them: the first DIRECTORY_LOOK.entries entries, DIRECTORY_LOOK.depth deep; a tree larger than
 * that is not looked at further (the rest is read as holding none). Kept for DIRECTORY_LOOK.keepMs: every rule of one
 * decision reads the same tree.
 */
function treeBelow(start: string): TreeBelow {
  const now = Date.now();
  const kept = treesBelow.get(start);
  if (kept !== undefined && now - kept.at < DIRECTORY_LOOK.keepMs) return kept;
  const directories: string[] = [];
  const linked: string[] = [];
  const files: string[] = [];
  let level = [start];
  let seen = 0;
  walk: for (let depth = 0; depth < DIRECTORY_LOOK.depth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const directory of level) {
      let entries: Dirent[];
      try {
        entries = readdirSync(directory, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++seen > DIRECTORY_LOOK.entries) break walk;
        const full = directory === "/" ? `/${entry.name}` : `${directory}/${entry.name}`;
        if (entry.isSymbolicLink()) {
          // Where the link's own text leads (a link to a link is followed when it is checked: judgePlaced).
          try {
            linked.push(posix.resolve(directory, readlinkSync(full)));
          } catch {
            // Unreadable: leads nowhere the guard can tell.
          }
        } else if (entry.isDirectory()) {
          directories.push(full);
          next.push(full);
        } else if (entry.isFile()) files.push(full);
      }
    }
    level = next;
  }
  const tree = { at: now, directories, linked, files };
  if (treesBelow.size > 64) treesBelow.clear();
  treesBelow.set(start, tree);
  return tree;
}

/**
 * Whether a directory the rule covers (a `.env` directory under Read(.env)) is below `start` on this machine, or
 * (`links`) a symlink below it leads to a place the rule covers, or a file below it is another name of a covered file
 * (treeBelow).
 */
function coveredDirectoryBelow(start: string, rule: CompiledFileRule, links = false): boolean {
  const tree = treeBelow(start);
  if (!links) return tree.directories.some((directory) => rule.test(directory));
  return (
    tree.linked.some((place) => covers(rule, place) || (rule.followSymlinks && judgePlaced({ absolute: place }, rule, false) === YES)) ||
    // Another name of a covered file (`ln secrets/key docs/h`) is read by a walk of docs.
    sharesCoveredFile(tree.files, rule)
  );
}

const sharedInodes = new WeakMap<CompiledFileRule, { readonly at: number; readonly inodes: ReadonlySet<string> }>();

/**
 * Whether one of `files` is another name of a file the rule covers: the files in the directories the rule names as one
 * place (`./secrets/**`) that have other names (a link count above 1), by device and inode; the first
 * DIRECTORY_LOOK.entries of them, kept DIRECTORY_LOOK.keepMs. A rule naming files at any depth (`.env`) is not looked at
 * (its hard links are found by name: judgeOtherNames).
 */
function sharesCoveredFile(files: readonly string[], rule: CompiledFileRule): boolean {
  const now = Date.now();
  let kept = sharedInodes.get(rule);
  if (kept === undefined || now - kept.at >= DIRECTORY_LOOK.keepMs) {
    const inodes = new Set<string>();
    for (const directory of literalDirectories(rule)) {
      for (const file of treeBelow(directory).files.slice(0, DIRECTORY_LOOK.entries)) {
        try {
          const stat = lstatSync(file);
          if (stat.nlink > 1) inodes.add(`${stat.dev}:${stat.ino}`);
        } catch {
          // Gone since it was listed.
        }
      }
    }
    kept = { at: now, inodes };
    sharedInodes.set(rule, kept);
  }
  if (kept.inodes.size === 0) return false;
  return files.some((file) => {
    try {
      const stat = lstatSync(file);
      return stat.nlink > 1 && kept.inodes.has(`${stat.dev}:${stat.ino}`);
    } catch {
      return false;
    }
  });
}

/** The directories a rule covers the contents of, each one place spelled without a pattern (`./secrets/**`: ROOT/secrets). */
function literalDirectories(rule: CompiledFileRule): string[] {
  return rule.patterns.flatMap((pattern) => {
    const directory = namesContents(pattern) ? literalDirectory(pattern, rule.base) : undefined;
    return directory === undefined ? [] : [directory];
  });
}

/**
 * The one directory a pattern names, spelled without a pattern (`./secrets/**`, `/srv/keys/`, `a/b`), as an absolute
 * path under `base`; undefined when it holds a pattern or names no directory by its spelling alone (`.env`).
 */
function literalDirectory(pattern: string, base: string): string | undefined {
  const directory = pattern.replace(/\\/g, "/").replace(/(?:\/\*\*)+$/, "").replace(/\/+$/, "");
  if (/[*?[\]{}!~$]/.test(directory) || !(directory.startsWith("/") || directory.startsWith("./") || directory.slice(0, -1).includes("/"))) return undefined;
  return directory.startsWith("/") ? posix.normalize(directory) : posix.join(base, directory.replace(/^\.\//, ""));
}

function isDirectory(absolute: string): boolean {
  try {
    return statSync(absolute).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Programs that make no directory or link (and run nothing that could): a line of only these (and redirections that
 * write nothing but the streams) cannot make a covered directory before a walk in it reads it, so the walk may be judged
 * by what is on disk now (judgeWalk's `looks`). A program's entry is true, or what its words must be: git as a reader,
 * tar creating an archive (not extracting one, nor running a program: `-I`, `--to-command`, `-F`), zip without a test
 * command (`-T`/`-TT`), xargs running one of these.
 */
const MAKES_NOTHING: Readonly<Record<string, true | ((words: readonly string[]) => boolean)>> = {
  rg: true, grep: true, egrep: true, fgrep: true, ag: true, ack: true, ugrep: true, cd: true, pushd: true, popd: true, pwd: true, echo: true, printf: true,
  true: true, ls: true, cat: true, head: true, tail: true, wc: true, sort: true, uniq: true, cut: true, tr: true, nl: true, column: true, jq: true,
  git: (words) => ["grep", "ls-files", "status", "log", "diff", "show"].includes(words[1] ?? ""),
  tar: (words) => {
    const clusters = words.slice(1).filter((word, i) => (i === 0 && !word.startsWith("-")) || /^-[^-]/.test(word));
    const creates = clusters.some((cluster) => cluster.includes("c")) || words.includes("--create");
    const extractsOrRuns = clusters.some((cluster) => /[xIF]/.test(cluster)) || words.some((word) => /^--(?:ext|get|to-c|us|checkpoint-a|info|new-v|rmt|rsh)/.test(word));
    return creates && !extractsOrRuns;
  },
  zip: (words) => !words.some((word) => /^-[A-Za-z]*T|^--(?:test|unzip)/.test(word)),
  xargs: (words) => {
    let i = 1;
    while (i < words.length && words[i]!.startsWith("-")) i += /^-[nILPsdEa]$/.test(words[i]!) ? 2 : 1;
    const name = basename(words[i] ?? "");
    const entry = Object.hasOwn(MAKES_NOTHING, name) && name !== "xargs" ? MAKES_NOTHING[name] : undefined;
    return entry !== undefined && (entry === true || entry(words.slice(i)));
  },
};
const STREAMS = /^(?:\/dev\/(?:null|stdout|stderr|tty)|&?\d*-?)$/;

function walkLooks(commands: readonly SimpleCommand[]): boolean {
  return commands.every((command) => {
    const name = basename(command.words[0] ?? "");
    const entry = command.construct || (command.settings ?? []).length > 0 || !Object.hasOwn(MAKES_NOTHING, name) ? undefined : MAKES_NOTHING[name];
    return entry !== undefined && (entry === true || entry(command.words)) && (command.redirects ?? []).every((redirect) => !redirect.writes || STREAMS.test(redirect.word));
  });
}

/** Whether a directory walked (everything under it read, or written) reaches a file the rule covers. */
function judgeWalk(placed: Placed, rule: CompiledFileRule, skipsHidden: boolean, admits: readonly string[] = [], filter?: WalkFilter, looks = false): Verdict {
  // A walk that skips hidden names reaches none of a rule whose every file hides below a hidden name, unless a glob it
  // was given admits that name (ripgrep's `-g`, matched against each name as ripgrep matches a glob without a slash).
  // Nor one whose every file its filters keep out (filteredOut).
  const skipped = skipsHidden && rule.hiddenLeaf && !admitsAny(admits, rule.hiddenNames);
  const filtered = filteredOut(filter, rule);
  const hiddenSkipped = skipped || filtered;
  if ("absolute" in placed) {
    if (covers(rule, placed.absolute)) return YES;
    // A name filter (`--include='*.py'`) keeps out the files a rule names, not the files under a directory of that name
    // (a virtual environment made as `.env`): the rule covers those whatever their names.
    if (!skipped && filtered && filter?.only !== undefined && rule.namesFiles && coveredDirectoryBelow(placed.absolute, rule)) return UNKNOWN;
    // A start that is a link (or passes one) into a covered place is walked where it leads (`grep -r KEY link`).
    if (rule.followSymlinks && judgePlaced(placed, rule, false) === YES) return YES;
    if (hiddenSkipped) return NO;
    const under = [...wordTokens(placed.absolute === "/" ? "" : placed.absolute), SLASH, GLOBSTAR];
    // A start the guard can see, above covered places that are not there (no `secrets/` in this project): the walk
    // reaches none of them (`looks`: the line makes nothing before it: walkLooks), unless a link below leads elsewhere.
    if (rule.shapes.some((shape) => overlaps(under, shape) !== false) && !(looks && isDirectory(placed.absolute) && coveredDirectoriesAbsent(rule))) return UNKNOWN;
    // A link below the start that leads into a covered place is followed by some walks (`grep -R`, `rg -L`, `find -L`,
    // `tar -h`, zip): which ones follow it is not read, so it cannot tell.
    return rule.followSymlinks && coveredDirectoryBelow(placed.absolute, rule, true) ? UNKNOWN : NO;
  }
  // The word itself may be the file (`ag KEY .e*`: a name given is searched, hidden or not).
  const itself = judgePlaced(placed, rule, true);
  if (itself !== NO || hiddenSkipped) return itself;
  const under = [...placed.shape, SLASH, GLOBSTAR];
  return rule.shapes.some((shape) => overlaps(under, shape) !== false) ? UNKNOWN : NO;
}

/**
 * Whether a walk's filters keep out every file the rule covers below where it starts: a rule that names files by name
 * (`.env`) when no glob of the names it searches (`--include='*.ts'`, `-t ts`) may match one of those names (in any case,
 * as the rule reads names); a rule that names a directory's contents (`secrets/**`) when the walk enters no directory of
 * that name (`--exclude-dir=secrets`, `-g '!secrets'`), whatever its case (unless the rule reads case).
 */
function filteredOut(filter: WalkFilter | undefined, rule: CompiledFileRule): boolean {
  if (filter === undefined || filter.unknown === true) return false;
  if (filter.only !== undefined && rule.namesFiles && !admitsAny(filter.only, rule.hiddenNames)) return true;
  if (filter.skipDirs !== undefined && rule.inside !== undefined) {
    return rule.hiddenNames.every((name) => !/[*?[\]{}()!+@]/.test(name) && filter.skipDirs!.some((glob) => skipsEveryCase(glob, name, rule.caseSensitive)));
  }
  return false;
}

/** Whether a directory glob (matched as the program matches it, with case) matches `name` in every case a rule reads. */
function skipsEveryCase(glob: string, name: string, caseSensitive: boolean): boolean {
  if (glob.includes("/")) return false;
  const isMatch = picomatchLibrary()(glob, { dot: true });
  if (caseSensitive) return isMatch(name);
  const letters = [...name].filter((ch) => ch.toLowerCase() !== ch.toUpperCase()).length;
  if (letters > 12) return false;
  const chars = [...name];
  for (let mask = 0; mask < 1 << letters; mask++) {
    let bit = 0;
    const variant = chars.map((ch) => (ch.toLowerCase() === ch.toUpperCase() ? ch : (mask >> bit++) & 1 ? ch.toUpperCase() : ch.toLowerCase())).join("");
    if (!isMatch(variant)) return false;
  }
  return true;
}

/** The uses of a rule's access: a Read rule restricts reading, an Edit rule writing, a declared tool's rule both. */
function restricts(access: FileAccess, use: FileUse): boolean {
  switch (use) {
    case "read":
    case "walk":
    case "walk-visible":
    case "list":
      return access !== "write";
    case "write":
    case "walk-write":
      return access !== "read";
    case "read-write":
    case "unknown":
    case "code":
      return true;
    default:
      return false;
  }
}

const VERB: Partial<Record<FileUse, FileReachVerb>> = { read: "reads", write: "writes", "read-write": "reads and writes" };

/** What one command does with the files its words and redirections name (cached per command: rules share it). */
interface CommandUses {
  /** `own`: a file a wrapper opens itself (`xargs -a FILE`), judged though the command it runs is judged on its own. */
  readonly uses: readonly { readonly word: string; readonly use: FileUse; readonly maybe?: boolean; readonly admits?: readonly string[]; readonly filter?: WalkFilter; readonly own?: boolean }[];
  /** The program runs another command the line holds as a command of its own (a wrapper): its words are that command's. */
  readonly runner: boolean;
}

const usesOf = new WeakMap<SimpleCommand, CommandUses>();

function commandUses(command: SimpleCommand): CommandUses {
  let out = usesOf.get(command);
  if (out !== undefined) return out;
  const words = command.words;
  const read = readFileUses(words);
  const uses: { word: string; use: FileUse; maybe?: boolean; admits?: readonly string[]; filter?: WalkFilter; own?: boolean }[] = [...read.uses];
  // `cat .{env,}` opens .env: the words after bash's brace expansion are read too (as written, they are what sh opens).
  if (command.expanded !== undefined) for (const one of readFileUses(command.expanded).uses) if (!uses.some((known) => known.word === one.word && known.use === one.use)) uses.push(one);
  let runner = false;
  if (!read.known) {
    // `sudo cat .env`, `timeout 5 cat .env`, `xargs cat`: the command they run is judged on its own.
    const reading = readProgram(words);
    runner = command.transparent === true || reading.commands.length > 0 || reading.scripts.length > 0;
    // `xargs -a .env echo`: xargs reads the file itself.
    for (const file of wrapperInputFiles(words)) uses.push({ word: file, use: "read", own: true });
  }
  // `cp a dir/`, `mv a b`: the names the copies, moves and links get (a directory's: the source's name in it).
  const naming = read.known ? readNaming(words) : undefined;
  // A name inside the destination is written only when it is a directory, which the guard does not know: it cannot tell.
  const into = /^(?:.*\/)?\.\.?$/.test(naming?.made[0]?.names[0] ?? "");
  for (const made of naming?.made ?? []) for (const name of made.names) if (!uses.some((one) => one.word === name)) uses.push({ word: name, use: "write", ...(made.names.length > 1 && !into ? { maybe: true } : {}) });
  for (const redirect of command.redirects ?? []) uses.push({ word: redirect.word, use: redirect.reads && redirect.writes ? "read-write" : redirect.reads ? "read" : "write" });
  out = { uses, runner };
  usesOf.set(command, out);
  return out;
}

/**
 * The directories a program moves to through its options before it reads its words (`make -C DIR`, `npm --prefix DIR`,
 * `git -C DIR`: programs.ts's place options, each in the one before), placed from `where`.
 */
function movedTo(command: SimpleCommand, where: string): string[] {
  const places = command.allowAs?.places ?? [];
  const out: string[] = [];
  let at = where;
  for (const place of places) {
    at = place.startsWith("/") ? place : `${at}/${place}`;
    out.push(at);
  }
  return out;
}

/** A pattern's characters: `*`, `?` and a bracket expression. */
const PATTERN_RE = /[*?[]/;

/** A command's words the shell expands as file name patterns (its `wild` words with a pattern character; after brace expansion too). */
function patternWords(command: SimpleCommand, isWild: (word: string) => boolean): string[] {
  const braced = command.words.some((word) => isWild(word) && word.includes("{"));
  return [...command.words.slice(1).filter((word) => PATTERN_RE.test(word) && isWild(word)), ...(braced ? (command.expanded ?? []).slice(1).filter((word) => PATTERN_RE.test(word)) : [])];
}

/**
 * The directories the shell lists to expand file name patterns: for each part of a pattern that holds a
 * pattern character, the directory before it (`secrets/*` lists secrets, `*\/*` lists `.` and each directory `*` matches,
 * `secrets/{*,.*}` lists secrets); `walk`: a `**` that matches every path below (`a/**\/b`, or `**` after `shopt -s
 * globstar`).
 */
function patternListings(words: readonly string[], globstar: boolean): { directory: string; walk: boolean }[] {
  const out: { directory: string; walk: boolean }[] = [];
  for (const word of new Set(words)) {
    // `--include=*.py`, `NAME=*`: the shell expands the whole word, in the working directory.
    const parts = word.split("/");
    for (const [i, part] of parts.entries()) {
      if (!PATTERN_RE.test(part)) continue;
      const before = parts.slice(0, i).join("/");
      const directory = i === 0 ? "." : before === "" ? "/" : before;
      const walk = part === "**" && (i < parts.length - 1 || globstar);
      if (!out.some((one) => one.directory === directory && one.walk === walk)) out.push({ directory, walk });
      if (out.length >= 16) return out;
    }
  }
  return out;
}

/** The names a program's code may open: its words that look like paths (`open('.env')`, `getline < ".env"`, `r .env`). */
function codeNames(code: string): string[] {
  return [...new Set(code.split(/[\s'"`(),;{}<>|&=+[\]]+/).filter((token) => token !== "" && /[A-Za-z0-9_.~-]/.test(token) && !/^-/.test(token)))].slice(0, 64);
}

/**
 * Whether the command line `text` reaches a file `rule` covers, the line starting in `start` (absolute). YES with the
 * reason when a command opens one for sure as the rule restricts; UNKNOWN with why when the guard cannot tell; else NO.
 */
export function judgeFileReach(text: string, rule: FileRule, start: string): FileReach {
  const analysis = analyzeShell(text);
  const own = compiled(rule);
  if (!analysis.ok) return { verdict: UNKNOWN, reason: fileReachDoubt("unparsed", text, analysis.reason, rule.mode, rule.source) };
  const { commands } = analysis;
  if (commands.length === 0 && analysis.bare === undefined && analysis.patterns === undefined) return NOT_REACHED;
  const places = commandPlaces(commands, text, normaliseBase(start));
  const looks = (analysis.bare ?? []).length === 0 && walkLooks(commands);
  // `HOME=/srv/app/secrets; cat ~/k`: the line points `~` elsewhere (an assignment, export, declare, read, for or unset of HOME).
  const homeSet = /(?<![$\w{])HOME\b/.test(text);
  // `shopt -s globstar` (bash) makes a `**` alone match every path below; zsh's `**/` always does.
  const globstar = /\bglobstar\b/.test(text);
  let doubt: string | undefined;
  const note = (kind: FileReachDoubt, command: string, word: string) => {
    doubt ??= fileReachDoubt(kind, command, word, rule.mode, rule.source);
  };
  for (const [i, command] of commands.entries()) {
    if (command.construct) continue;
    const where = places[i] ?? start;
    const shown = command.words.join(" ");
    // `GIT_DIR=secrets git log`, `RIPGREP_CONFIG_PATH=f rg KEY`, `LD_PRELOAD=x.so cat a`: files the program reads through its environment.
    for (const setting of command.settings ?? []) {
      const files = environmentFiles(setting.name);
      if (files === undefined) continue;
      const set = `${setting.name}=${setting.value}`;
      if (files.use === "code") {
        // A PATH of absolute directories (or variables: `$HOME/bin:$PATH`) finds the programs the guard reads by name.
        if (setting.name === "PATH" && setting.value.split(":").every((dir) => /^[/$~]/.test(dir))) continue;
        note("environment", `${set} ${shown}`, setting.name);
        continue;
      }
      if (!restricts(own.access, "read")) continue;
      if (files.use === "options") note("environment", `${set} ${shown}`, setting.name);
      const placed = place(setting.value, setting.dynamic, where, homeSet);
      const verdict = files.use === "walk" ? judgeWalk(placed, own, false) : judgePlaced(placed, own, setting.dynamic);
      if (verdict === YES && files.use !== "walk") return { verdict: YES, reason: fileReachReason(`${set} ${shown}`, "reads", setting.value, rule.mode, rule.source) };
      if (verdict === YES) return { verdict: YES, reason: fileReachReason(`${set} ${shown}`, "reads", `${setting.value} (programs read the files under the directory ${setting.name} names: a repository, a work tree, their configuration)`, rule.mode, rule.source) };
      // A directory that holds protected files (`GIT_WORK_TREE=. git diff`, `HOME=. git log`) is read as the program reads it
      // without the variable (its configuration files, its work tree); a place the guard cannot tell (`GIT_DIR=$D`) may be one.
      if (verdict === UNKNOWN && !("absolute" in placed)) note(placed.doubt, `${set} ${shown}`, setting.value);
      else if (verdict === UNKNOWN && files.use !== "walk") note("program", `${set} ${shown}`, setting.value);
    }
    const { uses, runner } = commandUses(command);
    if (runner && (command.redirects ?? []).length === 0 && !uses.some((one) => one.own === true)) continue;
    const wild = command.wild;
    const isWild = (word: string) => wild !== undefined && (wild.has(word) || [...wild].some((one) => one.includes(word)));
    // `ls secrets`, `ls -R`, `find .`, `tree`: the names inside a directory a rule covers are its contents, as for LS and
    // Glob; a rule on files (`.env`) is not reached by printing their names.
    if (own.inside !== undefined && restricts(own.access, "read")) {
      for (const { word, depth, visible } of listedPlaces(command.words) ?? []) {
        const placed = place(word, isWild(word), where, homeSet);
        // A directory reached through a link (`ls -R link`, `rg --files link`) is listed where the link leads.
        const itself = judgePlaced(placed, own, isWild(word));
        const verdict = depth === "in" || itself === YES ? itself : judgeWalk(placed, own, visible);
        if (verdict === YES) return { verdict: YES, reason: listingReason(`\`${shown}\``, word, rule.mode, rule.source) };
        if (verdict === UNKNOWN && !coveredDirectoriesAbsent(own)) doubt ??= listingDoubt(`\`${shown}\``, word === "." ? "the names under the working directory" : `the names under ${word}`, rule.mode, rule.source);
      }
    }
    for (const { word, use, maybe, admits, filter, own: opened } of uses) {
      if (!restricts(own.access, use)) continue;
      if (runner && opened !== true && !(command.redirects ?? []).some((redirect) => redirect.word === word)) continue;
      // `sha256sum -c SUMS`: the files SUMS names are read too, only known when it runs; SUMS itself is read below.
      if (use === "list") note("list", shown, word);
      if (use === "unknown" || use === "code") {
        const candidates = use === "code" ? codeNames(word) : unknownWordPlaces(word);
        // `make -C sub -f ../secrets/k`: the program reads its words in the directory its option picks, as well as here.
        const wheres = [where, ...movedTo(command, where)];
        for (const candidate of candidates.flatMap((one) => (/^[/~]/.test(one) ? [[one, where] as const] : wheres.map((at) => [one, at] as const)))) {
          const placed = place(candidate[0], isWild(word), candidate[1], homeSet);
          const verdict = judgePlaced(placed, own, false);
          if (verdict === NO) continue;
          // A program the guard does not know: whether it opens what its words name cannot be told.
          if (verdict === YES || "absolute" in placed || use === "code") note(use === "code" ? "code" : "program", shown, candidate[0]);
          else note(placed.doubt, shown, candidate[0]);
        }
        continue;
      }
      const placed = place(word, isWild(word), where, homeSet);
      if (use === "walk" || use === "walk-visible" || use === "walk-write") {
        const verdict = judgeWalk(placed, own, use === "walk-visible", admits, filter, use !== "walk-write" && looks);
        if (verdict === YES) return { verdict: YES, reason: fileReachReason(shown, use === "walk-write" ? "writes" : "reads", word === "." ? "the working directory and the files under it" : `${word} and the files under it`, rule.mode, rule.source) };
        if (verdict === UNKNOWN) note(use === "walk-write" ? "walk-write" : "walk", shown, word);
        continue;
      }
      const verdict = judgePlaced(placed, own, isWild(word));
      if (verdict === YES && maybe !== true) return { verdict: YES, reason: fileReachReason(shown === "" ? word : shown, VERB[use] ?? "reads", word, rule.mode, rule.source) };
      if (verdict === YES) note("into", shown, word);
      else if (verdict === UNKNOWN) note("absolute" in placed ? "program" : placed.doubt, shown, word);
    }
    // `echo secrets/*`, `stat secrets/*`, `for f in */*`: the shell lists the directory a file name pattern expands in and
    // hands the names inside it to any program, which prints them as `ls secrets` does.
    if (own.inside !== undefined && restricts(own.access, "read")) {
      for (const { directory, walk } of patternListings(patternWords(command, isWild), globstar)) {
        const placed = place(directory, PATTERN_RE.test(directory), where, homeSet);
        const itself = judgePlaced(placed, own, PATTERN_RE.test(directory));
        const verdict = !walk || itself === YES ? itself : judgeWalk(placed, own, false);
        if (verdict === YES) return { verdict: YES, reason: listingReason(`\`${shown}\``, directory, rule.mode, rule.source) };
        if (verdict === UNKNOWN && !coveredDirectoriesAbsent(own)) doubt ??= listingDoubt(`\`${shown}\``, directory === "." ? "the names under the working directory" : `the names under ${directory}`, rule.mode, rule.source);
      }
    }
    // `ls | xargs cat`: the words xargs adds are only known when the line runs.
    if (command.input !== undefined && !runner) {
      const read = readFileUses([...command.words.slice(0, command.input.at), "\u0000input"]);
      const added = read.uses.find((one) => one.word === "\u0000input")?.use ?? "unknown";
      if (restricts(own.access, added) || (!read.known && added === "unknown")) note("input", shown, command.input.by);
    }
  }
  // `for f in secrets/*`: a loop's patterns list the directories they expand in, where the line is at that point.
  if (own.inside !== undefined && restricts(own.access, "read")) {
    for (const { at, word, shown } of analysis.patterns ?? []) {
      // Where the loop's first command runs (a `cd` before the loop moved it), else where the line is after the commands before it.
      const moved = commands.slice(0, at).some((command) => ["cd", "pushd", "popd"].includes(basename(command.words[0] ?? "")));
      const where = places[at] ?? (moved ? "~-" : normaliseBase(start));
      for (const { directory, walk } of patternListings([word], globstar)) {
        const placed = place(directory, PATTERN_RE.test(directory), where, homeSet);
        const itself = judgePlaced(placed, own, PATTERN_RE.test(directory));
        const verdict = !walk || itself === YES ? itself : judgeWalk(placed, own, false);
        if (verdict === YES) return { verdict: YES, reason: listingReason(`\`${shown}\``, directory, rule.mode, rule.source) };
        if (verdict === UNKNOWN && !coveredDirectoriesAbsent(own)) doubt ??= listingDoubt(`\`${shown}\``, directory === "." ? "the names under the working directory" : `the names under ${directory}`, rule.mode, rule.source);
      }
    }
  }
  for (const bare of analysis.bare ?? []) {
    // A redirection alone (`> .env`): where the line is at that point (after a `cd`, the guard does not place it).
    const moved = commands.slice(0, bare.at).some((command) => ["cd", "pushd", "popd"].includes(basename(command.words[0] ?? "")));
    const where = moved ? "~-" : normaliseBase(start);
    for (const redirect of bare.redirects) {
      const use: FileUse = redirect.reads && redirect.writes ? "read-write" : redirect.reads ? "read" : "write";
      if (!restricts(own.access, use)) continue;
      const placed = place(redirect.word, redirect.wild, where, homeSet);
      const verdict = judgePlaced(placed, own, redirect.wild);
      const shown = `${redirect.reads ? "<" : ">"} ${redirect.word}`;
      if (verdict === YES) return { verdict: YES, reason: fileReachReason(shown, VERB[use] ?? "writes", redirect.word, rule.mode, rule.source) };
      if (verdict === UNKNOWN) note("absolute" in placed ? "program" : placed.doubt, shown, redirect.word);
    }
  }
  return doubt === undefined ? NOT_REACHED : { verdict: UNKNOWN, reason: doubt };
}

/** A search tool's arguments, as Claude Code's Grep and Glob and LangChain deep agents' grep and glob take them. */
export interface SearchCall {
  readonly pattern?: unknown;
  readonly path?: unknown;
  readonly glob?: unknown;
  readonly type?: unknown;
}

const shellQuoted = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
const textOf = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/**
 * How a tool family reads its paths: Claude Code's (`claude`: Glob's pattern as ripgrep's `--glob` reads it, a pattern
 * without a slash matching at any depth) or LangChain deep agents' (`deep`: glob's pattern relative to its `path`, a
 * leading `/` dropped, `path` "/" or none the backend's root; and a backend in virtual mode reading every path under its
 * root: `/secrets/k` is ROOT/secrets/k).
 */
type PathFamily = "claude" | "deep";

/**
 * Whether a search tool's call reaches a file `rule` covers, from `start`. A content search is read as the command line
 * it runs: Claude Code's Grep as ripgrep (`rg --glob G --type T -e PATTERN -- PATH`: hidden files and directories skipped
 * when it walks), another grep as `grep -r --include=G -e PATTERN -- PATH` (hidden files searched too: what it runs is
 * not known). A listing (`Glob`, `LS`) reaches the rule's files when the directory it lists from, its `path` joined with
 * the pattern's leading directories, is one the rule covers (the names inside a covered directory are its contents), or
 * when, from above, the names it may list include names inside such a directory (UNKNOWN). A deep agent's paths are
 * also read as a backend in virtual mode reads them (virtualReach).
 */
export function judgeSearchReach(tool: string, use: "search" | "search-visible" | "list", call: SearchCall, rule: FileRule, start: string, family: PathFamily = "claude"): FileReach {
  const base = normaliseBase(start);
  const real = family === "deep" && use === "list" && tool.toLowerCase() === "glob" ? { ...call, path: textOf(call.path) === "/" ? "." : call.path, pattern: textOf(call.pattern)?.replace(/^\/+/, "") } : call;
  const out = searchReach(tool, use, real, rule, base, family);
  if (out.verdict === YES || family !== "deep") return out;
  // The same call as a backend in virtual mode reads it: its path under the root (pathBase), and under a root the policy
  // does not know.
  const path = textOf(call.path) ?? "/";
  const virtual = virtualPlace(path);
  if (virtual === undefined) return out;
  // A listing's directory (its path and the pattern's leading directories), under a root the policy does not know.
  const listed = use === "list" ? virtualPlace(listingDirectory(tool, real).directory.replace(/^\.(?=\/|$)/, "")) : virtual;
  if (base !== "/") {
    const under = searchReach(tool, use, { ...real, path: virtual === "" ? "." : virtual }, rule, base, family);
    if (under.verdict === YES) return under.reason === undefined ? under : { verdict: YES, reason: `${under.reason} (${virtualPathReason(tool, path, posix.join(base, virtual), rule.mode, rule.source)})` };
    return under.verdict === UNKNOWN && out.verdict === NO ? under : out;
  }
  // Without pathBase the root is not known: a place under it that may be, or hold, a covered file cannot be told, unless
  // the search's own filters keep every covered file out.
  const walk = use !== "list" ? searchWords(use, real) : undefined;
  const kept = walk === undefined ? false : (() => {
    const one = readFileUses(walk).uses.find((item) => item.use === "walk" || item.use === "walk-visible");
    const own = compiled(rule);
    return one !== undefined && ((one.use === "walk-visible" && own.hiddenLeaf && !admitsAny(one.admits ?? [], own.hiddenNames)) || filteredOut(one.filter, own));
  })();
  if (out.verdict === NO && !kept && listed !== undefined && unknownRootReaches(listed, rule, use !== "list")) return { verdict: UNKNOWN, reason: virtualPathDoubt(tool, path, rule.mode, rule.source) };
  return out;
}

/** The command line a content search runs: Claude Code's Grep as ripgrep, another grep as `grep -r`. */
function searchWords(use: "search" | "search-visible", call: SearchCall): string[] {
  const path = textOf(call.path);
  const pattern = textOf(call.pattern) ?? "";
  const glob = textOf(call.glob);
  const type = textOf(call.type);
  return use === "search-visible"
    ? ["rg", ...(glob === undefined ? [] : ["--glob", glob]), ...(type === undefined ? [] : ["--type", type]), "-e", pattern, "--", path ?? "."]
    : ["grep", "-r", ...(glob === undefined ? [] : [`--include=${glob}`]), "-e", pattern, "--", path ?? "."];
}

/** The directory a listing lists from (its `path` joined with the glob pattern's leading directories) and those directories. */
function listingDirectory(tool: string, call: SearchCall): { directory: string; leading: string[] } {
  const path = textOf(call.path);
  const pattern = textOf(call.pattern) ?? "";
  const isGlob = tool.toLowerCase() === "glob";
  const leading: string[] = [];
  const names = isGlob ? pattern.replace(/\\/g, "/").split("/") : [];
  for (const name of names) {
    if (/[*?[\]{}()!]/.test(name)) break;
    leading.push(name);
  }
  // The last name of a pattern with no wildcard is what it matches, not a directory it lists.
  if (isGlob && leading.length === names.length) leading.pop();
  const prefix = leading.join("/");
  const directory = prefix.startsWith("/") ? prefix : path === undefined ? prefix || "." : prefix === "" ? path : `${path.replace(/\/+$/, "")}/${prefix}`;
  return { directory, leading };
}

function searchReach(tool: string, use: "search" | "search-visible" | "list", call: SearchCall, rule: FileRule, base: string, family: PathFamily): FileReach {
  const path = textOf(call.path);
  const pattern = textOf(call.pattern) ?? "";
  if (use === "list") {
    const own = compiled(rule);
    const isGlob = tool.toLowerCase() === "glob";
    const { directory, leading } = listingDirectory(tool, call);
    const placed = place(directory, false, base);
    if (!("absolute" in placed)) return NOT_REACHED;
    // A directory reached through a link is listed where the link leads.
    if (covers(own, placed.absolute) || (own.followSymlinks && judgePlaced(placed, own, false) === YES)) return { verdict: YES, reason: listingReason(tool, directory, rule.mode, rule.source) };
    // From above: the names listed are the paths the pattern matches there (ripgrep's `--glob` matches a pattern without a
    // slash at any depth; a deep agent's glob matches it in the directory; LS lists the directory's own names).
    if (own.inside === undefined) return NOT_REACHED;
    const rest = isGlob ? pattern.replace(/\\/g, "/").split("/").slice(leading.length).join("/") : "*";
    if (rest === "") return NOT_REACHED;
    const listed = [...wordTokens(placed.absolute === "/" ? "" : placed.absolute), SLASH, ...(isGlob && family === "claude" && !pattern.includes("/") ? [GLOBSTAR, SLASH] : []), ...patternTokens(rest)];
    return own.inside.some((shape) => overlaps(listed, shape) !== false) && !coveredDirectoriesAbsent(own) ? { verdict: UNKNOWN, reason: listingDoubt(tool, isGlob ? `${JSON.stringify(pattern)} from ${path ?? "."}` : `the names in ${directory}`, rule.mode, rule.source) } : NOT_REACHED;
  }
  const reach = judgeFileReach(searchWords(use, call).map(shellQuoted).join(" "), rule, base);
  if (reach.verdict === NO || reach.reason === undefined) return reach;
  return { verdict: reach.verdict, reason: searchToolReason(tool, use === "search-visible" ? "ripgrep" : "grep -r", reach.reason) };
}

/**
 * The path a deep agent's backend in virtual mode reads `value` as, relative to its root (deepagents' FilesystemBackend
 * with `virtualMode: true`: a path without a leading `/` gets one; one holding `..` or starting with `~` is refused; what
 * follows the first `/` is resolved against the root, so `//x` is the absolute `/x`): "" for the root itself; undefined
 * when the backend refuses it or reads it where it is written (`//x`).
 */
function virtualPlace(value: string): string | undefined {
  const vpath = value.startsWith("/") ? value : `/${value}`;
  if (vpath.includes("..") || vpath.startsWith("~")) return undefined;
  const rest = vpath.slice(1);
  if (rest.startsWith("/")) return undefined;
  return posix.normalize(rest === "" ? "." : rest).replace(/\/+$/, "").replace(/^\.$/, "");
}

/**
 * Whether `relative` (a virtual path's place under a backend's root) may be a file the rule covers, or (`walk`) hold one
 * below it, for a root the policy does not know, that is not itself inside a covered directory.
 */
function unknownRootReaches(relative: string, rule: FileRule, walk: boolean): boolean {
  const own = compiled(rule);
  const tail = wordTokens(`/${relative}`.replace(/\/$/, ""));
  if (homeOverlaps(tail, own)) return true;
  return walk && homeOverlaps([...(relative === "" ? [] : tail), SLASH, GLOBSTAR], own);
}

/**
 * Whether a deep agent's file tool (read_file, write_file, edit_file) given `value` reaches a file `rule` covers, as a
 * backend in virtual mode reads it: under pathBase, the root the tools run in (YES), or under a root the policy does not
 * know (UNKNOWN). Its reading as written is the path rule's own.
 */
export function judgeVirtualPath(tool: string, value: string, rule: FileRule, start: string): FileReach {
  const relative = virtualPlace(value);
  if (relative === undefined) return NOT_REACHED;
  const base = normaliseBase(start);
  const own = compiled(rule);
  if (base !== "/") {
    const file = relative === "" ? base : posix.join(base, relative);
    return judgePlaced({ absolute: file }, own, false) === YES ? { verdict: YES, reason: virtualPathReason(tool, value, file, rule.mode, rule.source) } : NOT_REACHED;
  }
  return unknownRootReaches(relative, rule, false) ? { verdict: UNKNOWN, reason: virtualPathDoubt(tool, value, rule.mode, rule.source) } : NOT_REACHED;
}

/**
 * Whether a fetch tool's URL reads a file `rule` covers: a `file:` URL, as WHATWG's URL parser reads it (the scheme in any
 * case, blanks around it and tabs and newlines inside it dropped, backslashes as slashes, `.` and `..` resolved), on this
 * machine (no host, or `localhost`) names the file Node's `fileURLToPath` gives it (percent-escapes decoded). YES when the
 * rule covers that file; UNKNOWN when the URL names such a file on another host or with an encoded `/` (which
 * `fileURLToPath` refuses and another reader may decode), or does not parse and may be a `file:` URL; NO otherwise.
 */
export function judgeUrlFileReach(value: string, rule: FileRule): FileReach {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (url === undefined) return /f\s*i\s*l\s*e\s*:/i.test(value) ? { verdict: UNKNOWN, reason: urlFileDoubt(value, "the URL parser cannot read it", rule.mode, rule.source) } : NOT_REACHED;
  if (url.protocol !== "file:") return NOT_REACHED;
  const own = compiled(rule);
  const judge = (file: string) => judgePlaced({ absolute: posix.normalize(file).replace(/(?<=.)\/+$/, "") }, own, false);
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.pathname);
  } catch {
    decoded = url.pathname;
  }
  if (url.hostname !== "" && url.hostname !== "localhost") {
    return judge(decoded) !== NO ? { verdict: UNKNOWN, reason: urlFileDoubt(value, `it names ${decoded} on the host ${url.hostname}`, rule.mode, rule.source) } : NOT_REACHED;
  }
  let file: string;
  try {
    file = fileURLToPath(url);
  } catch {
    return judge(decoded) !== NO ? { verdict: UNKNOWN, reason: urlFileDoubt(value, `${decoded} holds an encoded "/"`, rule.mode, rule.source) } : NOT_REACHED;
  }
  const verdict = judge(file);
  if (verdict === YES) return { verdict: YES, reason: urlFileReason(value, file, rule.mode, rule.source) };
  return verdict === UNKNOWN ? { verdict: UNKNOWN, reason: urlFileDoubt(value, `the guard cannot place ${file}`, rule.mode, rule.source) } : NOT_REACHED;
}
