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
  // FileSource: refusals (the model reads them as the tool's error) and results.
  badPath: (input: string, sourceId: string, why: string) =>
    `path ${JSON.stringify(input)} refused by FileSource "${sourceId}": ${why}; give a path relative to the source's base directory, like "src/app.ts"`,
  symlinkEscape: (path: string, sourceId: string) => `path "${path}" refused by FileSource "${sourceId}": a symbolic link leads outside the base directory`,
  baseMissing: (sourceId: string) => `FileSource "${sourceId}": its base directory is gone`,
  notADirectory: (sourceId: string, dir: string) => `FileSource "${sourceId}": ${dir} is not a directory`,
  permissionRefused: (operation: string, path: string, sourceId: string, rule: string | undefined, permission: string, allowed: string) =>
    `file ${operation} refused for "${path}": FileSource "${sourceId}" ${rule ? `rule "${rule}"` : "the default permission"} gives it ${permission}; allowed paths: ${allowed}`,
  namesBaseDirectory: (operation: string, path: string) => `file ${operation} refused for "${path}": it names the base directory`,
  tooLarge: (operation: string, path: string, bytes: number, limit: number) => `file ${operation} refused for "${path}": ${bytes} bytes is over the ${limit}-byte limit`,
  loadMissing: (path: string) => `file load refused for "${path}": no such file; use file create`,
  notLoaded: (path: string) => `"${path}" is not loaded; call file load first`,
  noLoadRecord: (label: string) => `block ${label} has no load record; call file load first`,
  saveNeedsReference: () => "file save needs a path or a label",
  foreignLabel: (label: string, sourceId: string) => `label "${label}" does not belong to FileSource "${sourceId}"`,
  notText: (label: string) => `block ${label} is not text`,
  modifiedExternally: (path: string) => `file save refused for "${path}": file modified externally, use file load to refresh`,
  appendOnly: (path: string) => `file save refused for "${path}": its permission is append and the block changes existing text; only appended text may be saved`,
  alreadyExists: (path: string) => `file create refused for "${path}": it already exists; use file load`,
  loaded: (bytes: number, label: string) => `loaded ${bytes} bytes into block ${label}`,
  saved: (bytes: number, path: string) => `saved ${bytes} bytes to ${path}`,
  created: (path: string, bytes: number, label: string) => `created ${path} (${bytes} bytes) as block ${label}`,
  deleted: (path: string) => `deleted ${path} and its block`,
  appended: (chars: number, label: string) => `appended ${chars} characters to block ${label}; file save writes it to disk`,
  replaced: (label: string) => `replaced text in block ${label}; file save writes it to disk`,
  /** Watch mode: a loaded file changed or vanished outside the agent. */
  fileChangedOutside: (path: string, label: string) => `${path} changed outside the agent; use file load to refresh block ${label} before saving`,
  fileDeletedOutside: (path: string, label: string) => `${path} was deleted outside the agent; its block ${label} keeps the loaded content`,

  /** A path that changed on disk between the check and the descriptor walk. */
  pathSwapped: (path: string, sourceId: string) =>
    `path "${path}" refused by FileSource "${sourceId}": it changed on disk while it was checked (a symbolic link or another directory took its place); nothing was read or written`,
  notARegularFile: (operation: string, path: string) => `file ${operation} refused for "${path}": not a regular file`,
  hardLinked: (operation: string, path: string, sourceId: string) =>
    `file ${operation} refused for "${path}" by FileSource "${sourceId}": the file has another hard link, which may be outside the source's directory; nothing was read or written (allowHardLinks: true accepts such files)`,
  directoryMoved: (path: string, sourceId: string) =>
    `path "${path}" refused by FileSource "${sourceId}": its directory was moved while the file was written; the write was undone`,
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
