import { z } from "zod";
import type { SourceManager } from "../sources/source-manager.js";
import { defineTool } from "../tools/define-tool.js";

const sourceId = z.string().min(1).describe("Id of the source");

const sourceInputSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("pause"), source_id: sourceId }).describe("Stop notifications from a stream source"),
  z.object({ op: z.literal("resume"), source_id: sourceId }).describe("Resume notifications from a stream source"),
  z.object({ op: z.literal("status"), source_id: sourceId.optional() }).describe("Status of one source, or of all"),
  z.object({ op: z.literal("list") }).describe("List registered sources"),
]);

const SOURCE_USAGE_RULE =
  "source controls data sources: pause/resume a stream source's notifications, status of one or all sources, list sources. The conversation continues after it.";

/** The `source` tool: pause or resume a data source's notifications, read one or all sources' status, list sources. */
export function createSourceTool(options: { sources: SourceManager }) {
  const { sources } = options;
  return defineTool({
    name: "source",
    description: "Data source control: pause, resume, status, list.",
    schema: sourceInputSchema,
    usageRule: SOURCE_USAGE_RULE,
    risk: "low",
    isConcurrencySafe: (input) => input.op === "status" || input.op === "list",
    execute: async (input) => {
      switch (input.op) {
        case "pause":
          return sources.pause(input.source_id);
        case "resume":
          return sources.resume(input.source_id);
        case "status":
          return input.source_id === undefined ? sources.list() : sources.status(input.source_id);
        case "list":
          return sources.list().map((s) => ({ id: s.id, kind: s.kind, state: s.state, description: s.description }));
      }
    },
  });
}
