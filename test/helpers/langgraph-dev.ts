// Starts a real `langgraph dev` server (the LangGraph CLI .ci/run installs apart, LANGGRAPH_CLI_BIN) on a
// free loopback port for a test file, and stops its whole process group afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
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

export interface DevServer {
  apiUrl: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `langgraphjs dev` in the project root with `env` added; resolves once GET /ok answers. */
export async function startDevServer(env: Record<string, string>): Promise<DevServer> {
  if (!CLI_AVAILABLE) throw new Error("LANGGRAPH_CLI_BIN is not set");
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  let log = "";
  const child: ChildProcess = spawn(CLI_BIN as string, ["dev", "--port", String(port), "--host", "127.0.0.1", "--no-browser"], {
    cwd: ROOT,
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const stop = async (): Promise<void> => {
    if (child.pid === undefined || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    // The CLI starts its own children (the API server): stop the whole group.
    process.kill(-child.pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`langgraph dev exited with ${child.exitCode}:\n${log}`);
    try {
      if ((await fetch(`${apiUrl}/ok`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`langgraph dev did not answer on ${apiUrl} within 120 s:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { apiUrl, output: () => log, stop };
}
