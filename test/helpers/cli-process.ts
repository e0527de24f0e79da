import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAIN = join(ROOT, "src", "cli", "main.ts");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * One CLI process, offline (no model key), in `dir`, with its own database (sqlite in `dir`, unless
 * the args name `--db`) and audit log (`dir/audit.jsonl`).
 */
export function cli(dir: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const db = args.includes("--db") || args[0] === "audit" ? [] : ["--db", `sqlite:${join(dir, "x.db")}`];
  const storage = [...db, "--audit", `jsonl:${join(dir, "audit.jsonl")}`];
  const withStorage = args[0] === "policy" ? args : [...args, ...storage];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, ...withStorage], {
      cwd: dir,
      env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", GUARDED_GRAPH_DB: "", GUARDED_GRAPH_AUDIT: "", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}
