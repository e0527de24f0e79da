/**
 * The W2h modules of a checkout of the project (this one, or another unpacked beside it as the A/B
 * runners' `--base DIR`): its benchmark workload, its generator and its policy, each loaded from that
 * checkout's own files.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

export interface Modules {
  bench: typeof import("../w2-hetero.js");
  hetero: typeof import("./hetero.js");
  policy: typeof import("../../src/policy/index.js");
}

export async function modulesAt(root: string): Promise<Modules> {
  const at = (path: string) => pathToFileURL(resolve(root, path)).href;
  return {
    bench: (await import(at("bench/w2-hetero.ts"))) as Modules["bench"],
    hetero: (await import(at("bench/lib/hetero.ts"))) as Modules["hetero"],
    policy: (await import(at("src/policy/index.ts"))) as Modules["policy"],
  };
}
