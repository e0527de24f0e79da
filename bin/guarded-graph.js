#!/usr/bin/env node
// Runs the CLI: the built JavaScript when present (npm package), else the TypeScript source through tsx (a clone).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = new URL("../", import.meta.url);
const built = new URL("dist/src/cli/main.js", root);
let cli;
if (existsSync(fileURLToPath(built))) {
  cli = await import(built.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  cli = await import(new URL("src/cli/main.ts", root).href);
}
const code = await cli.main(process.argv.slice(2));
process.exitCode = code;
// Open handles (database pools, timers) must not keep a finished command alive.
setTimeout(() => process.exit(code), 200).unref();
