import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { anchors, docPaths, examplePaths, README_PATH, renderReadme } from "./helpers/readme.js";

const readme = readFileSync(README_PATH, "utf8");
const pages = docPaths();

/** Markdown links outside code blocks. */
function links(text: string): string[] {
  const out: string[] = [];
  let inCode = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) inCode = !inCode;
    else if (!inCode) for (const m of line.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) out.push(m[1] ?? "");
  }
  return out;
}

describe("README", () => {
  it("opens with the two commands: run the main job, run the tests", () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    expect(firstBlock).toMatch(/^npm install && npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it("sets the entry points side by side, then a table of contents whose links all resolve", () => {
    const table = /## Which entry point\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
    for (const name of ["createGuardedAgent", "GuardedToolNode", "guardMiddleware", "createDevopsGraph", "CLI"]) expect(table).toContain(name);
    const contents = /## Contents\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
    const targets = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1] ?? "");
    expect(targets.length).toBeGreaterThanOrEqual(10);
    const headings = anchors(readme);
    for (const target of targets) expect(headings.has(target), target).toBe(true);
    expect(readme.indexOf("## Which entry point")).toBeLessThan(readme.indexOf("## Contents"));
  });

  it("stays short enough to read in ten minutes (under 300 lines); the reference lives in docs/", () => {
    expect(readme.split("\n").length).toBeLessThan(300);
  });

  it("every relative link of the README and the docs pages points at a file (and heading) that exists", () => {
    for (const file of [README_PATH, ...pages]) {
      const text = readFileSync(file, "utf8");
      for (const link of links(text)) {
        if (/^[a-z]+:/.test(link)) continue;
        const [path = "", anchor] = link.split("#");
        const target = path === "" ? file : join(dirname(file), path);
        expect(existsSync(target), `${basename(file)} -> ${link}`).toBe(true);
        if (anchor && target.endsWith(".md")) expect(anchors(readFileSync(target, "utf8")).has(anchor), `${basename(file)} -> ${link}`).toBe(true);
      }
    }
  });

  it("shows every example exactly as the file a test runs, in the README and the docs (regenerate: npx tsx test/helpers/readme.ts --write)", () => {
    expect(examplePaths(readme).length).toBeGreaterThan(0);
    for (const file of [README_PATH, ...pages]) {
      const text = readFileSync(file, "utf8");
      for (const path of examplePaths(text)) expect(existsSync(new URL(`../${path}`, import.meta.url)), path).toBe(true);
      expect(renderReadme(text), basename(file)).toBe(text);
    }
  });

  it("every example it or the docs show is run by some test", () => {
    const dir = new URL("./", import.meta.url);
    const tests = readdirSync(dir)
      .filter((name) => name.endsWith(".test.ts") && name !== "readme.test.ts")
      .map((name) => readFileSync(new URL(name, dir), "utf8"))
      .join("\n");
    for (const file of [README_PATH, ...pages]) {
      for (const path of examplePaths(readFileSync(file, "utf8"))) {
        const stem = path.replace(/^examples\//, "").replace(/\.ts$/, "");
        expect(tests, `${path} is imported by a test`).toContain(`examples/${stem}.js`);
      }
    }
  });
});
