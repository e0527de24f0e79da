import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = new URL("../../", import.meta.url);
const MARKED_BLOCK = /(<!-- example: ([^\s]+) -->\n```ts\n)([\s\S]*?)(```)/g;

/** README with every `<!-- example: PATH -->` code block replaced by the current file at PATH. */
export function renderReadme(text: string, read: (path: string) => string = (p) => readFileSync(new URL(p, ROOT), "utf8")): string {
  return text.replace(MARKED_BLOCK, (_all, open: string, path: string, _body: string, close: string) => {
    const code = read(path);
    return `${open}${code.endsWith("\n") ? code : `${code}\n`}${close}`;
  });
}

/**
 * One fenced code block of a Markdown page. The convention of README.md and docs/: a ```ts block is
 * a complete program (type-checked against the built package and run); a block after
 * `<!-- example: PATH -->` is the file PATH (run by that example's test); ```ts fragment marks a
 * fragment or a shape (not run). Shell blocks: lines `npx guarded-graph …` are commands a reader runs;
 * `$ guarded-graph …` lines are a transcript (the lines after each are its output, `…` elides), run
 * block by block in a fresh project; ```sh fragment marks a transcript that cannot run alone.
 */
export interface CodeBlock {
  /** The first word of the info string (`ts`, `sh`, `yaml`, … or ""). */
  readonly lang: string;
  /** The rest of the info string's words (`fragment`). */
  readonly flags: readonly string[];
  readonly body: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** PATH of a `<!-- example: PATH -->` marker right before the block. */
  readonly example?: string;
}

/** Every fenced code block of a Markdown text, in order. */
export function codeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,})\s*([^`]*)$/.exec(lines[i] ?? "");
    if (!open) continue;
    const indent = open[1] ?? "";
    const fence = open[2] ?? "```";
    const [lang = "", ...flags] = (open[3] ?? "").trim().split(/\s+/).filter((w) => w !== "");
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^ {0,3}${fence}\\s*$`).test(lines[j] ?? ""); j++) {
      const l = lines[j] ?? "";
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l);
    }
    const marker = /^<!-- example: ([^\s]+) -->$/.exec(lines[i - 1] ?? "");
    blocks.push({ lang, flags, body: body.length ? `${body.join("\n")}\n` : "", line: i + 1, ...(marker ? { example: marker[1] ?? "" } : {}) });
    i = j;
  }
  return blocks;
}

export function examplePaths(text: string): string[] {
  return [...text.matchAll(MARKED_BLOCK)].map((m) => m[2] ?? "");
}

/** GitHub's heading anchors (a repeated heading gets `-1`, `-2` …). */
export function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let inCode = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) inCode = !inCode;
    const m = inCode ? null : /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = (m[1] ?? "").trim().toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-");
    let anchor = base;
    for (let n = 1; out.has(anchor); n++) anchor = `${base}-${n}`;
    out.add(anchor);
  }
  return out;
}

export const README_PATH = fileURLToPath(new URL("README.md", ROOT));

/** The reference pages the README links to: docs/*.md. */
export function docPaths(): string[] {
  const dir = new URL("docs/", ROOT);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => fileURLToPath(new URL(name, dir)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes("--write")) {
  for (const path of [README_PATH, ...docPaths()]) writeFileSync(path, renderReadme(readFileSync(path, "utf8")));
}
