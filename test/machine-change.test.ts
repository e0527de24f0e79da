/**
 * A name this machine's hosts file gives a loopback address is this machine: a deny on 127.0.0.1 or
 * localhost covers it (the guard re-reads /etc/hosts, the host name and the interfaces every few
 * seconds). The verdicts the guard keeps — a value's readings, a field value's verdicts, a whole
 * decision per arguments — must follow the machine: a name added to /etc/hosts after a URL with it
 * was first decided (and allowed) is denied once the hosts file is read again, however many times
 * the same arguments were decided before, and allowed again once the line is gone.
 *
 * Needs to write /etc/hosts (tests here run as root); restored in a finally. The resolver itself
 * judges the name (getent hosts answers 127.0.0.1 after the line is added).
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, readFileSync, writeFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { parsePolicy, permissionPolicy } from "../src/policy/index.js";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";

const HOSTS = "/etc/hosts";
let writable = false;
try {
  accessSync(HOSTS, constants.W_OK);
  writable = true;
} catch {
  writable = false;
}
if (REQUIRE_ORACLES && !writable) throw new Error("REQUIRE_ORACLES=1 but /etc/hosts cannot be written: this test needs to change the machine's names");

const original = writable ? readFileSync(HOSTS, "utf8") : "";
afterAll(() => {
  if (writable) writeFileSync(HOSTS, original);
});

/** The resolver's answer for a name (getent hosts), or undefined. */
const resolved = (name: string) => spawnSync("getent", ["hosts", name], { encoding: "utf8" }).stdout?.trim().split(/\s+/)[0] || undefined;

/** Past the guard's re-read interval of the machine's names (5 s). */
const PAST_REREAD_MS = 5_600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const POLICY = `version: 1
permissions:
  - { rule: "WebFetch(domain:127.0.0.1)", mode: deny }
  - { rule: "WebFetch(domain:localhost)", mode: deny }
  - { rule: "Bash(curl *127.0.0.1*)", mode: deny }
  - { tool: WebFetch, where: { url: { glob: "http://127.0.0.1*" } }, mode: deny }
  - { tool: WebFetch, mode: allow }
  - { rule: "Bash(curl:*)", mode: allow }
  - { tool: Fetch, where: { url: { url: "http://127.0.0.1/**" } }, mode: deny }
  - { tool: Fetch, mode: allow }
`;

describe.skipIf(!writable)("a name added to /etc/hosts after its URL was decided", () => {
  it("is denied once the hosts file is read again, whatever was kept for it; allowed again once the line is gone", async () => {
    const policy = permissionPolicy(parsePolicy(POLICY, "yaml", "machine-change.yaml"));
    const name = `gg-machine-${process.pid}-${Date.now().toString(36)}.test`;
    const calls = [
      ["WebFetch", { url: `http://${name}/admin` }],
      ["WebFetch", { url: `http://${name}:8080/x` }],
      ["Bash", { command: `curl http://${name}/admin` }],
      ["Fetch", { url: `http://${name}/` }],
    ] as const;
    expect(resolved(name)).toBeUndefined();
    // Decided many times before the change: every layer that keeps verdicts holds them.
    for (let i = 0; i < 300; i++) for (const [tool, args] of calls) expect(policy.decide(tool, { ...args }).mode, `${tool} ${JSON.stringify(args)} before`).toBe("allow");
    try {
      writeFileSync(HOSTS, `${original.replace(/\n?$/, "\n")}127.0.0.1 ${name}\n`);
      expect(resolved(name), "getent hosts answers the new line").toBe("127.0.0.1");
      await sleep(PAST_REREAD_MS);
      for (const [tool, args] of calls) {
        const decision = policy.decide(tool, { ...args });
        expect(decision.mode, `${tool} ${JSON.stringify(args)} after ${name} became 127.0.0.1: ${decision.reason ?? ""}`).toBe("deny");
      }
      // A policy built after the change reads it the same way.
      const fresh = permissionPolicy(parsePolicy(POLICY, "yaml", "machine-change-fresh.yaml"));
      for (const [tool, args] of calls) expect(fresh.decide(tool, { ...args }).mode, `${tool} (fresh policy)`).toBe("deny");
    } finally {
      writeFileSync(HOSTS, original);
    }
    expect(resolved(name)).toBeUndefined();
    await sleep(PAST_REREAD_MS);
    for (const [tool, args] of calls) expect(policy.decide(tool, { ...args }).mode, `${tool} ${JSON.stringify(args)} after the line is gone`).toBe("allow");
  }, 60_000);
});
