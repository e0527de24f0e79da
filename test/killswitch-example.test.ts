import { afterEach, describe, expect, it } from "vitest";
import { killswitchExample } from "../examples/killswitch-basic.js";
import { downUrl, json, startServer, type TestServer } from "./killswitch-helpers.js";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("examples/killswitch-basic.ts", () => {
  it("applies the remote policy it fetched with the token from the environment", async () => {
    const server = await startServer(json({ denyTools: ["deploy_*"], bypassModeDisabled: true }));
    servers.push(server);
    const lines: string[] = [];
    const result = await killswitchExample(`${server.url}/agent-policy`, (line) => lines.push(line));
    expect(result.status).toBe("ok");
    expect(result.deploy?.ruleId).toBe("killswitch:deny-tools");
    expect(result.read).toBeNull();
    expect(server.requests[0]?.headers.authorization).toBe("Bearer example-token");
    expect(lines).toEqual([
      "killswitch restricted -> ok: policy applied",
      "deploy_service: deny (killswitch:deny-tools)",
      "read_file: no opinion",
      "bypass mode allowed: false",
    ]);
  });

  it("fails safe when the policy server is down", async () => {
    const lines: string[] = [];
    const result = await killswitchExample(await downUrl(), (line) => lines.push(line));
    expect(result.status).toBe("restricted");
    expect(result.deploy?.ruleId).toBe("killswitch:restricted");
    expect(result.read).toBeNull();
    expect(lines).toContain("bypass mode allowed: false");
  });
});
