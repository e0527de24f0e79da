// Starts a real `langgraph dev` server (the LangGraph CLI .ci/run installs apart, LANGGRAPH_CLI_BIN) on a
// free loopback port for a test file, and stops its whole process group afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI_BIN = process.env.LANGGRAPH_CLI_BIN?.trim();
export const CLI_REQUIRED = process.env.REQUIRE_LANGGRAPH_CLI === "1";
export const CLI_AVAILABLE = CLI_BIN !== undefined && CLI_BIN !== "" && existsSync(CLI_BIN);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Version of an npm package installed at or above `from` (a file inside it, e.g. a .bin link's target). */
export function installedVersion(from: string, name: string): string {
  for (let dir = dirname(realpathSync(from)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, "utf8")) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    }
  }
  throw new Error(`no package.json of ${name} above ${from}`);
}

/**
 * The project's langgraph.json with every path pointing back at the project, in a fresh directory: the server runs
 * there, so its state (.langgraph_api/) and anything written relative to the working directory stay
 * apart per server and out of the project.
 */
function isolatedConfig(extraGraphs: Record<string, string> = {}): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), "gg-lgdev-cwd-"));
  const spec = JSON.parse(readFileSync(join(ROOT, "langgraph.json"), "utf8")) as {
    graphs: Record<string, string>;
    auth?: { path?: string };
    dependencies?: string[];
  };
  // langgraph-api joins these to its working directory: write them relative to it.
  const absolute = (ref: string): string => {
    const [file = "", symbol] = ref.split(":");
    const target = relative(dir, isAbsolute(file) ? file : resolve(ROOT, file)) || ".";
    return symbol === undefined ? target : `${target}:${symbol}`;
  };
  spec.graphs = Object.fromEntries(Object.entries({ ...spec.graphs, ...extraGraphs }).map(([id, ref]) => [id, absolute(ref)]));
  if (spec.auth?.path) spec.auth.path = absolute(spec.auth.path);
  spec.dependencies = (spec.dependencies ?? []).map(absolute);
  const config = join(dir, "langgraph.json");
  writeFileSync(config, JSON.stringify(spec, null, 2));
  return { dir, config };
}

export interface DevServer {
  apiUrl: string;
  /** The server's working directory (a fresh temporary one). */
  cwd: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * `langgraphjs dev` for the project's langgraph.json (run from a fresh directory) with `env` added
 * and `extraGraphs` (id → `path:export`, relative to the project) served beside its graphs; resolves
 * once GET /info answers.
 */
export async function startDevServer(env: Record<string, string>, extraGraphs: Record<string, string> = {}): Promise<DevServer> {
  if (!CLI_AVAILABLE) throw new Error("LANGGRAPH_CLI_BIN is not set");
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  let log = "";
  const { dir, config } = isolatedConfig(extraGraphs);
  const child: ChildProcess = spawn(CLI_BIN as string, ["dev", "--config", config, "--port", String(port), "--host", "127.0.0.1", "--no-browser"], {
    cwd: dir,
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const stop = async (): Promise<void> => {
    if (child.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      // The CLI starts its own children (the API server): stop the whole group.
      process.kill(-child.pid, "SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    }
    // The CLI may exit before the server it started has: stop what is left of the group, which may
    // still be writing its state into the directory, and remove it once their last writes are done.
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`langgraph dev exited with ${child.exitCode}:\n${log}`);
    try {
      // /info answers without a key (the auth middleware skips it).
      if ((await fetch(`${apiUrl}/info`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`langgraph dev did not answer on ${apiUrl} within 120 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { apiUrl, cwd: dir, output: () => log, stop };
}
