// No dead exports under src/: every exported name is used by another file (source, test, example,
// graph, bench, doc) or reachable from a public entry point. The checker is tested first on small
// projects that try to fool it, one per import form, and on generated ones.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { EXTRA_ROOTS, findUnusedExports, type UnusedExport } from "./helpers/unused-exports.js";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway project: package.json with one entry point (src/index.ts), tsconfig over src and test. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "gg-unused-"));
  made.push(root);
  const all: Record<string, string> = {
    "package.json": JSON.stringify({ name: "fx", type: "module", exports: { ".": { types: "./dist/src/index.d.ts", import: "./dist/src/index.js" } } }),
    "tsconfig.json": JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", noEmit: true }, include: ["src", "test"] }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const render = (list: readonly UnusedExport[]) => list.map((u) => `${u.file}: ${u.name}`);
// Each test sorts both sides the same way; the checker's own order is not part of its contract.

describe("the unused-exports checker", () => {
  it("finds each dead export and none of the used ones, whatever import form uses them", () => {
    const root = project({
      "src/index.ts": `export { pub } from "./a.js";\nexport * from "./entry-star.js";\n`,
      "src/entry-star.ts": `export const publicViaStar = 1;\n`,
      "src/a.ts": [
        "export const pub = 1;",
        "export const usedByTest = 2;",
        "export const onlyLocal = 3;",
        "export function deadFn() { return onlyLocal; }",
        "export type DeadType = string;",
        "const privateOne = 4;",
        "export { privateOne as renamed };",
        "export const aliased = 5;",
      ].join("\n"),
      "src/barrel.ts": `export { viaBarrel, deadViaBarrel } from "./b.js";\nexport * from "./c.js";\n`,
      "src/b.ts": "export const viaBarrel = 1;\nexport const deadViaBarrel = 2;\n",
      "src/c.ts": "export const starUsed = 1;\nexport const starDead = 2;\n",
      "src/ns.ts": "export const nsUsed = 1;\nexport const nsDead = 2;\nexport type NsType = string;\n",
      "src/ns-whole.ts": "export const one = 1;\nexport const two = 2;\n",
      "src/dyn.ts": "export const dynUsed = 1;\nexport const dynDead = 2;\n",
      "src/dyn-ns.ts": "export const dynNsUsed = 1;\nexport const dynNsDead = 2;\n",
      "src/typeimp.ts": "export interface Imported { a: 1 }\nexport interface NotImported { b: 2 }\n",
      "src/uses.ts": `import { usedByTest as alias, aliased as other } from "./a.js";\nexport const sum = alias + other;\n`,
      "test/x.test.ts": [
        `import { sum } from "../src/uses.js";`,
        `import { renamed } from "../src/a.js";`,
        `import { viaBarrel, starUsed } from "../src/barrel.js";`,
        `import * as ns from "../src/ns.js";`,
        `import * as whole from "../src/ns-whole.js";`,
        `const t: ns.NsType = String(ns.nsUsed);`,
        `const keys = Object.keys(whole);`,
        `const { dynUsed } = await import("../src/dyn.js");`,
        `const dynNs = await import("../src/dyn-ns.js");`,
        `type X = import("../src/typeimp.js").Imported;`,
        `console.log(sum, renamed, viaBarrel, starUsed, t, keys, dynUsed, dynNs.dynNsUsed, null as unknown as X);`,
      ].join("\n"),
    });
    expect(render(findUnusedExports({ root, extraRoots: [] })).sort()).toEqual([
      "src/a.ts: DeadType",
      "src/a.ts: deadFn",
      "src/a.ts: onlyLocal",
      "src/b.ts: deadViaBarrel",
      "src/barrel.ts: deadViaBarrel",
      "src/c.ts: starDead",
      "src/dyn-ns.ts: dynNsDead",
      "src/dyn.ts: dynDead",
      "src/ns.ts: nsDead",
      "src/typeimp.ts: NotImported",
    ]);
  });

  it("a name used only inside its own module is dead; an extra root keeps a name alive", () => {
    const files = {
      "src/index.ts": "export const api = 1;\n",
      "src/cli.ts": "export function main() { return helper(); }\nexport function helper() { return 1; }\n",
    };
    expect(render(findUnusedExports({ root: project(files), extraRoots: [] }))).toEqual(["src/cli.ts: helper", "src/cli.ts: main"]);
    expect(render(findUnusedExports({ root: project(files), extraRoots: ["src/cli.ts#main"] }))).toEqual(["src/cli.ts: helper"]);
  });

  it("generated projects: reports exactly the names no form uses", () => {
    const forms = ["none", "named", "aliased", "barrel", "barrel-dead", "star", "namespace", "dynamic", "import-type"] as const;
    type Form = (typeof forms)[number];
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom(...forms), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }), (modules) => {
        const files: Record<string, string> = { "src/index.ts": "export const api = 1;\n" };
        const barrel: string[] = [];
        const uses: string[] = [];
        const printed: string[] = [];
        const expected: string[] = [];
        modules.forEach((names: Form[], m) => {
          const file = `src/m${m}.ts`;
          const starred = names.includes("star");
          if (starred) barrel.push(`export * from "./m${m}.js";`);
          files[file] = names.map((form, n) => (form === "import-type" ? `export interface N${m}_${n} { x: ${n} }` : `export const n${m}_${n} = ${n};`)).join("\n") + "\n";
          let namespaceUsed = false;
          names.forEach((form, n) => {
            const name = form === "import-type" ? `N${m}_${n}` : `n${m}_${n}`;
            switch (form) {
              case "none":
                // A star re-export alone does not use a name.
                expected.push(`${file}: ${name}`);
                break;
              case "named":
                uses.push(`import { ${name} } from "../src/m${m}.js";`);
                printed.push(name);
                break;
              case "aliased":
                uses.push(`import { ${name} as a_${name} } from "../src/m${m}.js";`);
                printed.push(`a_${name}`);
                break;
              case "barrel":
                barrel.push(`export { ${name} } from "./m${m}.js";`);
                uses.push(`import { ${name} } from "../src/barrel.js";`);
                printed.push(name);
                break;
              case "barrel-dead":
                barrel.push(`export { ${name} } from "./m${m}.js";`);
                expected.push(`${file}: ${name}`, `src/barrel.ts: ${name}`);
                break;
              case "star":
                uses.push(`import { ${name} } from "../src/barrel.js";`);
                printed.push(name);
                break;
              case "namespace":
                if (!namespaceUsed) uses.push(`import * as ns${m} from "../src/m${m}.js";`);
                namespaceUsed = true;
                printed.push(`ns${m}.${name}`);
                break;
              case "dynamic":
                uses.push(`const { ${name}: d_${name} } = await import("../src/m${m}.js");`);
                printed.push(`d_${name}`);
                break;
              case "import-type":
                uses.push(`type T_${name} = import("../src/m${m}.js").${name};`);
                printed.push(`null as unknown as T_${name}`);
                break;
            }
          });
        });
        files["src/barrel.ts"] = barrel.join("\n") + "\n";
        files["test/use.test.ts"] = `${uses.join("\n")}\nconsole.log(${printed.join(", ")});\n`;
        expect(render(findUnusedExports({ root: project(files), extraRoots: [] })).sort()).toEqual([...new Set(expected)].sort());
      }),
      { numRuns: 6 },
    );
  });
});

describe("guarded-graph's own source", () => {
  it("every extra root still names an export that exists", () => {
    for (const ref of EXTRA_ROOTS) {
      const [file, name] = ref.split("#");
      expect(readFileSync(file ?? "", "utf8")).toMatch(new RegExp(`export (?:async )?(?:function|const|class) ${name}\\b`));
    }
  });

  it("has no export that nothing uses", () => {
    // Fix: drop the `export` (delete the code if nothing uses it), then `npm run build`: declaration
    // emit fails (TS4023) where another module's exported value has an inferred type naming it.
    expect(render(findUnusedExports()), "exports nothing else uses").toEqual([]);
  });
});
