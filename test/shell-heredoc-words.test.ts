// Words after a here-document's start on the same line are words of the command: bash runs
// `git <<EOF push` as `git push` (a redirection may stand anywhere in a simple command). The parser
// puts them inside the here-document's redirection, and the guard read each as a command of its own
// (`git`, then `push`), so a deny on `git push:*` let the line run. The real bash judges: a `git` on
// PATH records the words it was given.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bashGuard, denyListGuard } from "./helpers/bash-rules.js";

const root = mkdtempSync(path.join(tmpdir(), "gg-heredoc-words-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const bin = path.join(root, "bin");
mkdirSync(bin);
for (const program of ["git", "rm"]) {
  writeFileSync(path.join(bin, program), `#!/bin/sh\nprintf '%s' "${program}" >> "$RAN"\nfor a in "$@"; do printf ' %s' "$a" >> "$RAN"; done\necho >> "$RAN"\n`);
  chmodSync(path.join(bin, program), 0o755);
}

/** What bash ran through the shims. */
function ranByBash(line: string): string[] {
  const ran = path.join(root, `ran-${Math.random().toString(36).slice(2)}`);
  spawnSync("bash", ["-c", line], { cwd: root, timeout: 10_000, stdio: "ignore", env: { PATH: `${bin}:/usr/bin:/bin`, RAN: ran } });
  const out = existsSync(ran) ? readFileSync(ran, "utf8").split("\n").filter((l) => l !== "") : [];
  rmSync(ran, { force: true });
  return out;
}

const deny = denyListGuard(["git push:*", "rm:*"], "heredoc-words");

describe("words after a here-document's start are the command's: a deny reads them", () => {
  it.each([
    ["git <<EOF push\nhello\nEOF", "git push"],
    ["git <<EOF push origin main\nEOF", "git push origin main"],
    ["git 2<<EOF push origin\nEOF", "git push origin"],
    ["git <<-EOF push\n\tEOF", "git push"],
    ["git <<'EOF' push --force\n$x\nEOF", "git push --force"],
    ["git <<EOF >/dev/null push\nEOF", "git push"],
    // The parser cannot read these two (two here-documents; one after `&&`): the deny cannot tell, the call asks.
    ["git <<A <<B push\na\nA\nb\nB", "git push", "ask"],
    ["rm <<EOF -f x\nEOF", "rm -f x"],
    ["true && git <<EOF push\nEOF", "git push", "ask"],
  ])("%s", (line, ran, mode = "deny") => {
    const decision = deny.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe(mode);
    expect(ranByBash(line)).toContain(ran);
  });

  it("an allow of `git status:*` does not cover `git <<EOF push`, nor does `git push` become a program of its own", () => {
    const allow = bashGuard(["git status:*", "push:*"], [], "heredoc-words-allow");
    expect(allow.decide("Bash", { command: "git <<EOF push\nEOF" }).mode).not.toBe("allow");
    expect(ranByBash("git <<EOF push\nEOF")).toEqual(["git push"]);
  });

  it("the descriptor of `2<<EOF` is no command: `cat 3<<EOF` is cat alone", () => {
    const allow = bashGuard(["cat:*", "2:*"], [], "heredoc-descriptor");
    const decision = allow.decide("Bash", { command: "cat 3<<EOF\nx\nEOF" });
    // A here-document is a construct no allow covers; the point is that the reason is that, not a command "3".
    expect(decision.reason).not.toMatch(/\b3\b/);
  });
});
