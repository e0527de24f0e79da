// A tool's result reaches the model as the plain tool's would: LangChain keeps content blocks (a
// screenshot tool's image) as blocks. The guard wrote every non-string result as JSON text, so an
// image reached the model as a base64 string, cut at maxResultChars.
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../src/tools/define-tool.js";
import { contentText, isContentBlocks, toolContent } from "../src/tools/tool-content.js";
import { build, ENTRIES, messagesOf, newThread } from "./helpers/provider-agent.js";

const PNG = "iVBORw0KGgo".padEnd(40_000, "A");
const image = { type: "image", source_type: "base64", mime_type: "image/png", data: PNG };

describe("toolContent", () => {
  it("keeps text and content blocks; writes data as JSON", () => {
    expect(toolContent("plain")).toBe("plain");
    expect(toolContent([{ type: "text", text: "a" }, image])).toEqual([{ type: "text", text: "a" }, image]);
    expect(toolContent([{ type: "image_url", image_url: { url: "https://x/y.png" } }])).toEqual([{ type: "image_url", image_url: { url: "https://x/y.png" } }]);
    // Rows a query returned are data, not content blocks: a provider would refuse them as content.
    expect(toolContent([{ type: "pod", name: "web-1" }])).toBe('[{"type":"pod","name":"web-1"}]');
    expect(toolContent([{ id: 1 }, { id: 2 }])).toBe('[{"id":1},{"id":2}]');
    expect(toolContent([{ type: "text" }])).toBe('[{"type":"text"}]');
    expect(toolContent([])).toBe("[]");
    expect(toolContent({ a: 1 })).toBe('{"a":1}');
    expect(toolContent(undefined)).toBe("");
    expect(isContentBlocks([{ type: "text", text: "x" }])).toBe(true);
    expect(contentText([{ type: "text", text: "a" }, image, { type: "text", text: "b" }])).toBe("a\nb");
  });
});

function screenshotTools(ran: string[]) {
  const plain = tool(() => (ran.push("plain"), [{ type: "text", text: "the page" }, image]), { name: "screenshot", description: "Take a screenshot", schema: z.object({ url: z.string() }) });
  const typed = defineTool({
    name: "capture",
    description: "Capture a page",
    schema: z.object({ url: z.string() }),
    risk: "low",
    maxResultChars: 100,
    execute: () => (ran.push("typed"), [{ type: "text", text: "x".repeat(500) }, image]),
  });
  const rows = defineTool({ name: "rows", description: "Rows", schema: z.object({}), risk: "low", execute: () => [{ type: "pod", name: "web-1" }] });
  return [plain, typed, rows];
}

describe.each(ENTRIES)("%s", (entry) => {
  it("content blocks stay blocks (the image whole, long text cut to maxResultChars); records stay JSON", async () => {
    const ran: string[] = [];
    const { graph } = build(entry, {
      tools: screenshotTools(ran),
      replies: [[{ name: "screenshot", args: { url: "u" }, id: "s1" }, { name: "capture", args: { url: "u" }, id: "c1" }, { name: "rows", args: {}, id: "r1" }], "seen"],
      guard: { defaultRisk: "low" },
    });
    const out = await graph.invoke({ messages: [new HumanMessage("look")] }, newThread(`blocks-${entry}`));
    const byId = new Map(messagesOf(out).filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.tool_call_id, m]));
    expect(byId.get("s1")?.content).toEqual([{ type: "text", text: "the page" }, image]);
    const captured = byId.get("c1")?.content as { type: string; text?: string; data?: string }[];
    expect(captured.map((b) => b.type)).toEqual(["text", "image"]);
    expect(captured[0]?.text?.length).toBeLessThanOrEqual(100);
    expect(captured[0]?.text).toContain("chars truncated");
    expect(captured[1]?.data).toBe(PNG);
    expect(byId.get("r1")?.content).toBe('[{"type":"pod","name":"web-1"}]');
    expect(ran.sort()).toEqual(["plain", "typed"]);
  });
});
