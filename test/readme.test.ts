import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { examplePaths, README_PATH, renderReadme } from "./helpers/readme.js";

const readme = readFileSync(README_PATH, "utf8");

describe("README", () => {
  it("opens with the two commands: run the main job, run the tests", () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    expect(firstBlock).toMatch(/^npm install && npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it("shows every example exactly as the file a test runs (regenerate: npx tsx test/helpers/readme.ts --write)", () => {
    expect(examplePaths(readme).length).toBeGreaterThan(3);
    for (const path of examplePaths(readme)) expect(existsSync(new URL(`../${path}`, import.meta.url)), path).toBe(true);
    expect(renderReadme(readme)).toBe(readme);
  });

  it("every example it shows is run by some test", () => {
    const dir = new URL("./", import.meta.url);
    const tests = readdirSync(dir)
      .filter((name) => name.endsWith(".test.ts") && name !== "readme.test.ts")
      .map((name) => readFileSync(new URL(name, dir), "utf8"))
      .join("\n");
    for (const path of examplePaths(readme)) {
      const stem = path.replace(/^examples\//, "").replace(/\.ts$/, "");
      expect(tests, `${path} is imported by a test`).toContain(`examples/${stem}.js`);
    }
  });
});
