/**
 * Commands with the effect of another, as data: the programs that delete files as rm does (`unlink x`, `find . -delete`,
 * `shred -u x`, `rsync --delete`, `git clean -f`, `rmdir`, `trash`, `mv x ~/.Trash/`, an interpreter's `os.remove(…)`), and
 * those that destroy a file's content, which leaves the user as little as rm does (`truncate -s 0 x`, `: > x`,
 * `cp /dev/null x`, `dd if=/dev/zero of=x`, `ln -sf /dev/null x`, `shred x`). Under a deny or ask rule on rm, such a line
 * asks (a reviewer decides): each is read as `rm` on what it deletes or destroys, a `maybe` form whose reason names the
 * equivalence ("deletes files like rm", "destroys files' content like rm"). Writing new content (`echo x > f`),
 * appending, copying one file over another and renaming are not: Edit rules speak for those.
 *
 * The programs' words are read through their option tables in programs.ts (`readArguments`, handed in by the caller),
 * as getopt and git's parse-options read them: an option's value is no option (`git clean -f -e -n` deletes), a unique
 * abbreviation is the option (`shred --rem`), `--no-dry-run` undoes `-n`.
 */
import { deletesLikeRmReason, destroysLikeRmReason, unreadDeleterReason } from "../../messages/index.js";
import { UNREAD_WORDS } from "./subcommands.js";

/** A program's arguments read with its option table (programs.ts readArguments). */
interface Arguments {
  readonly options: readonly { readonly name: string; readonly value: string | undefined }[];
  readonly operands: readonly string[];
  /** An option the table does not know: the words after it were not read. */
  readonly unknown?: string;
}

/** Reads a program's arguments (`git clean` for git's subcommand) with its option table; `inOrder`: options end at the first operand. */
type ArgumentReader = (program: string, args: readonly string[], inOrder?: boolean) => Arguments;

/** What a command's words delete or destroy: the files or trees (`recursive`: whole trees, as `rm -r`), and whether it destroys their content rather than their names. */
interface Found {
  readonly targets: readonly string[];
  readonly recursive: boolean;
  readonly destroys?: boolean;
  /** The content kept: every target no larger than this many bytes (`truncate -s 10M`) loses none. */
  readonly keepsUpTo?: number;
}

/**
 * A command a line may run, read as another (`truncate -s 0 x` as `rm x`), with why. `spares`: the targets it destroys
 * nothing of when each is absent or a regular file no larger than `upTo` bytes (`> out.log` on no file, `truncate -s 10M
 * disk.img` growing one); the judge looks only when the line is that one command and the policy names its directory.
 */
export interface MaybeForm {
  readonly form: readonly string[];
  readonly reason: string;
  readonly spares?: { readonly files: readonly string[]; readonly upTo: number };
}

/** GNU truncate's SIZE without a sign (`10M`, `1GiB`, `512K`, `100KB`): bytes, or undefined. */
function absoluteSize(size: string): number | undefined {
  const match = /^(\d+)(?:([KMGTPE])(iB|B)?)?$/.exec(size);
  if (match === null) return undefined;
  const power = match[2] === undefined ? 0 : "KMGTPE".indexOf(match[2]) + 1;
  return Number(match[1]) * (match[3] === "B" ? 1000 : 1024) ** power;
}

/** One program that deletes files or destroys their content: when its words make it do so, and what. */
interface Deleter {
  /** How it deletes, for the reason (`find -delete`). */
  readonly how: string;
  /** The name its option table has in programs.ts (readArguments); none: its words are not getopt's (find, dd, 7z). */
  readonly table?: string;
  /** What it deletes, or undefined when these words delete nothing (`find . -name x`, `git clean -n`); `unread`: its options could not all be read. */
  readonly deletes: (args: Arguments, words: readonly string[], unread: boolean) => Found | undefined;
}

const has = (args: Arguments, ...names: string[]) => args.options.some((option) => names.includes(option.name));

/** The last of the options that turn a switch on (`on`) or off (`off`), or undefined when none is given (`-n … --no-dry-run`). */
function lastSwitch(args: Arguments, on: readonly string[], off: readonly string[]): boolean | undefined {
  let state: boolean | undefined;
  for (const option of args.options) {
    if (on.includes(option.name)) state = true;
    else if (off.includes(option.name)) state = false;
  }
  return state;
}

