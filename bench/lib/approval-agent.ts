import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { z } from "zod";
import { MemoryAuditSink } from "../../src/audit/index.js";
import { createGuardedAgent } from "../../src/guard/index.js";
import type { ExecutionLedgerView } from "../../src/guard/interfaces.js";
import { defineTool } from "../../src/tools/index.js";
import type { ToolExecutionContext } from "../../src/tools/types.js";
import { LoopModel } from "./loop-model.js";

/** The approval every W4 resume sends. */
export const APPROVE = { decisions: [{ type: "approve" as const }], actor: "bench" };

/**
 * A guarded agent whose model makes one call to a high-risk tool (so the guard asks a human:
 * one approval interrupt), then answers. `onExecute` sees every real execution of the tool.
 */
export function approvalAgent(checkpointer: BaseCheckpointSaver, onExecute: (ctx: ToolExecutionContext) => Promise<void> | void = () => undefined, ledger?: ExecutionLedgerView) {
  const deploy = defineTool({
    name: "deploy",
    description: "deploys a service (high risk: asks a human)",
    schema: z.object({ path: z.string() }),
    risk: "high",
    execute: async (_input, ctx) => {
      await onExecute(ctx);
      return "deployed";
    },
  });
  return createGuardedAgent({
    model: new LoopModel({ turnsPerRun: 1, calls: ["deploy"], args: { path: "service-a" } }),
    tools: [deploy],
    audit: new MemoryAuditSink(),
    checkpointer,
    ...(ledger ? { ledger } : {}),
  });
}

export type ApprovalAgent = ReturnType<typeof approvalAgent>;
