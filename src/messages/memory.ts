// Sentences of memory, files, data sources and messages (t15): what the model, a reviewer or a
// developer reads when a file operation is refused, a file is reconciled, a source is misconfigured
// or memory is put into the prompt. test/messages-memory.test.ts pins the exact text.

export type ReconcileState = "in-sync" | "block-changed" | "disk-changed" | "conflict" | "deleted";

const RECONCILE_WHAT: Record<Exclude<ReconcileState, "in-sync">, string> = {
  "block-changed": "the block has unsaved edits",
  "disk-changed": "the file changed on disk",
  conflict: "both the file on disk and the block changed since the last load or save",
  deleted: "the file was deleted",
};

export const memoryMessages = {
  /** A path that changed on disk between the check and the descriptor walk. */
  pathSwapped: (path: string, sourceId: string) =>
    `path "${path}" refused by FileSource "${sourceId}": it changed on disk while it was checked (a symbolic link or another directory took its place); nothing was read or written`,
  notARegularFile: (operation: string, path: string) => `file ${operation} refused for "${path}": not a regular file`,
  noSuchFile: (operation: string, path: string) => `file ${operation} refused for "${path}": no such file`,

  reconcileInSync: (path: string, label: string) => `${path}: disk and block ${label} agree`,
  /** What differs; with `unsettled`, how to settle it. */
  reconcileDiffers: (path: string, state: Exclude<ReconcileState, "in-sync">, unsettled: boolean) =>
    `${path}: ${RECONCILE_WHAT[state]}${unsettled ? '; reconcile with strategy "disk" (reload) or "block" (overwrite) to settle it' : ""}`,
  reconcileNothingOnDisk: (path: string) => `${path}: the file was deleted; there is nothing on disk to reload (strategy "block" writes the block back)`,
  reconcileReloaded: (path: string, label: string, droppedEdits: boolean) =>
    `${path}: block ${label} reloaded from disk${droppedEdits ? "; its unsaved edits were dropped" : ""}`,
  reconcileSaved: (path: string, saved: string, overwrote: boolean) => `${path}: ${saved}${overwrote ? "; the external change on disk was overwritten" : ""}`,

  sourceAlreadyRegistered: (id: string) => `source "${id}" is already registered`,
  sourceToolClash: (id: string, tool: string) =>
    `source "${id}" brings a tool named "${tool}", which another source already registered; give it another tool name`,
  missingRequiredTool: (source: string, tool: string, operations: readonly string[], known: readonly string[]) =>
    `source ${source} needs tool ${tool} (operations ${operations.join(", ")}), which is not registered; known tools: ${known.join(", ") || "none"}`,
  undeclaredRequiredOperation: (source: string, tool: string, missing: readonly string[], declared: readonly string[]) =>
    `source ${source} needs ${tool} operations ${missing.join(", ")}, which the tool does not declare (it has ${declared.join(", ")})`,
  requiredOperationNotAllowed: (source: string, tool: string, needed: readonly string[], ruleId: string, allowed: readonly string[], missing: readonly string[]) =>
    `source ${source} needs ${tool} operations ${needed.join(", ")}; rule ${ruleId} allows only ${allowed.join(", ") || "none"}, so ${missing.join(", ")} can never run`,

  unknownChannel: (name: string, known: readonly string[]) =>
    `send_message refused: no channel "${name}"; registered channels: ${known.length ? known.join(", ") : "none"}`,

  /** The opening of the `<memory_blocks>` prompt section. */
  memoryIntro: () =>
    "Your memory blocks now in context: core blocks, pinned blocks and loaded working blocks. Change them with block_edit (or file for file blocks) within each block's permission.",
  memoryTruncated: (missing: number) => `${missing} more characters not shown (memory budget); block info / block load show the whole block`,
  notificationsDropped: (count: number) => `${count} older notifications were dropped (queue full)`,
} as const;
