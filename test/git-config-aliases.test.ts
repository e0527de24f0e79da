/**
 * A git alias defined in a configuration file (the user's ~/.gitconfig, the repository's .git/config, a
 * file an earlier call wrote) runs the git command it names: with `alias.p = push`, `git p origin main`
 * pushes, as git itself shows below. git runs its own subcommands first, then a git-NAME program, then an
 * alias, so a subcommand git does not have may run anything: a deny rule cannot tell what it runs and the
 * call asks, whatever the deny names. git's own subcommands are read as before.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REQUIRE_ORACLES } from "./helpers/bash-oracle.js";
import { denyListGuard, installed } from "./helpers/bash-rules.js";

const GIT = installed("git");
if (REQUIRE_ORACLES && !GIT) throw new Error("REQUIRE_ORACLES=1 but git is not installed");
const scratch = mkdtempSync(path.join(tmpdir(), "gg-git-alias-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const denyList = denyListGuard(["git push:*", "git reset --hard:*", "rm:*"], "git-config-aliases");

describe("git subcommands an alias in a configuration file may define", () => {
  it.skipIf(!GIT)("git itself: with alias.p = push in the repository's config, `git p origin main` pushes", () => {
    const env = { ...process.env, HOME: scratch, GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
    const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const remote = path.join(scratch, "remote.git");
    const work = path.join(scratch, "work");
    git(scratch, "init", "-q", "--bare", remote);
    git(scratch, "init", "-q", "-b", "main", work);
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x");
    git(work, "remote", "add", "origin", remote);
    git(work, "config", "alias.p", "push");
    const run = spawnSync("git", ["p", "-q", "origin", "main"], { cwd: work, env, encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(git(remote, "rev-parse", "main").trim()).toBe(git(work, "rev-parse", "main").trim());
    expect(denyList.decide("Bash", { command: "git p -q origin main" }).mode).toBe("ask");
  });

  it.each(["git p origin main", "git pf", "git -C . p origin main", "git co -f", "git st && git p", "git lfs push origin main", "git undo"])(
    "%s: a deny list cannot tell what it runs (asks)",
    (command) => {
      const decision = denyList.decide("Bash", { command });
      expect(decision.mode, decision.reason).toBe("ask");
      expect(decision.reason).toMatch(/alias|git-/);
    },
  );

  it.each(["git status", "git log --oneline -5", "git diff HEAD~1", "git commit -m x", "git fetch origin", "git --no-pager log"])("%s: git's own subcommand stays allowed", (command) => {
    expect(denyList.decide("Bash", { command }).mode).toBe("allow");
  });

  it.each(["git push origin main", "git -C . push", "git reset --hard HEAD~1"])("%s stays denied", (command) => {
    expect(denyList.decide("Bash", { command }).mode).toBe("deny");
  });
});
