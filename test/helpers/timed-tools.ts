import { z } from "zod";
import { defineTool } from "../../src/tools/define-tool.js";

export interface Stamp {
  label: string;
  start: number;
  end: number;
  outcome: "done" | "aborted" | "failed";
  key: string;
  abortReason?: string;
}

/** A tool whose calls stamp their own start and end; safe inputs may run in parallel. */
export function timedTool(stamps: Stamp[], options: { timeoutMs?: number; cancelSiblingsOnError?: boolean } = {}) {
  return defineTool({
    name: "work",
    description: "Waits, then answers",
    schema: z.object({
      label: z.string(),
      ms: z.number().int().nonnegative(),
      safe: z.boolean().default(false),
      fail: z.boolean().default(false),
      ignoreSignal: z.boolean().default(false),
    }),
    isConcurrencySafe: (input) => input.safe,
    timeoutMs: options.timeoutMs,
    cancelSiblingsOnError: options.cancelSiblingsOnError ?? true,
    execute: async (input, ctx) => {
      const start = performance.now();
      const stamp: Stamp = { label: input.label, start, end: start, outcome: "done", key: ctx.idempotencyKey };
      stamps.push(stamp);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, input.ms);
        if (input.ignoreSignal) return;
        const onAbort = () => {
          clearTimeout(timer);
          stamp.outcome = "aborted";
          stamp.abortReason = String((ctx.signal.reason as Error | undefined)?.message ?? ctx.signal.reason);
          reject(new Error("aborted"));
        };
        if (ctx.signal.aborted) onAbort();
        else ctx.signal.addEventListener("abort", onAbort, { once: true });
      }).finally(() => {
        stamp.end = performance.now();
      });
      if (input.fail) {
        stamp.outcome = "failed";
        throw new Error(`${input.label} broke`);
      }
      return `${input.label} done`;
    },
  });
}

export function overlaps(a: Stamp, b: Stamp): boolean {
  return a.start < b.end && b.start < a.end;
}
