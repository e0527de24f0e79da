/**
 * A benchmark run in a child process of its own: `script` (a bench/lib child) is started with tsx,
 * and the rows it prints as one JSON line after `marker` are read back.
 */
import { spawn } from "node:child_process";
import type { BenchRow } from "./result.js";

export async function rowsFromChild(script: string, marker: string, args: readonly string[]): Promise<BenchRow[]> {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
  const line = out.split("\n").find((l) => l.startsWith(marker));
  if (code !== 0 || line === undefined) throw new Error(`${marker.trim()} child process exited with ${code}: ${err.trim().slice(-2000)}`);
  return JSON.parse(line.slice(marker.length)) as BenchRow[];
}
