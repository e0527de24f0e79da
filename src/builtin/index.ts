import type { SourceManager } from "../sources/source-manager.js";
import type { GuardedTool } from "../tools/types.js";
import { createBlockEditTool } from "./block-edit-tool.js";
import { createBlockTool } from "./block-tool.js";
import type { MemoryProvider } from "./context.js";
import { createContextTool } from "./context-tool.js";
import { createRecallTool } from "./recall-tool.js";
import { createSearchTool, type ConversationSearch } from "./search-tool.js";
import { createSendMessageTool, type MessageRouter } from "./send-message-tool.js";
import { createSourceTool } from "./source-tool.js";

export { createBlockEditTool } from "./block-edit-tool.js";
export { createBlockTool } from "./block-tool.js";
export { createContextTool } from "./context-tool.js";
export { createFileTool } from "./file-tool.js";
export { createRecallTool } from "./recall-tool.js";
export { defaultToolRules, renderToolUsageRules } from "./rules.js";
export { InMemoryConversationLog, createSearchTool } from "./search-tool.js";
export {
  MessageRouter,
  OutboxChannel,
  createSendMessageTool,
} from "./send-message-tool.js";
export { createSourceTool } from "./source-tool.js";

export interface BuiltinToolsOptions {
  memory: MemoryProvider;
  sources?: SourceManager;
  /** Include the superseded tools kept for existing agents (context, search, send_message). Default false. */
  superseded?: boolean;
  conversations?: ConversationSearch;
  router?: MessageRouter;
}

/**
 * The v2 memory tools (block, block_edit, recall, and source when sources are given, followed by the
 * tools the sources registered when started, e.g. each FileSource's `file`), plus the superseded ones
 * on request.
 */
export function createBuiltinTools(options: BuiltinToolsOptions): GuardedTool[] {
  const tools: GuardedTool[] = [
    createBlockTool({ memory: options.memory, sources: options.sources }) as GuardedTool,
    createBlockEditTool({ memory: options.memory }) as GuardedTool,
    createRecallTool({ memory: options.memory }) as GuardedTool,
  ];
  if (options.sources) tools.push(createSourceTool({ sources: options.sources }) as GuardedTool, ...options.sources.tools());
  if (options.superseded) {
    tools.push(
      createContextTool({ memory: options.memory }) as GuardedTool,
      createSearchTool({ memory: options.memory, conversations: options.conversations }) as GuardedTool,
      createSendMessageTool({ router: options.router }) as GuardedTool,
    );
  }
  return tools;
}
