/**
 * A name this machine's hosts file gives a loopback address is this machine: a deny on 127.0.0.1 or
 * localhost covers it (the guard re-reads /etc/hosts, the host name and the interfaces every few
 * seconds). The verdicts the guard keeps — a value's readings, a field value's verdicts, a whole
 * decision per arguments, a shell line's analysis — must follow the machine: a name added to
 * /etc/hosts after a URL with it was first decided (and allowed) is denied once the hosts file is
 * read again, however many times the same arguments were decided before, and allowed again once
 * the line is gone.
 *
 * The change happens in a private mount namespace (unshare, root): the process deciding sees a copy
 * of /etc/hosts bind-mounted over it and changes that copy, so the machine's own file and the other
 * tests reading it are untouched. The resolver judges the name (getent hosts in the namespace).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";

const CHILD = fileURLToPath(new URL("./fixtures/machine-change-child.ts", import.meta.url));
const canUnshare = spawnSync("unshare", ["--mount", "--propagation", "private", "true"], { stdio: "ignore" }).status === 0;
if (REQUIRE_ORACLES && !canUnshare) throw new Error("REQUIRE_ORACLES=1 but `unshare --mount` cannot run here: this test changes /etc/hosts in a private mount namespace");

const scratch = mkdtempSync(path.join(tmpdir(), "gg-machine-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

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

describe.skipIf(!canUnshare)("a name added to /etc/hosts after its URL was decided", () => {
  it("is denied once the hosts file is read again, whatever was kept for it; allowed again once the line is gone", () => {
    const hosts = path.join(scratch, "hosts");
    copyFileSync("/etc/hosts", hosts);
    const name = `gg-machine-${process.pid}.test`;
    const script = `mount --bind "$1" /etc/hosts && exec "$2" --import tsx "$3" "$1" "$4" "$5"`;
    const run = spawnSync("unshare", ["--mount", "--propagation", "private", "sh", "-c", script, "sh", hosts, process.execPath, CHILD, name, POLICY], {
      encoding: "utf8",
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      timeout: 50_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    expect(result.resolvedBefore, "the name is unknown before").toBeNull();
    expect(result.before, "allowed 300 times before the change").toEqual(["allow"]);
    expect(result.resolvedAfter, "getent hosts answers the new line").toBe("127.0.0.1");
    expect(result.after, "denied after the re-read: WebFetch twice, the curl line, the url kind").toEqual(["deny", "deny", "deny", "deny"]);
    expect(result.fresh, "a policy built after the change").toEqual(["deny", "deny", "deny", "deny"]);
    expect(result.resolvedGone).toBeNull();
    expect(result.gone, "allowed again once the line is gone").toEqual(["allow", "allow", "allow", "allow"]);
  }, 60_000);
});