/** find's start points: the words before its expression (`-name`, `(`, `!`), after its own options (-H, -L, -P, -D x, -O3). */
function findStarts(args: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < args.length && /^-(?:[HLP]+|O\d*|D)$/.test(args[i]!)) i += args[i] === "-D" ? 2 : 1;
  for (; i < args.length; i++) {
    const word = args[i]!;
    if (word.startsWith("-") || word === "(" || word === "!" || word === ",") break;
    out.push(word);
  }
  return out.length === 0 ? ["."] : out;
}

/** Files that read as nothing, or as zeros or noise: copied over a file, they destroy its content. */
const EMPTY_SOURCES = /^(?:\/dev\/(?:null|zero|u?random|full))$/;

/**
 * Trash directories (the FreeDesktop.org Trash specification's `$XDG_DATA_HOME/Trash` and `$topdir/.Trash-$uid`, macOS's
 * `~/.Trash` and `.Trashes`, Windows' `$RECYCLE.BIN`): a file moved there is deleted, as `trash` deletes it.
 */
const TRASH = /(?:^|\/)(?:\.Trash(?:es|-\d+)?|\$RECYCLE\.BIN)(?:\/|$)|(?:^|\/)\.local\/share\/Trash(?:\/|$)|\$\{?XDG_DATA_HOME\}?\/Trash(?:\/|$)/;

