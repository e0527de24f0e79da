// The rest of a line after a here-document's marker: `cat <<EOF | sh`, `cat <<EOF && rm x`, `cat <<EOF >
// f.txt && rm x | sh`. tree-sitter-bash puts the pipe or list that follows `<<EOF` inside the
// here-document's redirection, and the guard read only the command with the here-document (`cat`): under
// a deny list (the Bash tool low risk, `rm` and `git push` denied) every line below was allowed while
// bash ran the denied program, including the common `cat <<EOF | sh` with the script in the document.
// The real bash runs each line with the payload replaced by `touch MARKER`.
import { describe, expect, it } from "vitest";
import { bashGuard, denyListGuard, leavesMarker } from "./helpers/bash-rules.js";

const denyList = denyListGuard(["rm:*", "git push:*"], "heredoc-line");
const allowList = bashGuard(["cat:*", "grep:*", "kubectl apply:*", "python3:*"], ["rm:*", "git push:*"], "heredoc-line-allow");

/** `{P}`: the payload (`rm -rf /tmp/x` for the guard, `touch MARKER` for bash), on the line after the marker or in the document. */
const LINES: readonly string[] = [
  "cat <<EOF && {P}\nhi\nEOF",
  "cat <<EOF || true && {P}\nhi\nEOF",
  "false <<EOF || {P}\nhi\nEOF",
  "cat <<EOF > f.txt && {P}\nhi\nEOF",
  "cat <<EOF >> f.txt && {P} && cat f.txt\nhi\nEOF",
  "cat <<EOF | grep -q hi && {P}\nhi\nEOF",
  "cat <<EOF | cat | {P}\nhi\nEOF",
  "python3 <<EOF | {P}\nprint(1)\nEOF",
  "cat <<EOF | sh\n{P}\nEOF",
  "cat <<'EOF' | bash\n{P}\nEOF",
  "cat << \"EOF\" | sh\n{P}\nEOF",
  "cat <<-EOF | sh\n\t{P}\n\tEOF",
  "cat - <<EOF | sh -s\n{P}\nEOF",
  "cat <<EOF |& sh\n{P}\nEOF",
];

const fill = (line: string, payload: string) => line.replaceAll("{P}", payload);

describe("the line after a here-document's marker runs", () => {
  it.each(LINES.map((line) => [fill(line, "rm -rf /tmp/x")] as const))("%j is denied", (line) => {
    const decision = denyList.decide("Bash", { command: line });
    expect(decision.mode, decision.reason).toBe("deny");
    expect(allowList.decide("Bash", { command: line }).mode).toBe("deny");
  });

  it("a here-document piped to a denied command is denied", () => {
    expect(denyList.decide("Bash", { command: "cat <<EOF | git push\nhi\nEOF" }).mode).toBe("deny");
  });

  it("a pipe from a command other than cat gives the shell an input the guard cannot read: a deny cannot tell", () => {
    expect(denyList.decide("Bash", { command: "grep x <<EOF | sh\nrm -rf /tmp/x\nEOF" }).mode).toBe("ask");
  });

  it("here-documents that feed a harmless command stay as allowed under the deny list, and ask under allow lists as any here-document does", () => {
    for (const line of ["cat <<EOF | kubectl apply -f -\nkind: Namespace\nEOF", "cat <<EOF > notes.txt\nhi\nEOF", "python3 <<EOF | grep x\nprint(1)\nEOF"]) {
      expect(denyList.decide("Bash", { command: line }).mode, line).toBe("allow");
      expect(allowList.decide("Bash", { command: line }).mode, line).toBe("ask");
    }
  });
});

describe("the real bash runs the line after the marker", () => {
  it.each(LINES.map((line) => [fill(line, "touch MARKER")] as const))("%j", (line) => {
    const result = leavesMarker(line);
    expect(result.left, result.stderr).toBe(true);
  });
});
