import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotSpot {
  name: string;
  /** Share of all samples, 0..1. */
  share: number;
}

/** The project's root as the profiled process saw it (any checkout or worktree): frames under it are the project's own. */
const ROOT = `${process.cwd()}/`;

function projectPath(url: string): string | undefined {
  const path = url.replace(/^file:\/\//, "");
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : undefined;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) return url.slice(nm + "node_modules/".length);
  return projectPath(url) ?? url.replace(/^file:\/\//, "");
}

/** Package (or project folder) a frame belongs to: "@langchain/langgraph", "src/guard", "(gc)", "node:internal". */
export function areaOf(url: string): string {
  if (url === "") return "(native/vm)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = url.slice(nm + "node_modules/".length).split("/");
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url);
  }
  const own = projectPath(url);
  if (own !== undefined) return own.split("/").slice(0, 2).join("/");
  if (url.startsWith("node:")) return "node:internal";
  return url;
}

function busyUs(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((n) => IDLE.has(n.callFrame.functionName)).map((n) => n.id));
  let us = 0;
  profile.samples.forEach((id, i) => {
    if (!idle.has(id)) us += profile.timeDeltas[i] ?? 0;
  });
  return us;
}

const IDLE = new Set(["(idle)", "(program)"]);

/** Self time per function and per package, from the busiest `.cpuprofile` in `dir` (the main thread, not tsx's loader). */
export async function summariseProfile(dir: string, top = 15): Promise<{ functions: HotSpot[]; areas: HotSpot[]; totalMs: number }> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".cpuprofile"));
  let best: CpuProfile | undefined;
  for (const file of files) {
    const profile = JSON.parse(await readFile(join(dir, file), "utf8")) as CpuProfile;
    if (!best || busyUs(profile) > busyUs(best)) best = profile;
  }
  if (!best) throw new Error(`no .cpuprofile in ${dir}`);
  const byId = new Map(best.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  best.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (best.timeDeltas[i] ?? 0)));
  let total = 0;
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (IDLE.has(functionName)) continue;
    total += us;
    const fname = `${functionName || "(anonymous)"} ${url ? `${shortUrl(url)}:${lineNumber + 1}` : ""}`.trim();
    functions.set(fname, (functions.get(fname) ?? 0) + us);
    const area = functionName === "(garbage collector)" ? "(gc)" : areaOf(url);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const rank = (m: Map<string, number>): HotSpot[] =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, share: us / total }));
  return { functions: rank(functions), areas: rank(areas), totalMs: total / 1000 };
}
