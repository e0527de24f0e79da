// Inline code (`python3 -c`, `node -e`, `perl -e`, `deno eval`) that starts a process a deny list names
// without any call the guard looked for: Python's `os.posix_spawn`/`posix_spawnp` and asyncio's
// `create_subprocess_exec`/`_shell` (the `_` before `spawn` and `subprocess` hid them from a word match),
// Deno's `Deno.Command` and `Deno.run`, and code that reaches `system` by a name it builds when it runs
// (`getattr(os, "sys"+"tem")`, `__import__`, `globalThis["req"+"uire"]`, Perl's `&{"sys"."tem"}`). And
// a makefile fed to make on its standard input (`make -f - <<EOF`, `make -f /dev/stdin <<< 'all: ; CMD'`),
// whose recipes the line holds. Under a deny list these ran; now the literals are tried as commands
// and a deny none of them matches cannot tell (the call asks).
//
// The real programs judge where installed: each line, with `touch MARKER` as the command it runs,
// leaves MARKER in a scratch directory — the payload really runs — and the guard never allows it.
import { describe, expect, it } from "vitest";
import { denyListGuard, installed, leavesMarker } from "./helpers/bash-rules.js";

const guard = denyListGuard(["rm:*", "git push:*", "touch:*"], "code-indirection");

const CASES: readonly { line: string; program: string }[] = [
  { line: `python3 -c 'import os; os.posix_spawnp("touch", ["touch", "MARKER"], dict(os.environ)); os.wait()'`, program: "python3" },
  { line: `python3 -c 'import os, shutil; os.posix_spawn(shutil.which("touch"), ["touch", "MARKER"], dict(os.environ)); os.wait()'`, program: "python3" },
  { line: `python3 -c 'import asyncio\nasync def m():\n  p = await asyncio.create_subprocess_exec("touch", "MARKER")\n  await p.wait()\nasyncio.run(m())'`, program: "python3" },
  { line: `python3 -c 'import asyncio\nasync def m():\n  p = await asyncio.create_subprocess_shell("tou" + "ch MARKER")\n  await p.wait()\nasyncio.run(m())'`, program: "python3" },
  { line: `python3 -c 'import os; getattr(os, "sys" + "tem")("tou" + "ch MARKER")'`, program: "python3" },
  { line: `python3 -c '__import__("o" + "s").__dict__["sys" + "tem"]("tou" + "ch MARKER")'`, program: "python3" },
  { line: `python3 -c 'import importlib; importlib.import_module("os").__getattribute__("sys" + "tem")("tou" + "ch MARKER")'`, program: "python3" },
  { line: `python3 -c 'eval("__im" + "port__(\\"os\\").sys" + "tem(\\"tou" + "ch MARKER\\")")'`, program: "python3" },
  { line: `node -e 'globalThis.process.getBuiltinModule("child_" + "process")["execS" + "ync"]("tou" + "ch MARKER")'`, program: "node" },
  { line: `node -e 'process["mainModule"]; Function("return process")().getBuiltinModule("child_" + "process").execSync("tou" + "ch MARKER")'`, program: "node" },
  { line: `node -e 'const m = "child_" + "process"; require(m).execSync("tou" + "ch MARKER")'`, program: "node" },
  { line: `perl -e 'my $m = "sys" . "tem"; eval "$m(q(tou) . q(ch MARKER))"'`, program: "perl" },
  { line: `perl -e 'my $f = \\&{"main::run"}; sub run { CORE::system(@_) } $f->("tou" . "ch MARKER")'`, program: "perl" },
  { line: `make -f - <<'EOF'\nall:\n\t@touch MARKER\nEOF`, program: "make" },
  { line: `make -f /dev/stdin <<< 'all: ; touch MARKER'`, program: "make" },
  { line: `make -s -f- <<< 'all: ; @tou\${X}ch MARKER'`, program: "make" },
];

describe("inline code and makefiles fed on the standard input: a deny list never lets the command they run through", () => {
  it.each(CASES.map((c) => [c.line, c] as const))("%s", (_line, c) => {
    const decision = guard.decide("Bash", { command: c.line });
    expect(decision.mode, decision.reason).not.toBe("allow");
    if (installed(c.program)) expect(leavesMarker(c.line).left, leavesMarker(c.line).stderr).toBe(true);
  });

  it("deno's Deno.Command and Deno.run are read as starting processes", () => {
    for (const line of [`deno eval 'new Deno.Command("git", { args: ["push"] }).outputSync()'`, `deno eval 'Deno.run({ cmd: ["git", "push"] })'`]) {
      const decision = guard.decide("Bash", { command: line });
      expect(decision.mode, line).toBe("ask");
      expect(decision.reason).toMatch(/runs code that starts processes/);
    }
  });

  it("the reason names a name built when the code runs", () => {
    const decision = guard.decide("Bash", { command: `python3 -c 'import os; getattr(os, "sys" + "tem")("git pu" + "sh")'` });
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toMatch(/reaches functions by names it builds when it runs/);
  });

  it.each([
    `python3 -c 'import json, sys; print(json.load(sys.stdin)["a"])'`,
    `python3 -c 'import re; print(re.compile("a").match("a"))'`,
    `node -e 'console.log(require("./package.json").version)'`,
    `perl -ne 'print if /x/' a.txt`,
    "make -f Makefile test",
    "make",
  ])("code that reaches no process stays allowed: %s", (line) => expect(guard.decide("Bash", { command: line }).mode).toBe("allow"));
});
