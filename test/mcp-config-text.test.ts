// The MCP configuration as people's editors write it: a leading byte order mark is skipped (RFC 8259
// 8.1 lets a JSON parser ignore it; Windows editors write one), and a file that is not JSON is refused
// with its path named.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readMcpConfig } from "../src/mcp/index.js";

const dir = mkdtempSync(join(tmpdir(), "gg-mcp-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CONFIG = { mcpServers: { fs: { command: "node", args: ["server.js"] } } };

describe("readMcpConfig", () => {
  it("reads a configuration that starts with a byte order mark", async () => {
    const file = join(dir, "bom.json");
    writeFileSync(file, `\ufeff${JSON.stringify(CONFIG, null, 2)}\r\n`);
    const config = await readMcpConfig(file);
    expect(Object.keys(config.mcpServers ?? config)).toEqual(["fs"]);
  });

  it("refuses a file that is not JSON, naming it", async () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, "{ mcpServers: }");
    await expect(readMcpConfig(file)).rejects.toThrow(`${file} is not JSON`);
  });
});
