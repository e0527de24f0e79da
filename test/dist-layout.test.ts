/**
 * The built package's layout (scripts/bundle-dist.ts): every subpath of package.json's `exports`
 * loads the same copy of each class, so `instanceof` holds whichever subpath a value comes from.
 * A child `node` process imports each subpath by the package's own name, as a user's program does.
 *
 * Needs a fresh build (`npm test` builds first; alone: `npm run build && npx vitest run test/dist-layout.test.ts`).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

// For each subpath: the functions (classes included) it exports under a name another subpath also
// exports, and every class's ancestors that the root exports by the same name. \`graph\` is each
// graph module's own compiled graph (the name langgraph.json points at), different by design.
const CHILD = `
import { readFileSync } from "node:fs";
const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const subpaths = Object.entries(pkg.exports).filter(([, t]) => typeof t === "object").map(([k]) => "guarded-graph" + k.slice(1));
const root = await import("guarded-graph");
const first = new Map();
const shared = new Set();
const differ = [];
const ancestors = [];
const foreign = [];
for (const subpath of subpaths) {
  const m = await import(subpath);
  for (const [name, value] of Object.entries(m)) {
    if (typeof value !== "function" || name === "graph") continue;
    const seen = first.get(name);
    if (seen === undefined) first.set(name, { subpath, value });
    else {
      shared.add(name);
      if (seen.value !== value) differ.push(name + ": " + seen.subpath + " and " + subpath);
    }
    for (let up = Object.getPrototypeOf(value); typeof up === "function" && up.name; up = Object.getPrototypeOf(up)) {
      if (typeof root[up.name] !== "function") continue;
      ancestors.push(subpath + " " + name + " extends " + up.name);
      if (root[up.name] !== up) foreign.push(subpath + " " + name + " extends a copy of " + up.name);
    }
  }
}
console.log(JSON.stringify({ shared: [...shared].sort(), differ, ancestors, foreign }));
`;

describe("the built package", () => {
  it("has one copy of each class and function, whichever subpath imports it", () => {
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD], { cwd: ROOT, encoding: "utf8" });
    expect(child.status, child.stderr).toBe(0);
    const found = JSON.parse(child.stdout) as { shared: string[]; differ: string[]; ancestors: string[]; foreign: string[] };
    expect(found.shared).toEqual(expect.arrayContaining(["Guard", "MemoryError"]));
    expect(found.differ).toEqual([]);
    expect(found.ancestors).toEqual(expect.arrayContaining(["guarded-graph/memory MemoryError extends GuardedGraphError"]));
    expect(found.foreign).toEqual([]);
  });
});
