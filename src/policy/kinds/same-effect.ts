/**
 * Commands with the effect of another, as data: the programs that delete files as rm does (`unlink x`, `find . -delete`,
 * `shred -u x`, `rsync --delete`, `git clean -f`, `rmdir`, `trash`, an interpreter's `os.remove(…)`). Under a deny or
 * ask rule on rm, such a line asks (a reviewer decides): each is read as `rm` on what it deletes, a `maybe` form whose
 * reason names the equivalence ("deletes files like rm"). Moving a file (`mv x /tmp/trash`) and emptying it
 * (`truncate -s 0 x`, `: > x`) are not deleting it: Edit rules speak for those.
 */
import { UNREAD_WORDS } from "./subcommands.js";

/** One program that deletes files: when its words make it delete, and what (`recursive`: whole trees, as `rm -r`). */
interface Deleter {
  /** How it deletes, for the reason (`find -delete`). */
  readonly how: string;
  /** The files or trees it deletes, or undefined when these words delete nothing (`find . -name x`, `git clean -n`). */
  readonly deletes: (args: readonly string[]) => { readonly targets: readonly string[]; readonly recursive: boolean } | undefined;
}

/** The words that are no option (after `--`, every word). */
function operands(args: readonly string[], valued: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === "--") {
      out.push(...args.slice(i + 1));
      break;
    }
    if (word.startsWith("-") && word !== "-") {
      if (valued.has(word)) i += 1;
      continue;
    }
    out.push(word);
  }
  return out;
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

/** Programs that delete files, by name. */
const DELETERS: Readonly<Record<string, Deleter>> = {
  unlink: { how: "unlink", deletes: (args) => ({ targets: operands(args), recursive: false }) },
  rmdir: { how: "rmdir", deletes: (args) => ({ targets: operands(args), recursive: false }) },
  find: {
    how: "find -delete",
    deletes: (args) => (args.includes("-delete") ? { targets: findStarts(args), recursive: true } : undefined),
  },
  shred: {
    how: "shred -u",
    deletes: (args) => {
      // `-u`, `-fuz`, `-zu -n3`, `--remove`, `--remove=wipesync` (a cluster's letters up to -n or -s, which take the rest).
      const removes = args.some((word) => /^--remove(?:=|$)/.test(word) || /^-[fvxzu]*u[fvxzu]*(?:[ns].*)?$/.test(word));
      return removes ? { targets: operands(args, new Set(["-n", "-s", "--iterations", "--size", "--random-source"])), recursive: false } : undefined;
    },
  },
  rsync: {
    how: "rsync --delete",
    deletes: (args) => {
      const files = operands(args, new Set(["-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "-T", "--temp-dir", "--backup-dir", "--suffix", "--chmod", "--chown", "--port", "--password-file", "--log-file", "-B", "--block-size", "--bwlimit", "--timeout", "--contimeout", "--max-size", "--min-size", "--max-delete", "--compare-dest", "--copy-dest", "--link-dest", "--partial-dir", "--rsync-path", "--out-format", "--usermap", "--groupmap", "-M", "--remote-option"]));
      const source = args.includes("--remove-source-files") || args.includes("--remove-sent-files");
      const destination = args.some((word) => /^--del(?:ete(?:-\w+)?)?$/.test(word));
      if (!source && !destination) return undefined;
      return { targets: [...(source ? files.slice(0, -1) : []), ...(destination ? files.slice(-1) : [])], recursive: true };
    },
  },
  srm: { how: "srm", deletes: (args) => ({ targets: operands(args), recursive: args.some((word) => /^-[a-zA-Z]*r|^--recursive$/.test(word)) }) },
  wipe: { how: "wipe", deletes: (args) => ({ targets: operands(args), recursive: args.some((word) => /^-[a-zA-Z]*r/.test(word)) }) },
  trash: { how: "trash", deletes: (args) => ({ targets: operands(args), recursive: true }) },
  "trash-put": { how: "trash-put", deletes: (args) => ({ targets: operands(args), recursive: true }) },
  "gvfs-trash": { how: "gvfs-trash", deletes: (args) => ({ targets: operands(args), recursive: true }) },
  gio: { how: "gio trash", deletes: (args) => (args[0] === "trash" || args[0] === "remove" ? { targets: operands(args.slice(1)), recursive: args[0] === "trash" } : undefined) },
  tar: { how: "tar --remove-files", deletes: (args) => (args.includes("--remove-files") ? { targets: [UNREAD_WORDS], recursive: true } : undefined) },
  zip: { how: "zip -m", deletes: (args) => (args.some((word) => word === "--move" || /^-[a-zA-Z]*m[a-zA-Z]*$/.test(word)) ? { targets: [UNREAD_WORDS], recursive: true } : undefined) },
  "7z": { how: "7z -sdel", deletes: (args) => (args.includes("-sdel") ? { targets: [UNREAD_WORDS], recursive: true } : undefined) },
};

/** git's global options that take a value (`git -C DIR clean`). */
const GIT_VALUED = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env", "--super-prefix", "--list-cmds", "--attr-source"]);

/** `git clean` (not `-n`, `--dry-run`, `-i`): deletes the untracked files under its pathspecs (with -d, directories too). */
function gitClean(args: readonly string[]): { targets: readonly string[]; recursive: boolean } | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += GIT_VALUED.has(args[i]!) ? 2 : 1;
  if (args[i] !== "clean") return undefined;
  const rest = args.slice(i + 1);
  if (rest.some((word) => word === "--dry-run" || word === "--interactive" || /^-[a-zA-Z]*[ni]/.test(word) && !word.startsWith("--"))) return undefined;
  const paths = operands(rest, new Set(["-e", "--exclude"]));
  return { targets: paths.length === 0 ? ["."] : paths, recursive: true };
}

/** Calls that delete files in the interpreters' languages (Python, Perl, Ruby, Node, PHP, Lua, Tcl, Java's Files.delete). */
export const DELETE_CALLS = /\bunlink|\brmdir|\brmtree\b|\bremove_tree\b|\bos\.remove|\brmSync\b|\bfs(?:\.promises)?\.rm\s*\(|\bFile\.delete\b|\bFiles\.delete|\bFileUtils\.(?:rm|remove)|\bfile\s+delete\b|\bsend2trash\b|\bRemove-Item\b|\bos\.RemoveAll\b/;

/**
 * The deletion a command makes, read as `rm` (`unlink x` as `rm x`, `find d -delete` as `rm -r -f d`), with why, when
 * its words delete files; undefined otherwise. `rm` itself and its spellings are read elsewhere (programs.ts).
 */
export function deletionOf(words: readonly string[], name: string): { readonly form: readonly string[]; readonly reason: string } | undefined {
  const args = words.slice(1);
  const deleter = name === "git" ? { how: "git clean", deletes: gitClean } : Object.hasOwn(DELETERS, name) ? DELETERS[name]! : undefined;
  if (deleter === undefined) return undefined;
  const found = deleter.deletes(args);
  if (found === undefined) return undefined;
  // No operand: the words come from elsewhere (`xargs unlink < list`), which the guard does not read.
  return { form: ["rm", ...(found.recursive ? ["-r", "-f"] : []), ...(found.targets.length === 0 ? [UNREAD_WORDS] : found.targets)], reason: deletesLikeRm(`${words.join(" ")}`, deleter.how) };
}

/** Why a command that deletes files is read as rm. */
export function deletesLikeRm(shown: string, how: string): string {
  return `\`${shown}\` deletes files like rm (${how}), and a rule on rm holds for the commands that delete files as it does`;
}
