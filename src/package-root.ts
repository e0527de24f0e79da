import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ErrorCode, GuardedGraphError } from "./errors/index.js";

let cached: string | undefined;

/** The guarded-graph package root (it holds `policies/` and `scenarios/`), found from this module's location. */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "guarded-graph") {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new GuardedGraphError(ErrorCode.PACKAGE_FILES, "cannot find the guarded-graph package root (policies/, scenarios/)");
    dir = parent;
  }
}
