// A deny on a program's words (`git push:*`, `npm publish:*`, `kubectl delete:*`) against words the shell
// still changes when the line runs: an expansion inside or around the subcommand (`git p${x}ush`,
// `git pu$x`, `git $x push` — an empty unquoted `$x` is no word at all —, `git pu$(true)sh`) or a file
// name pattern the agent can make match by creating a file first (`touch push; git pu?h`, `git p*`).
// The deny used to compare the words as written, so these ran under a deny list. Now a deny that what
// the words become could make match cannot tell (the call asks), and words that cannot become the
// denied ones (`git st${x}atus`, `git s*`, `git commit -m "$msg"`) stay allowed.
//
// The real bash judges: each line runs in a scratch directory holding one file, named after the denied
// word of the line's program (`push` for git, so a pattern can match it), with `x` unset or set to a
// piece of that word, and a `git` (`npm`, `kubectl`) on PATH that records the words it was given.
// Whatever line bash runs as `git push …`, the guard must not allow it.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { ORACLE_SEED, oracleCases } from "./helpers/oracle.js";
import { recordingPrograms } from "./helpers/recording-programs.js";

const DENY = ["git push:*", "npm publish", "kubectl delete *"];
const guard = permissionPolicy(
  parsePolicy(`version: 1\npermissions:\n${DENY.map((p) => `  - { rule: ${JSON.stringify(`Bash(${p})`)}, mode: deny }`).join("\n")}\ntools:\n  Bash: { risk: low }\n`, "yaml", "wild.yaml"),
);
const decide = (command: string) => guard.decide("Bash", { command });

// git, npm and kubectl that record the words they were given.
const programs = recordingPrograms(["git", "npm", "kubectl"], "gg-wild-");
afterAll(() => programs.remove());

/** The denied word of the program a line runs: the one file its scratch directory holds. */
const deniedWord = (line: string) => (/\bnpm\b/.test(line) ? "publish" : /\bkubectl\b/.test(line) ? "delete" : "push");

/** Values of `x` a line runs with: unset, and pieces of the denied words. */
const X_VALUES = [undefined, "sh", "ush", "push", "h", "lish", "publish", "ete", "delete"] as const;

/** The commands bash ran through the recording programs, each as its words, with `x` unset or set to `x`. */
const ranByBash = (line: string, x?: string): string[][] => programs.run(line, { files: [deniedWord(line)], ...(x === undefined ? {} : { env: { x } }) }) ?? [];

const denied = ([program, first, ...rest]: readonly string[]) =>
  (program === "git" && first === "push") || (program === "npm" && first === "publish" && rest.length === 0) || (program === "kubectl" && first === "delete" && rest.length > 0);
/** Some value of `x` makes bash run a denied command. */
const reachesDenied = (line: string) => X_VALUES.some((x) => ranByBash(line, x).some(denied));

describe("words the shell still changes: a deny that what they become could match cannot tell", () => {
  const spellings = [
    "git p${x}ush",
    "git pu$x",
    "git pu${x}sh origin main",
    'git pu"$x"sh',
    "git ${x}push",
    "git push$x",
    "git $x push",
    "git $x push --force",
    'git "$x"push',
    "git pu$(true)sh",
    "git pu`true`sh",
    "git pu${x:-}sh",
    "git pu${x#a}sh",
    "git pu$*sh",
    "git pu$@sh",
    "git pu${x[0]}sh",
    "git pu?h",
    "git pu[s]h",
    "git pu*",
    "git p*sh",
    "git pus[h]",
    "git p*",
    "sudo git pu$x",
    "nice git pu$x",
    "timeout 5 git p${x}ush",
    "env git $x push",
    'eval "git pu$x"',
    'bash -c "git pu\\$x"',
    "npm publi$x",
    "npm pub${x}lish",
    "npm pu*sh",
    "npm publis?",
    "kubectl del$x pod a",
    "kubectl ${x}delete pod a",
    "kubectl d?lete pod a",
  ];
  it.each(spellings)("%s", (line) => {
    expect(decide(line).mode).toBe("ask");
    // bash runs the denied command with some value of x (sudo runs git from its own secure path, not the shim's).
    if (!line.startsWith("sudo ")) expect(reachesDenied(line)).toBe(true);
  });

  const unchanged = [
    "git st${x}atus",
    "git status $x",
    'git commit -m "$msg"',
    "git log $range",
    "git s*",
    "git -C . status $x",
    "ls *.txt",
    "echo $HOME",
    "npm run $script",
    "kubectl get pods -n $ns",
  ];
  it.each(unchanged)("%s: cannot become a denied command, stays allowed", (line) => {
    expect(decide(line).mode).toBe("allow");
    expect(reachesDenied(line)).toBe(false);
  });
});

// Generated spellings of `git push` / `npm publish`: the subcommand cut at random places with
// expansions (empty here), quotes and pattern characters put in; real bash runs each; whatever it runs
// as a denied command must not be allowed, and the property runs the other way too: what the guard
// allows never ran as a denied command.
describe("generated spellings, judged by the real bash", () => {
  const PIECES = ["${x}", "$x", '"$x"', "$(true)", "''", '""', "?", "*", "[s]", "[a-z]", "${x:-}", "\\", "$*"];
  const spelled = (word: string) =>
    fc.tuple(fc.array(fc.tuple(fc.nat({ max: word.length }), fc.constantFrom(...PIECES)), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([cuts, spaced]) => {
      const sorted = [...cuts].sort((a, b) => b[0] - a[0]);
      let out = word;
      for (const [at, piece] of sorted) {
        // A pattern character replaces the letter where it stands (`pu?h`); others are put in.
        const replaces = /^[?*[]/.test(piece) && at < out.length;
        out = out.slice(0, at) + piece + out.slice(replaces ? at + 1 : at);
      }
      return spaced ? out.replace(/^(\$x|\$\{x\})/, "$1 ") : out;
    });
  const line = fc.oneof(
    fc.tuple(spelled("push"), fc.constantFrom("", " origin", " --force origin main")).map(([w, rest]) => `git ${w}${rest}`),
    spelled("publish").map((w) => `npm ${w}`),
    fc.tuple(spelled("delete"), fc.constantFrom(" pod a", " ns x")).map(([w, rest]) => `kubectl ${w}${rest}`),
  );
  it(`${Math.min(oracleCases(), 400)} lines: the guard never allows what bash runs as a denied command`, () => {
    let ran = 0;
    fc.assert(
      fc.property(line, fc.constantFrom(...X_VALUES), (command, x) => {
        const mode = decide(command).mode;
        const commands = ranByBash(command, x);
        if (commands.some(denied)) {
          ran += 1;
          expect(mode, `${command} (x=${String(x)}) ran ${JSON.stringify(commands)}`).not.toBe("allow");
        }
      }),
      { seed: ORACLE_SEED, numRuns: Math.min(oracleCases(), 400) },
    );
    // The generator reaches the denied commands often (not a vacuous property).
    expect(ran).toBeGreaterThan(20);
  }, 240_000);
});
