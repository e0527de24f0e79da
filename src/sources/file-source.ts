import { createHash } from "node:crypto";
import { memoryMessages } from "../messages/memory.js";
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { replaceOnce } from "../memory/content.js";
import { MemoryError } from "../memory/errors.js";
import type { MemoryStore } from "../memory/memory-store.js";
import { consentPartyFor, permits, type ChangeKind } from "../memory/permissions.js";
import type { Block, JsonValue } from "../memory/types.js";
import { FileRules, isMemoryPermission, type FilePermission, type FileRule, type PermissionMatch } from "./file-rules.js";
import { FileWatcher } from "./file-watcher.js";
import { checkRelativePath, relativeToBase, resolveInside } from "./paths.js";
import { modeIn, openDirChain, openFileIn, readFileIn, removeStaleTempFiles, UnsafePathError, unlinkIn, writeFileIn, type VerifiedDir } from "./safe-fs.js";
import type { DataSource, NotificationSink, SourceKind, SourceStatus } from "./types.js";
import type { RequiredTool } from "./requirements.js";
import type { ToolRule } from "../rules/types.js";
import type { GuardedTool } from "../tools/types.js";
import { createFileTool } from "../builtin/file-tool.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";

type FileOperation = "load" | "save" | "create" | "delete" | "append" | "replace";

/** What each file operation needs from the path's permission. `load` only needs the path not to be denied. */
const CHANGE_OF: Record<FileOperation, ChangeKind | "read"> = {
  load: "read",
  save: "write",
  create: "write",
  delete: "write",
  append: "append",
  replace: "write",
};

export interface FileSourceOptions {
  id: string;
  /** Directory the source is rooted at; must exist. */
  baseDir: string;
  rules: readonly FileRule[];
  memory: MemoryStore;
  /** Permission of paths no rule matches. Default "denied". */
  defaultPermission?: FilePermission;
  /** Largest file `load` reads. Default 1 MiB. */
  maxFileBytes?: number;
  /** Watch loaded files for external changes (makes this a stream source). */
  watch?: boolean | { debounceMs?: number };
  /** Name of the tool this source registers when started. Default "file". */
  toolName?: string;
  /**
   * Accept files with more than one hard link. Default false: a file whose link count (st_nlink) is
   * higher than its names in its own directory is refused, since another name may be outside the root
   * and the file is then that outside file.
   */
  allowHardLinks?: boolean;
}

/** How `reconcile` settles a file whose disk content and block differ. */
type ReconcileStrategy = "safe" | "disk" | "block" | "report";

interface ReconcileResult {
  path: string;
  label: string;
  /** What differed: nothing, the block only (unsaved edits), the disk only (an external edit), both, or the file is gone. */
  state: "in-sync" | "block-changed" | "disk-changed" | "conflict" | "deleted";
  /** What reconcile did. */
  action: "none" | "reloaded" | "saved" | "refused";
  message: string;
}

/** What `load` recorded about the file on disk, to detect external edits on `save`. */
export interface LoadedFile {
  path: string;
  label: string;
  real: string;
  mtimeMs: number;
  size: number;
  sha256: string;
}

interface Authorized {
  relative: string;
  real: string;
  exists: boolean;
  permission: FilePermission;
}

interface FileResult {
  path: string;
  label: string;
  permission: FilePermission;
  message: string;
  content?: string;
}

