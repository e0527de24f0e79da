/**
 * What a tool's result becomes as the content of its ToolMessage. LangChain keeps a string as it is
 * and an array of content blocks as blocks (a screenshot tool's image reaches the model as an image);
 * anything else is written as JSON text. The guard does the same, so that a guarded tool's result
 * reads to the model as the plain tool's does.
 */
import type { MessageContent } from "@langchain/core/messages";

/** A ToolMessage's content as the guard writes it: text, or content blocks. */
export type ToolContent = MessageContent;
type Blocks = Exclude<MessageContent, string>;

/**
 * Block types a chat model reads as message content (LangChain's standard blocks and the providers'
 * own): an array of objects of these types is content, not data. An array of plain records (rows a
 * query returned) is data: written as JSON, as a provider would refuse it as content.
 */
const CONTENT_BLOCK_TYPES: ReadonlySet<string> = new Set(["text", "image", "image_url", "file", "audio", "video", "document", "text-plain", "input_audio"]);

/** Whether `value` is a non-empty array of content blocks (a text block with its text string). */
export function isContentBlocks(value: unknown): value is Blocks {
  if (!Array.isArray(value) || value.length === 0) return false;
  return value.every((block: unknown) => {
    if (typeof block !== "object" || block === null) return false;
    const type = (block as { type?: unknown }).type;
    if (typeof type !== "string" || !CONTENT_BLOCK_TYPES.has(type)) return false;
    return type !== "text" || typeof (block as { text?: unknown }).text === "string";
  });
}

/** A tool's result as ToolMessage content: a string or content blocks as they are, anything else as JSON (undefined as ""). */
export function toolContent(result: unknown): ToolContent {
  if (typeof result === "string") return result;
  if (isContentBlocks(result)) return result;
  if (result === undefined) return "";
  return JSON.stringify(result) ?? "";
}

/** The text of content: a string itself, or the text of its text blocks, one per line. */
export function contentText(content: ToolContent): string {
  if (typeof content === "string") return content;
  return content.flatMap((block) => {
    const { type, text } = block as { type?: unknown; text?: unknown };
    return type === "text" && typeof text === "string" ? [text] : [];
  }).join("\n");
}