/** What `mv` moves into a trash directory (or onto /dev/null): the sources, deleted as `trash` deletes them. */
function movedAway(args: Arguments): Found | undefined {
  const into = args.options.filter((option) => option.name === "-t" || option.name === "--target-directory").at(-1)?.value;
  const destination = into ?? (args.operands.length >= 2 ? args.operands.at(-1) : undefined);
  if (destination === undefined) return undefined;
  const place = destination.replace(/^["']|["']$/g, "");
  if (!TRASH.test(place) && place !== "/dev/null") return undefined;
  return { targets: into === undefined ? args.operands.slice(0, -1) : args.operands, recursive: true };
}

/** A destination in the trash by its URL (GIO's `trash:///`, KIO's `trash:/`). */
const TRASH_URL = /^trash:/i;

/**
 * KDE's `kioclient` (5, 6): `move SRC… trash:/` (also `mv`) moves files to the trash, `remove URL…` (also `rm`) deletes
 * them; GIO's `gio move SRC… trash:///` likewise.
 */
function clientMoved(args: Arguments, removes: readonly string[]): Found | undefined {
  const [command, ...rest] = args.operands;
  if (command === undefined) return undefined;
  if (removes.includes(command)) return { targets: rest, recursive: true };
  if ((command === "move" || command === "mv") && rest.length >= 2 && TRASH_URL.test(rest.at(-1)!)) return { targets: rest.slice(0, -1), recursive: true };
  return undefined;
}

/**
 * `sed -i` whose script leaves nothing: `-n` with no command that prints (`sed -i -n '' F`), or a script that deletes
 * every line (`d`, `1,$d`, `/.*\/d`). Other in-place edits write new content: Edit rules speak for them.
 */
function sedEmptied(args: Arguments): Found | undefined {
  if (!has(args, "-i", "--in-place") || has(args, "-f", "--file", "--help", "--version")) return undefined;
  const given = args.options.filter((option) => option.name === "-e" || option.name === "--expression").map((option) => option.value ?? "");
  const scripts = given.length > 0 ? given : args.operands.slice(0, 1);
  const files = given.length > 0 ? args.operands : args.operands.slice(1);
  if (scripts.length === 0 || files.length === 0) return undefined;
  const script = scripts.join("\n");
  const quiet = has(args, "-n", "--quiet", "--silent") || /^#n(?:\n|$)/.test(script);
  // (A quiet script that prints nothing: no p, P, l, =, w, r, R, a, i, c, e command; a letter of them anywhere counts.)
  const prints = /[pPl=wWrRaicev]/.test(script.replace(/^#n/, ""));
  const deletesAll = /^\s*(?:1\s*,\s*\$|\/\.\*\/|\/\^\/)?\s*d\s*;?\s*$/.test(script);
  if (!(quiet && !prints) && !deletesAll) return undefined;
  return { targets: files, recursive: false, destroys: true };
}

/** `fallocate -p`, `-z`, `-c` (and their long names): the range they punch, zero or collapse loses what it held. */
function fallocated(args: Arguments): Found | undefined {
  if (!has(args, "-p", "--punch-hole", "-z", "--zero-range", "-c", "--collapse-range")) return undefined;
  return { targets: args.operands, recursive: false, destroys: true };
}

/** `truncate`: cuts its files' content unless every size only grows them (`-s +1K`, `-s '>100'`); `-r FILE` may shrink them. */
function truncated(args: Arguments): Found | undefined {
  if (has(args, "--help", "--version")) return undefined;
  const sizes = args.options.filter((option) => option.name === "-s" || option.name === "--size").map((option) => option.value ?? "");
  const reference = has(args, "-r", "--reference");
  if (sizes.length === 0 && !reference) return undefined;
  if (!reference && sizes.every((size) => /^[+>]/.test(size))) return undefined;
  const last = reference ? undefined : absoluteSize(sizes.at(-1)!);
  return { targets: args.operands, recursive: false, destroys: true, ...(last === undefined || sizes.length !== 1 ? {} : { keepsUpTo: last }) };
}

/** Programs that delete files or destroy their content, by name. */
const DELETERS: Readonly<Record<string, Deleter>> = {
  unlink: { how: "unlink", table: "unlink", deletes: (args) => (has(args, "--help", "--version") ? undefined : { targets: args.operands, recursive: false }) },
  rmdir: { how: "rmdir", table: "rmdir", deletes: (args) => (has(args, "--help", "--version") ? undefined : { targets: args.operands, recursive: false }) },
  find: {
    how: "find -delete",
    deletes: (_args, words) => (words.includes("-delete") ? { targets: findStarts(words), recursive: true } : undefined),
  },
  shred: {
    how: "shred",
    table: "shred",
    // shred overwrites its files' content whether or not it then removes them (-u, --remove[=HOW]).
    deletes: (args) => (has(args, "--help", "--version") ? undefined : has(args, "-u", "--remove") ? { targets: args.operands, recursive: false } : { targets: args.operands, recursive: false, destroys: true }),
  },
  rsync: {
    how: "rsync --delete",
    table: "rsync",
    deletes: (args) => {
      const source = has(args, "--remove-source-files", "--remove-sent-files");
      const destination = args.options.some((option) => /^--del(?:ete(?:-\w+)?)?$/.test(option.name));
      if (!source && !destination) return undefined;
      return { targets: [...(source ? args.operands.slice(0, -1) : []), ...(destination ? args.operands.slice(-1) : [])], recursive: true };
    },
  },
  srm: { how: "srm", table: "srm", deletes: (args) => ({ targets: args.operands, recursive: args.options.some((option) => /^-[a-zA-Z]*r|^--recursive$/.test(option.name)) }) },
  wipe: { how: "wipe", table: "wipe", deletes: (args) => ({ targets: args.operands, recursive: args.options.some((option) => /^-[a-zA-Z]*r/.test(option.name)) }) },
  trash: { how: "trash", table: "trash", deletes: (args) => ({ targets: args.operands, recursive: true }) },
  "trash-put": { how: "trash-put", table: "trash-put", deletes: (args) => ({ targets: args.operands, recursive: true }) },
  "gvfs-trash": { how: "gvfs-trash", table: "gvfs-trash", deletes: (args) => ({ targets: args.operands, recursive: true }) },
  gio: { how: "gio trash", table: "gio", deletes: (args) => (args.operands[0] === "trash" || args.operands[0] === "remove" ? { targets: args.operands.slice(1), recursive: args.operands[0] === "trash" } : clientMoved(args, [])) },
  kioclient: { how: "kioclient move to the trash", deletes: (args) => clientMoved(args, ["remove", "rm"]) },
  kioclient5: { how: "kioclient move to the trash", deletes: (args) => clientMoved(args, ["remove", "rm"]) },
  kioclient6: { how: "kioclient move to the trash", deletes: (args) => clientMoved(args, ["remove", "rm"]) },
  rmtrash: { how: "rmtrash", deletes: (args) => ({ targets: args.operands, recursive: true }) },
  sed: { how: "sed -i leaving nothing", table: "sed", deletes: sedEmptied },
  fallocate: { how: "fallocate", table: "fallocate", deletes: fallocated },
  tar: { how: "tar --remove-files", table: "tar", deletes: (args, words) => (has(args, "--remove-files") || words.includes("--remove-files") ? { targets: [UNREAD_WORDS], recursive: true } : undefined) },
  zip: { how: "zip -m", table: "zip", deletes: (args) => (has(args, "-m", "--move") ? { targets: [UNREAD_WORDS], recursive: true } : undefined) },
  "7z": { how: "7z -sdel", deletes: (_args, words) => (words.includes("-sdel") ? { targets: [UNREAD_WORDS], recursive: true } : undefined) },
  mv: { how: "mv into the trash", table: "mv", deletes: movedAway },
  truncate: { how: "truncate", table: "truncate", deletes: truncated },
  cp: {
    how: "cp /dev/null",
    table: "cp",
    deletes: (args) => {
      if (has(args, "-t", "--target-directory") || args.operands.length < 2) return undefined;
      return args.operands.slice(0, -1).every((source) => EMPTY_SOURCES.test(source)) ? { targets: args.operands.slice(-1), recursive: false, destroys: true } : undefined;
    },
  },
  install: {
    how: "install /dev/null",
    table: "install",
    deletes: (args) => {
      if (has(args, "-t", "--target-directory", "-d", "--directory") || args.operands.length < 2) return undefined;
      return args.operands.slice(0, -1).every((source) => EMPTY_SOURCES.test(source)) ? { targets: args.operands.slice(-1), recursive: false, destroys: true } : undefined;
    },
  },
  ln: {
    how: "ln -f /dev/null",
    table: "ln",
    deletes: (args) => (has(args, "-f", "--force") && args.operands.length === 2 && args.operands[0] === "/dev/null" ? { targets: args.operands.slice(1), recursive: false, destroys: true } : undefined),
  },
  dd: {
    how: "dd of=",
    // dd's words are `key=value` operands, no options.
    deletes: (_args, words) => {
      const input = words.filter((word) => word.startsWith("if=")).at(-1)?.slice(3);
      const output = words.filter((word) => word.startsWith("of=")).at(-1)?.slice(3);
      if (output === undefined || EMPTY_SOURCES.test(output)) return undefined;
      if (input !== undefined && EMPTY_SOURCES.test(input)) return { targets: [output], recursive: false, destroys: true };
      // `dd of=F count=0`: dd truncates F where it starts writing (unless conv=notrunc) and writes nothing.
      const count = words.filter((word) => word.startsWith("count=")).at(-1)?.slice(6);
      const notrunc = words.some((word) => word.startsWith("conv=") && word.split(/[=,]/).includes("notrunc"));
      return count !== undefined && /^0+[a-zA-Z]*$/.test(count) && !notrunc ? { targets: [output], recursive: false, destroys: true } : undefined;
    },
  },
};

/** `git clean` (not `-n`, `--dry-run`, `-i`, unless undone by `--no-…` after them): deletes the untracked files under its pathspecs (with -d, directories too). */
const GIT_CLEAN: Deleter = {
  how: "git clean",
  deletes: (args, _words, unread) => {
    // (Its options unread, a dry run or an interactive one cannot be told from one that deletes.)
    if (!unread && (lastSwitch(args, ["-n", "--dry-run"], ["--no-dry-run"]) === true || lastSwitch(args, ["-i", "--interactive"], ["--no-interactive"]) === true)) return undefined;
    if (has(args, "-h")) return undefined;
    return { targets: args.operands.length === 0 ? ["."] : args.operands, recursive: true };
  },
};

/**
 * Calls that delete files in the interpreters' languages (Python, Perl, Ruby, Node, PHP, Lua, Tcl, Java's Files.delete),
 * cut their content (`os.truncate`, Perl's `truncate "f", 0`, `File.truncate`, `ftruncate`), or have Finder move them to
 * the trash (AppleScript's `tell application "Finder" to delete …`, `move … to trash`).
 */
export const DELETE_CALLS = /\bf?truncate(?:Sync)?\s*[("'$]|\bFinder\b[\s\S]*\b(?:delete|to\s+(?:the\s+)?trash)\b|\bunlink|\brmdir|\brmtree\b|\bremove_tree\b|\bos\.remove|\brmSync\b|\bfs(?:\.promises)?\.rm\s*\(|\bFile\.delete\b|\bFiles\.delete|\bFileUtils\.(?:rm|remove)|\bfile\s+delete\b|\bsend2trash\b|\bRemove-Item\b|\bos\.RemoveAll\b/;

/** The words of a program without a table (kioclient, rmtrash): each word with a dash an option without a value, up to `--`. */
function plainArguments(args: readonly string[]): Arguments {
  const end = args.indexOf("--");
  const before = end < 0 ? args : args.slice(0, end);
  return { options: before.filter((word) => word.startsWith("-") && word !== "-").map((name) => ({ name, value: undefined })), operands: [...before.filter((word) => !word.startsWith("-") || word === "-"), ...(end < 0 ? [] : args.slice(end + 1))] };
}

/** A reading of words whose options could not all be read: every word with a dash an option, what it deletes unread. */
function unreadArguments(args: readonly string[]): Arguments {
  return { options: args.filter((word) => word.startsWith("-") && word !== "-").map((name) => ({ name: name.replace(/=.*$/s, ""), value: undefined })), operands: [UNREAD_WORDS] };
}

/**
 * The deletion or destruction a command makes, read as `rm` (`unlink x` as `rm x`, `find d -delete` as `rm -r -f d`,
 * `truncate -s 0 x` as `rm x`), with why, when its words delete files or destroy their content; undefined otherwise.
 * `rm` itself and its spellings are read elsewhere (programs.ts). `read` reads a program's options with its table.
 */
export function deletionOf(words: readonly string[], name: string, read: ArgumentReader): MaybeForm | undefined {
  let args = words.slice(1);
  let deleter: Deleter | undefined;
  let table: string | undefined;
  if (name === "git") {
    // git's own options, then the subcommand and its options (`git -C DIR clean -fd`).
    const global = read("git", args, true);
    if (global.unknown !== undefined || global.operands[0] !== "clean") return undefined;
    deleter = GIT_CLEAN;
    table = "git clean";
    args = global.operands.slice(1);
  } else if (Object.hasOwn(DELETERS, name)) {
    deleter = DELETERS[name]!;
    table = deleter.table;
  }
  if (deleter === undefined) return undefined;
  const parsed = table === undefined ? plainArguments(args) : read(table, args);
  const unread = parsed.unknown !== undefined;
  const found = deleter.deletes(unread ? unreadArguments(args) : parsed, args, unread);
  if (found === undefined) return undefined;
  const shown = words.join(" ");
  const form = ["rm", ...(found.recursive ? ["-r", "-f"] : []), ...(found.targets.length === 0 ? [UNREAD_WORDS] : found.targets)];
  if (unread) return { form: ["rm", "-r", "-f", UNREAD_WORDS], reason: unreadDeleterReason(shown, deleter.how, parsed.unknown!) };
  // No operand: the words come from elsewhere (`xargs unlink < list`), which the guard does not read.
  if (found.keepsUpTo !== undefined && found.targets.length > 0) return { form, reason: destroysLikeRmReason(shown, deleter.how), spares: { files: found.targets, upTo: found.keepsUpTo } };
  return { form, reason: found.destroys === true ? destroysLikeRmReason(shown, deleter.how) : deletesLikeRmReason(shown, deleter.how) };
}

/** Why a command that deletes files is read as rm. */
export function deletesLikeRm(shown: string, how: string): string {
  return deletesLikeRmReason(shown, how);
}

/** Programs that write what their standard input holds and nothing else, given no file (`cat`, `cat -`). */
const COPIES_INPUT = new Set(["cat", "tac", "head", "tail", "sort", "uniq"]);

/**
 * The files a program that copies its standard input over them empties when that input is empty (`tee F < /dev/null`,
 * `: | tee F`, `: | sponge F`, `dd of=F < /dev/null`), read as `rm F`, with why; undefined when it appends (`tee -a`,
 * `sponge -a`, `dd conv=notrunc`) or its input holds something.
 */
export function inputSinksEmptied(words: readonly string[], read: ArgumentReader): { readonly form: readonly string[]; readonly reason: string } | undefined {
  const name = words[0]?.replace(/^.*\//, "") ?? "";
  let targets: readonly string[] = [];
  if (name === "tee") {
    const args = read("tee", words.slice(1));
    if (args.unknown !== undefined || has(args, "-a", "--append", "--help", "--version")) return undefined;
    targets = args.operands;
  } else if (name === "sponge") {
    if (words.includes("-a")) return undefined;
    targets = words.slice(1).filter((word) => !word.startsWith("-"));
  } else if (name === "dd") {
    if (words.some((word) => word.startsWith("if=")) || words.some((word) => word.startsWith("conv=") && word.split(/[=,]/).includes("notrunc"))) return undefined;
    targets = words.filter((word) => word.startsWith("of=")).slice(-1).map((word) => word.slice(3));
  }
  targets = targets.filter((file) => !NOT_EMPTIED.test(file) && !EMPTY_SOURCES.test(file));
  if (targets.length === 0) return undefined;
  return { form: ["rm", ...targets], reason: destroysLikeRmReason(`${words.join(" ")}`, `${name} of an empty input`) };
}

/** Files a redirection to which empties nothing: the null device, the streams, the terminal, a descriptor. */
const NOT_EMPTIED = /^\/dev\/(?:null|stdout|stderr|stdin|tty|fd\/\d+)$/;

/**
 * The file a redirection empties (`: > F`, `> F`, `true > F`, `cat /dev/null > F`, `echo -n > F`, `printf '' > F`), read
 * as `rm F`, with why; undefined when the command writes something (`echo x > F` is new content: Edit rules speak) or the
 * redirection appends. `words`: the command's words, or undefined for a redirection with no command.
 */
export function emptiedBy(words: readonly string[] | undefined, file: string, emptyInput = false): MaybeForm | undefined {
  if (NOT_EMPTIED.test(file)) return undefined;
  const name = words?.[0]?.replace(/^.*\//, "");
  const silent =
    words === undefined ||
    // `exec 3>F`, `exec >F`: the shell opens F (truncating it) for the rest of the line.
    (name === "exec" && words.length === 1) ||
    // `echo > F`, `echo '' > F`: a newline for the content.
    (name === "echo" && words.slice(1).every((word) => word === "")) ||
    // `head -c 0 x > F`, `head -n0 x > F`: nothing of its input.
    (name === "head" && words.slice(1).some((word, i, rest) => /^(?:-[cn]\s*0+|--(?:bytes|lines)=0+)$/.test(word) || (/^-[cn]$|^--(?:bytes|lines)$/.test(word) && /^0+$/.test(rest[i + 1] ?? "")))) ||
    // `cat < /dev/null > F`: what it copies is nothing.
    (emptyInput && COPIES_INPUT.has(name ?? "") && words.slice(1).every((word) => word === "-")) ||
    name === ":" ||
    name === "true" ||
    name === "false" ||
    (name === "cat" && words.length > 1 && words.slice(1).every((word) => word === "/dev/null")) ||
    // `echo -n` of nothing but empty words; `printf` of a format that writes nothing (``, `%s`, `%b`) of empty words.
    (name === "echo" && words[1] === "-n" && words.slice(2).every((word) => word === "")) ||
    (name === "printf" && words.length >= 2 && /^(?:%[sb])*$/.test(words[1]!) && words.slice(2).every((word) => word === ""));
  if (!silent) return undefined;
  const shown = words === undefined ? `> ${file}` : `${words.join(" ")} > ${file}`;
  return { form: ["rm", file], reason: destroysLikeRmReason(shown, "a redirection that empties it"), spares: { files: [file], upTo: 0 } };
}
