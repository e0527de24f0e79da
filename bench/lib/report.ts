import { readFile, writeFile } from "node:fs/promises";
import type { BenchRow, WorkloadResult } from "./result.js";

const START = "<!-- bench:results:start -->";
const END = "<!-- bench:results:end -->";

function formatValue(row: BenchRow): string {
  const v = Number.isInteger(row.value) && Math.abs(row.value) >= 1000 ? row.value.toLocaleString("en-US") : String(row.value);
  return row.unit ? `${v} ${row.unit}` : v;
}

function met(row: BenchRow): string {
  return row.met === undefined ? "" : row.met ? "yes" : "**no**";
}

export function tableRows(results: readonly WorkloadResult[]): string[][] {
  const rows: string[][] = [];
  for (const w of results) {
    if (w.error) rows.push([w.id, w.title, "error", w.error, "", "", "**no**"]);
    else if (w.skipped) rows.push([w.id, w.title, "skipped", w.skipped, "", "", ""]);
    for (const r of w.rows) {
      rows.push([r.workload, r.contender, r.metric, formatValue(r), r.ratio === undefined ? "" : `${r.ratio} ${r.ratioOf ?? ""}`.trim(), r.target ?? "", met(r)]);
    }
  }
  return rows;
}

const HEADER = ["workload", "contender", "metric", "value", "ratio", "target", "met?"];

/** A plain-text table for the terminal. */
export function textTable(results: readonly WorkloadResult[]): string {
  const rows = [HEADER, ...tableRows(results).map((r) => r.map((c) => c.replace(/\*\*/g, "")))];
  const widths = HEADER.map((_, i) => Math.min(60, Math.max(...rows.map((r) => (r[i] ?? "").length))));
  const line = (r: string[]) => r.map((c, i) => c.slice(0, 60).padEnd(widths[i]!)).join("  ").trimEnd();
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

export function markdownTable(results: readonly WorkloadResult[]): string {
  const cell = (c: string) => c.replace(/\|/g, "\\|");
  const notes = results.flatMap((w) => w.rows.filter((r) => r.note).map((r) => `- ${r.workload} ${r.contender} (${r.metric}): ${r.note}`));
  return [
    `| ${HEADER.join(" | ")} |`,
    `| ${HEADER.map(() => "---").join(" | ")} |`,
    ...tableRows(results).map((r) => `| ${r.map(cell).join(" | ")} |`),
    "",
    "Notes:",
    "",
    ...notes,
  ].join("\n");
}

/** Replaces the generated section of BENCHMARKS.md (between the markers), keeping the hand-written text around it. */
export async function rewriteResults(path: string, generated: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    text = `# Benchmarks\n\n${START}\n${END}\n`;
  }
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  const section = `${START}\n${generated.trim()}\n${END}`;
  const next = a >= 0 && b > a ? text.slice(0, a) + section + text.slice(b + END.length) : `${text.trimEnd()}\n\n${section}\n`;
  await writeFile(path, next);
}