function sha256(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Files under one base directory as Working memory blocks. Glob rules decide what each
 * path allows; paths are checked before any disk access; saves are atomic and refuse when the file
 * changed on disk since it was loaded.
 */
export class FileSource implements DataSource {
  readonly id: string;
  readonly baseDir: string;
  readonly rules: FileRules;
  readonly memory: MemoryStore;
  readonly maxFileBytes: number;
  readonly allowHardLinks: boolean;
  readonly #loaded = new Map<string, LoadedFile>();
  /** The last change queued per path (see #serial). */
  readonly #writing = new Map<string, Promise<void>>();
  readonly #watcher: FileWatcher | undefined;
  /** Directories already swept for a killed save's temp files by this instance. */
  readonly #cleaned = new Set<string>();
  readonly toolName: string;
  #tool: GuardedTool | undefined;

  constructor(options: FileSourceOptions) {
    this.id = options.id;
    const base = realpathSync(options.baseDir);
    if (!statSync(base).isDirectory()) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, memoryMessages.notADirectory(options.id, options.baseDir));
    this.baseDir = base;
    this.rules = new FileRules(options.rules, options.defaultPermission ?? "denied");
    this.memory = options.memory;
    this.maxFileBytes = options.maxFileBytes ?? 1024 * 1024;
    this.allowHardLinks = options.allowHardLinks === true;
    this.toolName = options.toolName ?? "file";
    if (options.watch) {
      const debounceMs = typeof options.watch === "object" ? options.watch.debounceMs : undefined;
      this.#watcher = new FileWatcher(this.id, () => this.#loaded.values(), (loaded) => this.diskHash(loaded), { debounceMs });
    }
  }

  /** `file:{hash8}:{relative_path}`, hash8 from the absolute path, so equal relative paths of different sources differ. */
  labelFor(relativePath: string): string {
    const absolute = path.join(this.baseDir, relativePath);
    return `file:${sha256(absolute).slice(0, 8)}:${relativePath}`;
  }

  /** Relative path named by a label of this source, or undefined when the label is not one of ours. */
  pathOfLabel(label: string): string | undefined {
    const match = /^file:([0-9a-f]{8}):(.+)$/.exec(label);
    if (!match?.[2]) return undefined;
    return this.labelFor(match[2]) === label ? match[2] : undefined;
  }

  /** The glob permission of a path, with no disk access (throws for paths that are refused outright). */
  permissionFor(inputPath: string): PermissionMatch & { path: string } {
    const relative = checkRelativePath(inputPath, this.id);
    return { ...this.rules.match(relative), path: relative };
  }

  /** Approval reason for `operation` on a path whose permission is human / partner; pure, no disk access. */
  consentFor(operation: FileOperation, inputPath: string): string | undefined {
    if (operation === "load") return undefined;
    let match: PermissionMatch & { path: string };
    try {
      match = this.permissionFor(inputPath);
    } catch {
      return undefined; // refused anyway when it runs
    }
    if (!isMemoryPermission(match.permission)) return undefined;
    const party = consentPartyFor(match.permission);
    if (!party || !permits(match.permission, CHANGE_OF[operation] as ChangeKind)) return undefined;
    return `file ${operation} on "${match.path}" needs ${party === "human" ? "a human's" : "the partner's"} consent (FileSource "${this.id}" rule "${match.rule}": ${match.permission})`;
  }

  /** Path checks and glob permission, then the realpath check against symlinks; refuses what the permission does not allow. */
  async #authorize(operation: FileOperation, inputPath: string): Promise<Authorized> {
    const requested = this.permissionFor(inputPath);
    this.#assertAllows(operation, requested);
    const { real, exists } = await resolveInside(this.baseDir, requested.path, this.id);
    // A symlink inside the base may point at a stricter path (e.g. an .env file): the stricter rule wins.
    const target = FileRules.stricter(requested, this.rules.match(relativeToBase(this.baseDir, real)));
    this.#assertAllows(operation, { ...target, path: requested.path });
    return { relative: requested.path, real, exists, permission: target.permission };
  }

  #assertAllows(operation: FileOperation, match: PermissionMatch & { path: string }): void {
    const change = CHANGE_OF[operation];
    const allowed = match.permission !== "denied" && (change === "read" || permits(match.permission, change));
    if (allowed) return;
    throw new MemoryError(
      memoryMessages.permissionRefused(operation, match.path, this.id, match.rule, match.permission, this.rules.describe()),
      `file-source:${this.id}:${match.rule ?? "default"}`,
    );
  }

  /**
   * Runs `fn` with the verified directory that holds `real` (opened from the base, one descriptor at a
   * time, following no link), after removing temp files a killed save left there. A link or a swap
   * met on the way is refused as a symlink escape: the checked path is no longer what is on disk.
   */
  async #inDirectory<T>(operation: FileOperation, relative: string, real: string, create: boolean, fn: (dir: VerifiedDir, name: string) => Promise<T>): Promise<T> {
    const segments = relativeToBase(this.baseDir, real).split("/");
    const name = segments.pop();
    if (!name) throw new MemoryError(memoryMessages.namesBaseDirectory(operation, relative), "file-source:base-directory");
    let dir: VerifiedDir;
    try {
      dir = await openDirChain(this.baseDir, segments, { create });
    } catch (error) {
      throw this.#diskRefusal(operation, relative, error);
    }
    try {
      if (!this.#cleaned.has(dir.expected)) {
        this.#cleaned.add(dir.expected);
        await removeStaleTempFiles(dir);
      }
      return await fn(dir, name);
    } catch (error) {
      throw this.#diskRefusal(operation, relative, error);
    } finally {
      await dir.close();
    }
  }

  #diskRefusal(operation: FileOperation, relative: string, error: unknown): unknown {
    if (error instanceof UnsafePathError) {
      if (error.reason === "not-a-file") return new MemoryError(memoryMessages.notARegularFile(operation, relative), "file-source:not-a-file");
      if (error.reason === "hard-link") return new MemoryError(memoryMessages.hardLinked(operation, relative, this.id), "file-source:hard-link");
      if (error.reason === "moved") return new MemoryError(memoryMessages.directoryMoved(relative, this.id), "file-source:directory-moved");
      return new MemoryError(memoryMessages.pathSwapped(relative, this.id), "file-source:path-swapped");
    }
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return new MemoryError(memoryMessages.noSuchFile(operation, relative), "file-source:not-found");
    }
    return error;
  }

  /** Reads the file through a verified descriptor; undefined when it does not exist. */
  async #readDisk(operation: FileOperation, relative: string, real: string): Promise<{ data: Buffer; mtimeMs: number; size: number } | undefined> {
    const read = await this.#inDirectory(operation, relative, real, false, (dir, name) => readFileIn(dir, name, this.maxFileBytes, { allowHardLinks: this.allowHardLinks })).catch((error: unknown) => {
      if (error instanceof MemoryError && error.rule === "file-source:not-found") return undefined;
      throw error;
    });
    if (read === undefined) return undefined;
    if ("tooLarge" in read) {
      throw new MemoryError(memoryMessages.tooLarge(operation, relative, read.tooLarge, this.maxFileBytes), "file-source:too-large");
    }
    return { data: read.data, mtimeMs: read.stats.mtimeMs, size: read.stats.size };
  }

  /** sha256 of the file on disk, read through a verified descriptor, or "deleted" (for the watcher). */
  async diskHash(loaded: LoadedFile): Promise<string> {
    const disk = await this.#readDisk("load", loaded.path, loaded.real).catch(() => undefined);
    return disk === undefined ? "deleted" : sha256(disk.data);
  }

  async #track(relative: string, real: string, permission: FilePermission, content: string, mtimeMs: number, size: number): Promise<LoadedFile> {
    const label = this.labelFor(relative);
    const loaded: LoadedFile = { path: relative, label, real, mtimeMs, size, sha256: sha256(content) };
    const metadata: Record<string, JsonValue> = {
      source_id: this.id,
      path: relative,
      disk_mtime_ms: mtimeMs,
      disk_size: size,
      disk_sha256: loaded.sha256,
    };
    await this.memory.putBlock({
      label,
      description: `File ${relative} from source ${this.id}`,
      schema: { kind: "text" },
      type: "working",
      permission: isMemoryPermission(permission) ? permission : "read-only",
      metadata,
      content,
    });
    this.#loaded.set(relative, loaded);
    this.#watcher?.track(loaded);
    return loaded;
  }

  async load(inputPath: string): Promise<FileResult> {
    const { relative, real, exists, permission } = await this.#authorize("load", inputPath);
    const disk = exists ? await this.#readDisk("load", relative, real) : undefined;
    if (!disk) throw new MemoryError(memoryMessages.loadMissing(relative), "file-source:not-found");
    const content = disk.data.toString("utf8");
    const loaded = await this.#track(relative, real, permission, content, disk.mtimeMs, disk.size);
    return { path: relative, label: loaded.label, permission, message: memoryMessages.loaded(disk.size, loaded.label), content };
  }

  /** What load recorded for a path: from this process, else from the block's metadata (after a restart). */
  async #loadedRecord(relative: string, real: string): Promise<{ loaded: LoadedFile; block: Block }> {
    const label = this.labelFor(relative);
    const block = await this.memory.getBlock(label);
    if (!block) throw new MemoryError(memoryMessages.notLoaded(relative), "file-source:not-loaded");
    const cached = this.#loaded.get(relative);
    if (cached) return { loaded: cached, block };
    const m = block.metadata;
    if (typeof m.disk_sha256 !== "string" || typeof m.disk_mtime_ms !== "number" || typeof m.disk_size !== "number") {
      throw new MemoryError(memoryMessages.noLoadRecord(label), "file-source:not-loaded");
    }
    return { loaded: { path: relative, label, real, mtimeMs: m.disk_mtime_ms, size: m.disk_size, sha256: m.disk_sha256 }, block };
  }

  /**
   * The disk content compared with what was last loaded or written, always by hash: an edit that keeps
   * size and mtime (`cp -p`, `touch -r`) and a formatter rewriting right after our save both differ.
   */
  async #diskState(loaded: LoadedFile): Promise<{ changed: boolean; disk: string | undefined }> {
    const disk = await this.#readDisk("save", loaded.path, loaded.real);
    if (!disk) return { changed: true, disk: undefined };
    const text = disk.data.toString("utf8");
    return { changed: sha256(disk.data) !== loaded.sha256, disk: text };
  }

  /**
   * Runs the changes of one path one at a time in this process: a save's external-edit check and its
   * write are one step for other saves, and a write undone after its directory moved never undoes
   * another write's rollback in the wrong order.
   */
  async #serial<T>(inputPath: string, fn: () => Promise<T>): Promise<T> {
    let key: string;
    try {
      key = checkRelativePath(inputPath, this.id);
    } catch {
      return fn(); // refused by fn's own checks
    }
    const previous = this.#writing.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#writing.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.#writing.get(key) === settled) this.#writing.delete(key);
    }
  }

  save(reference: { path?: string | undefined; label?: string | undefined }): Promise<FileResult> {
    const inputPath = reference.path ?? (reference.label === undefined ? undefined : this.pathOfLabel(reference.label));
    return this.#serial(inputPath ?? "", () => this.#save(reference));
  }

  async #save(reference: { path?: string | undefined; label?: string | undefined }): Promise<FileResult> {
    const inputPath = reference.path ?? (reference.label === undefined ? undefined : this.pathOfLabel(reference.label));
    if (inputPath === undefined) {
      throw new MemoryError(
        reference.label === undefined ? memoryMessages.saveNeedsReference() : memoryMessages.foreignLabel(reference.label, this.id),
        "file-source:bad-reference",
      );
    }
    const { relative, real, permission } = await this.#authorizeSave(inputPath);
    const { loaded, block } = await this.#loadedRecord(relative, real);
    if (typeof block.content !== "string") throw new MemoryError(memoryMessages.notText(block.label), "file-source:not-text");
    const content = block.content;
    const { changed, disk } = await this.#diskState(loaded);
    if (changed) {
      throw new MemoryError(memoryMessages.modifiedExternally(relative), "file-source:modified-externally");
    }
    if (permission === "append" && !content.startsWith(disk ?? "")) {
      throw new MemoryError(
        memoryMessages.appendOnly(relative),
        `file-source:${this.id}:append-only`,
      );
    }
    this.#watcher?.expect(real, sha256(content));
    // What was written is recorded (hash of our bytes, stats of our temp file), never a stat taken after
    // the rename, so a rewrite right after the save is seen as an external change at the next save.
    const written = await this.#inDirectory("save", relative, real, false, async (dir, name) =>
      writeFileIn(dir, name, content, { mode: (await modeIn(dir, name)) ?? 0o644 }),
    );
    await this.#track(relative, real, permission, content, written.mtimeMs, written.size);
    return { path: relative, label: block.label, permission, message: memoryMessages.saved(written.size, relative) };
  }

  /** Save needs write permission, or append permission when only appended text is saved (checked in save). */
  async #authorizeSave(inputPath: string) {
    const match = this.permissionFor(inputPath);
    return this.#authorize(match.permission === "append" ? "append" : "save", inputPath);
  }

  create(inputPath: string, content = ""): Promise<FileResult> {
    return this.#serial(inputPath, () => this.#create(inputPath, content));
  }

  async #create(inputPath: string, content: string): Promise<FileResult> {
    const { relative, real, exists, permission } = await this.#authorize("create", inputPath);
    const exists_ = () => new MemoryError(memoryMessages.alreadyExists(relative), "file-source:exists");
    if (exists) throw exists_();
    const written = await this.#inDirectory("create", relative, real, true, (dir, name) => writeFileIn(dir, name, content, { exclusive: true })).catch(
      (error: unknown) => {
        throw (error as NodeJS.ErrnoException).code === "EEXIST" ? exists_() : error;
      },
    );
    const loaded = await this.#track(relative, real, permission, content, written.mtimeMs, written.size);
    return { path: relative, label: loaded.label, permission, message: memoryMessages.created(relative, written.size, loaded.label) };
  }

  delete(inputPath: string): Promise<FileResult> {
    return this.#serial(inputPath, () => this.#delete(inputPath));
  }

  async #delete(inputPath: string): Promise<FileResult> {
    const { relative, real, exists, permission } = await this.#authorize("delete", inputPath);
    if (!exists) throw new MemoryError(memoryMessages.noSuchFile("delete", relative), "file-source:not-found");
    await this.#inDirectory("delete", relative, real, false, async (dir, name) => {
      const { handle } = await openFileIn(dir, name, { allowHardLinks: this.allowHardLinks });
      await handle.close();
      await unlinkIn(dir, name);
    });
    const label = this.labelFor(relative);
    await this.memory.deleteBlock(label);
    this.#loaded.delete(relative);
    this.#watcher?.untrack(real);
    return { path: relative, label, permission, message: memoryMessages.deleted(relative) };
  }

  /** Appends to the loaded block; `file save` writes it to disk. */
  async append(inputPath: string, content: string): Promise<FileResult> {
    const { relative, real, permission } = await this.#authorize("append", inputPath);
    const { block } = await this.#loadedRecord(relative, real);
    const text = typeof block.content === "string" ? block.content : "";
    const updated = await this.memory.putBlock({ ...block, content: text + content });
    return { path: relative, label: updated.label, permission, message: memoryMessages.appended(content.length, updated.label) };
  }

  async replace(inputPath: string, old: string, replacement: string): Promise<FileResult> {
    const { relative, real, permission } = await this.#authorize("replace", inputPath);
    const { block } = await this.#loadedRecord(relative, real);
    const text = typeof block.content === "string" ? block.content : "";
    const updated = await this.memory.putBlock({ ...block, content: replaceOnce(`"${relative}"`, text, old, replacement) });
    return { path: relative, label: updated.label, permission, message: memoryMessages.replaced(updated.label) };
  }

  /**
   * Compares a loaded file's disk content, its load record (what was last loaded or saved) and its
   * block, and settles a difference by `strategy`:
   * - "safe" (default): take the side that changed when only one did (an external edit reloads the
   *   block; unsaved block edits are saved); when both changed, change nothing and report the conflict;
   * - "disk": the disk wins (the block is reloaded, unsaved edits are dropped);
   * - "block": the block wins (it is written over the disk, external edits are lost; needs write permission);
   * - "report": only say what differs.
   */
  async reconcile(inputPath: string, strategy: ReconcileStrategy = "safe"): Promise<ReconcileResult> {
    const { relative, real } = await this.#authorize("load", inputPath);
    const { loaded, block } = await this.#loadedRecord(relative, real);
    const text = typeof block.content === "string" ? block.content : "";
    const disk = await this.#readDisk("load", relative, real);
    const diskChanged = disk === undefined || sha256(disk.data) !== loaded.sha256;
    const blockChanged = sha256(text) !== loaded.sha256;
    const state: ReconcileResult["state"] =
      disk === undefined ? "deleted" : diskChanged && blockChanged ? "conflict" : diskChanged ? "disk-changed" : blockChanged ? "block-changed" : "in-sync";
    const result = (action: ReconcileResult["action"], message: string): ReconcileResult => ({ path: relative, label: block.label, state, action, message });
    if (state === "in-sync") return result("none", memoryMessages.reconcileInSync(relative, block.label));
    const take = strategy === "report" ? undefined : strategy === "disk" ? "disk" : strategy === "block" ? "block" : state === "disk-changed" ? "disk" : state === "block-changed" ? "block" : undefined;
    if (take === undefined) return result(strategy === "report" ? "none" : "refused", memoryMessages.reconcileDiffers(relative, state, strategy !== "report"));
    if (take === "disk") {
      if (disk === undefined) return result("refused", memoryMessages.reconcileNothingOnDisk(relative));
      await this.load(relative);
      return result("reloaded", memoryMessages.reconcileReloaded(relative, block.label, blockChanged));
    }
    // The block wins: record the disk as seen so the save's external-edit check accepts overwriting it.
    const seen = disk === undefined ? loaded : { ...loaded, sha256: sha256(disk.data) };
    this.#loaded.set(relative, seen);
    try {
      const saved = disk === undefined ? await this.create(relative, text) : await this.save({ path: relative });
      return result("saved", memoryMessages.reconcileSaved(relative, saved.message, diskChanged));
    } catch (error) {
      this.#loaded.set(relative, loaded);
      throw error;
    }
  }

  /** The operations this source's permission rules make possible: the tool rules are derived from the permission rules. */
  possibleOperations(): FileOperation[] {
    const permissions = [...this.rules.rules.map((r) => r.permission), this.rules.defaultPermission].filter(isMemoryPermission);
    const ops: FileOperation[] = [];
    if (permissions.length > 0) ops.push("load");
    if (permissions.some((p) => permits(p, "append"))) ops.push("append", "save");
    if (permissions.some((p) => permits(p, "write"))) ops.push("replace", "create", "delete");
    return (["load", "save", "create", "delete", "append", "replace"] as const).filter((op) => ops.includes(op));
  }

  /** The `file` tool of this source (one instance), registered when the source is started. */
  tools(): GuardedTool[] {
    this.#tool ??= createFileTool({ source: this, name: this.toolName }) as GuardedTool;
    return [this.#tool];
  }

  /** ContinueLoop for its tool, and AllowedOperations limited to what the permission rules make possible. */
  toolRules(): ToolRule[] {
    return [
      { type: "ContinueLoop", tool: this.toolName, id: `source:${this.id}:continue` },
      { type: "AllowedOperations", tool: this.toolName, operations: this.possibleOperations(), id: `source:${this.id}:allowed-operations` },
    ];
  }

  /** The tools this source needs: its tool with load, and save when any rule lets the agent change a file. */
  requiredTools(): RequiredTool[] {
    const possible = this.possibleOperations();
    return [{ source: this.id, tool: this.toolName, operations: possible.filter((op) => op === "load" || op === "save") }];
  }

  loadedFiles(): LoadedFile[] {
    return [...this.#loaded.values()].map((f) => ({ ...f }));
  }

  // DataSource

  kind(): SourceKind {
    return this.#watcher ? "stream" : "block";
  }

  status(): SourceStatus {
    return {
      id: this.id,
      kind: this.kind(),
      description: `files under ${this.baseDir}`,
      state: this.#watcher ? (this.#watcher.paused ? "paused" : "active") : "idle",
      details: {
        baseDir: this.baseDir,
        watching: this.#watcher !== undefined,
        loaded: [...this.#loaded.keys()],
        rules: this.rules.rules.map((r) => `${r.pattern}: ${r.permission}`),
      },
    };
  }

  attach(sink: NotificationSink): void {
    this.#watcher?.attach(sink);
  }

  async pause(): Promise<void> {
    this.#watcher?.pause();
  }

  async resume(): Promise<void> {
    await this.#watcher?.resume();
  }

  async loadBlock(reference: string): Promise<{ label: string; summary: string }> {
    const result = await this.load(this.pathOfLabel(reference) ?? reference);
    return { label: result.label, summary: result.message };
  }

  async close(): Promise<void> {
    this.#watcher?.close();
  }
}
