import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { memoryMessages } from "../messages/memory.js";
import type { SourceManager } from "../sources/source-manager.js";
import type { SourceNotification } from "../sources/types.js";
import { renderContent } from "./content.js";
import type { MemoryStore } from "./memory-store.js";
import { describePermission } from "./permissions.js";
import type { Block } from "./types.js";

// Memory in the model's context, as Letta puts core memory into the system prompt: every core block,
// every pinned block and every loaded (Working) block, with its label, type, permission and size,
// within a character budget. Archival blocks stay out until `block load` brings them back.

const DEFAULT_MEMORY_BUDGET_CHARS = 12_000;
/** A block is cut rather than left out while at least this many characters of it still fit. */
const MIN_PARTIAL_CHARS = 200;

interface RenderMemoryOptions {
  /** Most characters of block values shown (labels and headers not counted). Default 12,000. */
  budgetChars?: number;
}

/** Where a block stands in the context order: core first, then pinned, then working (newest first). */
function rank(block: Block): number {
  if (block.type === "core") return 0;
  if (block.pinned) return 1;
  return 2;
}

/** Blocks that belong in context, in the order they are shown. */
function blocksInContext(blocks: readonly Block[]): Block[] {
  return blocks
    .filter((b) => b.type === "core" || b.pinned || b.type === "working")
    .sort((a, b) => rank(a) - rank(b) || (rank(a) === 2 ? b.updatedAt - a.updatedAt : a.label.localeCompare(b.label)));
}

function attribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** Content cannot close the tags around it (file content is data, not instructions to the renderer). */
function neutralize(text: string): string {
  return text.replace(/<\/(value|block|memory_blocks|source_notifications)>/gi, "<\\/$1>");
}

/**
 * The `<memory_blocks>` section of the system prompt for these blocks. Blocks that do not fit the
 * budget are cut (with how much is missing) or, when too little room is left, named as not shown.
 */
export function renderMemoryBlocks(blocks: readonly Block[], options: RenderMemoryOptions = {}): string {
  const shown = blocksInContext(blocks);
  if (shown.length === 0) return "";
  let left = options.budgetChars ?? DEFAULT_MEMORY_BUDGET_CHARS;
  const parts: string[] = [];
  const omitted: string[] = [];
  for (const block of shown) {
    const value = renderContent(block.content);
    if (value.length > left && left < MIN_PARTIAL_CHARS) {
      omitted.push(block.label);
      continue;
    }
    const cut = value.length > left;
    const visible = cut ? value.slice(0, left) : value;
    left -= visible.length;
    const header = `<block label="${attribute(block.label)}" type="${block.type}" pinned="${block.pinned}" permission="${block.permission}" chars="${value.length}">`;
    const lines = [header, `<permission>${describePermission(block.permission)}</permission>`];
    if (block.description) lines.push(`<description>${neutralize(block.description)}</description>`);
    lines.push("<value>", neutralize(visible), "</value>");
    if (cut) lines.push(`<truncated>${memoryMessages.memoryTruncated(value.length - visible.length)}</truncated>`);
    lines.push("</block>");
    parts.push(lines.join("\n"));
  }
  const intro = `<memory_blocks>\n${memoryMessages.memoryIntro()}`;
  const tail = omitted.length ? `\n<not_shown reason="memory budget">${omitted.map(attribute).join(", ")}</not_shown>` : "";
  return `${intro}\n${parts.join("\n")}${tail}\n</memory_blocks>`;
}

/** The `<source_notifications>` section: what data sources reported since the last model step. */
function renderNotifications(notifications: readonly SourceNotification[], dropped = 0): string {
  if (notifications.length === 0 && dropped === 0) return "";
  const lines = notifications.map((n) => `- [${n.sourceId}] ${new Date(n.at).toISOString()} ${n.kind}: ${neutralize(n.message)}`);
  if (dropped > 0) lines.push(`- ${memoryMessages.notificationsDropped(dropped)}`);
  return `<source_notifications>\n${lines.join("\n")}\n</source_notifications>`;
}

interface MemoryContextOptions extends RenderMemoryOptions {
  /** The agent's memory, or a function of the run's config (e.g. the platform store). */
  memory: MemoryStore | ((config: LangGraphRunnableConfig | undefined) => MemoryStore);
  /** Sources whose queued notifications are drained into the context at each model step. */
  sources?: SourceManager;
}

/**
 * A context function for `createGuardedAgent({ context })` (and for middleware users, see
 * `memoryPromptMiddleware`): at each model step, the memory blocks in context and the data sources'
 * notifications since the last step, as text for the system prompt. Notifications are drained: each
 * one is shown once.
 */
export function memoryContext(options: MemoryContextOptions): (config?: LangGraphRunnableConfig) => Promise<string> {
  let droppedSeen = 0;
  return async (config) => {
    const memory = typeof options.memory === "function" ? options.memory(config) : options.memory;
    const blocks = await memory.listBlocks();
    const sections = [renderMemoryBlocks(blocks, options)];
    if (options.sources) {
      const dropped = options.sources.droppedNotifications - droppedSeen;
      droppedSeen = options.sources.droppedNotifications;
      sections.push(renderNotifications(options.sources.drainNotifications(), dropped));
    }
    return sections.filter(Boolean).join("\n\n");
  };
}
