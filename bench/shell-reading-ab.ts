/**
 * The cost of reading a command line the guard has not seen (`analyzeShell`, before its per-text
 * cache): the benign corpus's command lines (test/fixtures/benign/corpus.ts), each made new by a
 * numbered comment, read by another checkout's shell module (`--base DIR`, unpacked as for the A/B
 * runners) and this one's, alternated in one process; CPU time per line per round, median and
 * p25–p75 of the per-round ratio (this / base). The A/A control is two unpacked copies of one commit
 * (`--base` must be another directory: the same module twice would be one instance).
 *   npx tsx bench/shell-reading-ab.ts --base DIR [--rounds 30]
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { COMMANDS } from "../test/fixtures/benign/corpus.js";
import { spread } from "./lib/stats.js";

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const at = argv.indexOf(name);
  return at >= 0 ? (argv[at + 1] ?? fallback) : fallback;
};
const baseDir = option("--base", "");
if (baseDir === "") throw new Error("usage: shell-reading-ab.ts --base DIR [--rounds 30]");
const rounds = Number(option("--rounds", "30"));
type ShellModule = typeof import("../src/policy/kinds/shell.js");
const load = async (root: string) => (await import(pathToFileURL(resolve(root, "src/policy/kinds/shell.ts")).href)) as ShellModule;
const own = await load(resolve(import.meta.dirname, ".."));
const base = await load(baseDir);
const lines = COMMANDS.map((entry) => (typeof entry === "string" ? entry : entry.command));
let made = 0;
/** CPU µs per line for one pass over the corpus, every line new to the module. */
const pass = (module: ShellModule) => {
  const cpu0 = process.cpuUsage();
  for (const line of lines) module.analyzeShell(`${line} # ${made++}`);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / lines.length;
};
for (let i = 0; i < 5; i++) {
  pass(own);
  pass(base);
}
const mine: number[] = [];
const theirs: number[] = [];
const ratios: number[] = [];
for (let r = 0; r < rounds; r++) {
  const first = r % 2 === 0 ? own : base;
  const a = pass(first);
  const b = pass(first === own ? base : own);
  const [m, t] = first === own ? [a, b] : [b, a];
  mine.push(m);
  theirs.push(t);
  ratios.push(m / t);
}
const ratio = spread(ratios);
console.log(
  `analyzeShell, a line not read before (${lines.length} lines, ${rounds} rounds): this ${spread(mine).median.toFixed(1)} µs, base ${spread(theirs).median.toFixed(1)} µs per line; ratio this/base ${ratio.median.toFixed(3)} [${ratio.p25.toFixed(3)}–${ratio.p75.toFixed(3)}]`,
);
