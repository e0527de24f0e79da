/**
 * How a program reads its options: a table of its short letters and long names and which take a
 * value, and the walk that reads options from a command's words as getopt and its kin do (clusters,
 * attached values, `--name=value`, unique abbreviations of long names, `--`).
 */

/** Options of one program: short letters, long names, which take a value. */
export interface OptionTable {
  /** Short options without a value. */
  readonly flags?: string;
  /** Short options with a value (`-u root`, `-uroot`). */
  readonly valued?: string;
  /** Short options whose value, if any, is attached (`-i{}`, `-e`). */
  readonly optional?: string;
  readonly long?: readonly string[];
  readonly longValued?: readonly string[];
  /** Long options whose value, if any, follows `=`. */
  readonly longOptional?: readonly string[];
  /** `-5`, `--10` are options (nice's old adjustment). */
  readonly numeric?: boolean;
  /** Long options spelled with one dash, without a value (screen's `-ls`, `-wipe`). */
  readonly singleDash?: readonly string[];
  /** Long options spelled with one dash that take the next word as their value (screen's `-Logfile FILE`). */
  readonly singleDashValued?: readonly string[];
  /** Long options spelled with one dash whose value follows `=` (terraform's `-chdir=DIR`). */
  readonly singleDashEq?: readonly string[];
  /** Long options that take two values (`bwrap --bind SRC DEST`). */
  readonly longValued2?: readonly string[];
  /** Every long option is `--name` or `--name=value`, never with its value in the next word (valgrind, firejail). */
  readonly anyLongEq?: boolean;
}

export interface Parsed {
  /** Index of the first operand (or words.length). */
  next: number;
  /** Options seen, by their canonical name (`-u`, `--user`), with their values. */
  seen: { name: string; value: string | undefined }[];
  unknown?: string;
  /** The options ended at `--`. */
  dashdash?: boolean;
}

function longName(word: string, table: OptionTable): { name: string; takes: "no" | "yes" | "optional" } | undefined {
  const eq = word.indexOf("=");
  const given = eq >= 0 ? word.slice(0, eq) : word;
  const all: [string, "no" | "yes" | "optional"][] = [
    ...(table.long ?? []).map((name): [string, "no"] => [name, "no"]),
    ...(table.longValued ?? []).map((name): [string, "yes"] => [name, "yes"]),
    ...(table.longOptional ?? []).map((name): [string, "optional"] => [name, "optional"]),
  ];
  const exact = all.find(([name]) => name === given);
  if (exact !== undefined) return { name: exact[0], takes: exact[1] };
  // getopt_long accepts an unambiguous abbreviation (`--sig` for `--signal`).
  const prefixed = all.filter(([name]) => name.startsWith(given));
  return prefixed.length === 1 && given.length > 2 ? { name: prefixed[0]![0], takes: prefixed[0]![1] } : undefined;
}

/** Reads options from `start` until the first operand (or `--`); `permute` reads options among operands too (never past `--`). */
export function parseOptions(words: readonly string[], start: number, table: OptionTable, program: string, operandsWanted = 0): Parsed {
  const seen: Parsed["seen"] = [];
  let i = start;
  while (i < words.length) {
    const word = words[i]!;
    if (word === "--") return { next: i + 1, seen, dashdash: true };
    if (!word.startsWith("-") || word === "-") break;
    if (table.singleDash?.includes(word) === true) {
      seen.push({ name: word, value: undefined });
      i += 1;
      continue;
    }
    if (table.singleDashEq?.some((name) => word.startsWith(`${name}=`)) === true) {
      seen.push({ name: word.slice(0, word.indexOf("=")), value: word.slice(word.indexOf("=") + 1) });
      i += 1;
      continue;
    }
    if (table.singleDashValued?.includes(word) === true) {
      if (i + 1 >= words.length) return { next: i, seen, unknown: `${program} ${word} has no value` };
      seen.push({ name: word, value: words[i + 1] });
      i += 2;
      continue;
    }
    if (table.numeric === true && /^--?\d+$/.test(word)) {
      seen.push({ name: "-n", value: word.replace(/^-+/, "") });
      i += 1;
      continue;
    }
    if (word.startsWith("--")) {
      if (table.longValued2?.includes(word) === true) {
        if (i + 2 >= words.length) return { next: i, seen, unknown: `${program} ${word} has no values` };
        seen.push({ name: word, value: words[i + 1] });
        i += 3;
        continue;
      }
      const found = longName(word, table);
      if (found === undefined && table.anyLongEq === true) {
        const eq = word.indexOf("=");
        seen.push({ name: eq >= 0 ? word.slice(0, eq) : word, value: eq >= 0 ? word.slice(eq + 1) : undefined });
        i += 1;
        continue;
      }
      if (found === undefined) return { next: i, seen, unknown: `${program} has an option the guard does not know (${word})` };
      const eq = word.indexOf("=");
      if (found.takes === "yes" && eq < 0) {
        if (i + 1 >= words.length) return { next: i, seen, unknown: `${program} ${word} has no value` };
        seen.push({ name: found.name, value: words[i + 1] });
        i += 2;
      } else {
        if (found.takes === "no" && eq >= 0) return { next: i, seen, unknown: `${program} ${found.name} takes no value` };
        seen.push({ name: found.name, value: eq >= 0 ? word.slice(eq + 1) : undefined });
        i += 1;
      }
      continue;
    }
    // A cluster of short options: `-rf`, `-uroot`, `-n5`.
    let j = 1;
    let consumedNext = false;
    while (j < word.length) {
      const letter = word[j]!;
      if (table.flags?.includes(letter) === true) {
        seen.push({ name: `-${letter}`, value: undefined });
        j += 1;
      } else if (table.valued?.includes(letter) === true) {
        const rest = word.slice(j + 1);
        if (rest !== "") seen.push({ name: `-${letter}`, value: rest });
        else {
          if (i + 1 >= words.length) return { next: i, seen, unknown: `${program} -${letter} has no value` };
          seen.push({ name: `-${letter}`, value: words[i + 1] });
          consumedNext = true;
        }
        break;
      } else if (table.optional?.includes(letter) === true) {
        const rest = word.slice(j + 1);
        seen.push({ name: `-${letter}`, value: rest === "" ? undefined : rest });
        break;
      } else return { next: i, seen, unknown: `${program} has an option the guard does not know (-${letter} in ${word})` };
    }
    i += consumedNext ? 2 : 1;
  }
  void operandsWanted;
  return { next: i, seen };
}
