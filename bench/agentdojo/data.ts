import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/**
 * AgentDojo v1 traces (ETH Zurich SPY Lab, MIT licence, upstream commit 96046ab54) as the
 * replay reads them. The data is not part of this project: pass its directory with --data.
 */

export const SUITES = ["banking", "slack", "travel", "workspace"] as const;
export type Suite = (typeof SUITES)[number];

const CallSchema = z.object({
  function: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  output: z.string(),
  mutates: z.boolean(),
  by: z.enum(["user", "attacker"]),
});

const TraceSchema = z.object({
  suite: z.string(),
  userTask: z.string(),
  prompt: z.string(),
  injectionTask: z.string().nullable(),
  injectionGoal: z.string().optional(),
  firstAttackerIndex: z.number().int().nonnegative().nullable(),
  calls: z.array(CallSchema),
});

const TracesFileSchema = z.object({
  suite: z.string(),
  source: z.string(),
  traces: z.array(TraceSchema),
});

const ParamSchema = z.object({
  name: z.string().min(1),
  required: z.boolean(),
  schema: z.record(z.string(), z.unknown()),
});

const ToolSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  params: z.array(ParamSchema),
  defs: z.record(z.string(), z.record(z.string(), z.unknown())),
});

const ToolsFileSchema = z.object({ suite: z.string(), tools: z.array(ToolSchema) });

export type TraceCall = z.output<typeof CallSchema>;
export type Trace = z.output<typeof TraceSchema>;
export type ToolDescription = z.output<typeof ToolSchema>;

export interface SuiteData {
  suite: Suite;
  traces: Trace[];
  tools: ToolDescription[];
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as unknown;
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
}

export async function loadSuite(dir: string, suite: Suite): Promise<SuiteData> {
  const traces = TracesFileSchema.parse(await readJson(join(dir, `traces-${suite}.json`)));
  const tools = ToolsFileSchema.parse(await readJson(join(dir, `tools-${suite}.json`)));
  return { suite, traces: traces.traces, tools: tools.tools };
}
