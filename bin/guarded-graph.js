#!/usr/bin/env node
// Runs the CLI: the built JavaScript when present (npm package), else the TypeScript source through tsx (a clone).
// The Node version is checked before anything is imported: an older Node would fail deep inside a
// dependency with a message that names neither Node nor the version needed.
const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
if (!((major === 20 && minor >= 19) || major >= 22)) {
  console.error(`guarded-graph needs Node.js 20.19 or later (22.12 or later on Node 22); this is Node.js ${process.versions.node}.`);
  process.exit(1);
}
if (major === 22 && minor < 12) {
  console.error(`guarded-graph needs Node.js 22.12 or later on the 22 line (or 20.19+, 24+); this is Node.js ${process.versions.node}.`);
  process.exit(1);
}

const { existsSync } = await import("node:fs");
const { fileURLToPath } = await import("node:url");
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
