import { z } from "zod";
import { defineTool } from "../../src/tools/index.js";
import type { GuardedTool } from "../../src/tools/types.js";

const Input = z.object({ path: z.string(), query: z.string().optional() });
export type NoopInput = z.output<typeof Input>;

/** The no-op tools every W1 contender calls (LangChain structured tools made by `defineTool`). */
export const NOOP_TOOL_NAMES = ["noop_read", "noop_list", "noop_stat", "noop_search"] as const;
/** Registered but never called: tool rules refer to them so the rules have real work. */
export const IDLE_TOOL_NAMES = ["idle_deploy", "idle_delete", "idle_notify", "idle_report"] as const;
/** Arguments of every W1 call. */
export const NOOP_ARGS: NoopInput = { path: "/workspace/project/src/index.ts", query: "select 1" };

export function noopTools(): GuardedTool<NoopInput>[] {
  return [...NOOP_TOOL_NAMES, ...IDLE_TOOL_NAMES].map((name) =>
    defineTool({
      name,
      description: `no-op benchmark tool ${name}`,
      schema: Input,
      risk: "low",
      isConcurrencySafe: () => true,
      execute: () => "ok",
    }),
  );
}

/** First start and last end of the calls since `reset` (performance.now() ms). */
export class PhaseClock {
  first = Number.POSITIVE_INFINITY;
  last = Number.NEGATIVE_INFINITY;
  reset(): void {
    this.first = Number.POSITIVE_INFINITY;
    this.last = Number.NEGATIVE_INFINITY;
  }
  get spanMs(): number {
    return this.last - this.first;
  }
}

/** A tool that sleeps `ms` (honouring its abort signal): W3's "safe call × 50 ms". */
export function sleepTool(name: string, ms: number, clock?: PhaseClock): GuardedTool<NoopInput> {
  return defineTool({
    name,
    description: `sleeps ${ms} ms`,
    schema: Input,
    risk: "low",
    isConcurrencySafe: () => true,
    execute: (_input, ctx) =>
      new Promise<string>((resolve, reject) => {
        if (clock) clock.first = Math.min(clock.first, performance.now());
        const onAbort = () => {
          clearTimeout(timer);
          reject(new Error("aborted"));
        };
        const timer = setTimeout(() => {
          ctx.signal.removeEventListener("abort", onAbort);
          if (clock) clock.last = Math.max(clock.last, performance.now());
          resolve("slept");
        }, ms);
        ctx.signal.addEventListener("abort", onAbort, { once: true });
      }),
  });
}
