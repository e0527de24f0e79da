import type { ToolKind } from "./types.js";

// The kind of a tool decides what a failure means for its siblings in the same batch (seed 003: a
// failing call cancels the batch; Claude Code: only a failing shell command cancels its siblings).

/** Names of shell tools (as Claude Code's Bash and the usual agent shells name them): kind "command" unless declared. */
const COMMAND_TOOL_NAMES = new Set(["bash", "shell", "sh", "zsh", "run_shell", "run_command", "execute_command", "terminal"]);

/** A tool's kind: the declared one, else "command" for a shell tool's name, else "other". */
export function toolKindOf(name: string, declared?: ToolKind): ToolKind {
  return declared ?? (COMMAND_TOOL_NAMES.has(name.toLowerCase()) ? "command" : "other");
}

/**
 * Whether a failure of a tool of this kind cancels the other calls of its batch when the tool does
 * not say (`cancelSiblingsOnError`). A command: yes — its siblings were written for the state the
 * failed command was to leave (a build, a checkout), and seed 003 cancels the batch. A read-only
 * tool: no — a failed read changes nothing its siblings see. Any other tool: no (results of
 * concurrency-safe siblings stay useful; the model sees the failure either way).
 */
export function cancelsSiblingsByDefault(kind: ToolKind): boolean {
  return kind === "command";
}
