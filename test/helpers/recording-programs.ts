// Programs that record the words they were given, for tests where the real bash judges what a line runs:
// each run writes one line (its name and words, separated by U+001F) with a single write, so programs
// of a pipeline that run at once do not interleave.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface RecordingPrograms {
  /** A scratch folder of the tests' own (removed by `remove`). */
  readonly root: string;
  /**
   * Runs `line` with the real bash in a new directory under `root` holding `files` (empty), with only
   * the recording programs and /usr/bin:/bin on PATH and `env` added: the commands they ran, each as
   * its words; undefined when bash refused the line as a syntax error.
   */
  run(line: string, options?: { readonly files?: readonly string[]; readonly env?: Readonly<Record<string, string>> }): string[][] | undefined;
  remove(): void;
}

export function recordingPrograms(names: readonly string[], prefix: string): RecordingPrograms {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  const bin = path.join(root, "bin");
  mkdirSync(bin);
  for (const name of names) {
    const program = path.join(bin, name);
    writeFileSync(program, `#!/bin/sh\nline="${name}"\nfor a in "$@"; do line="$line$(printf '\\037')$a"; done\nprintf '%s\\n' "$line" >> "$RAN"\n`);
    chmodSync(program, 0o755);
  }
  return {
    root,
    run(line, options = {}) {
      const dir = mkdtempSync(path.join(root, "run-"));
      try {
        for (const file of options.files ?? []) writeFileSync(path.join(dir, file), "");
        const ran = path.join(dir, ".ran");
        const result = spawnSync("bash", ["-c", line], { cwd: dir, timeout: 10_000, stdio: ["ignore", "ignore", "pipe"], env: { PATH: `${bin}:/usr/bin:/bin`, HOME: dir, RAN: ran, ...options.env } });
        if (String(result.stderr).includes("syntax error")) return undefined;
        return existsSync(ran) ? readFileSync(ran, "utf8").split("\n").filter((l) => l !== "").map((l) => l.split("\u001f")) : [];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
