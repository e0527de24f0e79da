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

export function examplePaths(text: string): string[] {
  return [...text.matchAll(MARKED_BLOCK)].map((m) => m[2] ?? "");
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
