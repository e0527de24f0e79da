import { watch, type FSWatcher } from "node:fs";
import { memoryMessages } from "../messages/memory.js";
import path from "node:path";
import type { LoadedFile, NotificationSink } from "./types.js";

const DELETED = "deleted";

/**
 * Watches the directories of loaded files (a directory watch survives atomic renames, a file watch
 * does not) and reports external changes, debounced per file. Paused: events are ignored; on resume
 * every loaded file is checked once, so nothing that changed meanwhile is lost.
 */
export class FileWatcher {
  readonly #sourceId: string;
  readonly #loadedFiles: () => Iterable<LoadedFile>;
  readonly #hashOf: (loaded: LoadedFile) => Promise<string>;
  readonly #debounceMs: number;
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** real path → hash last reported or expected (our own save), so each change is reported once. */
  readonly #known = new Map<string, string>();
  #sink: NotificationSink | undefined;
  #paused = false;

  /** `hashOf` reads a loaded file the way its source does (through verified descriptors) and hashes it, or returns "deleted". */
  constructor(
    sourceId: string,
    loadedFiles: () => Iterable<LoadedFile>,
    hashOf: (loaded: LoadedFile) => Promise<string>,
    options: { debounceMs?: number | undefined } = {},
  ) {
    this.#sourceId = sourceId;
    this.#loadedFiles = loadedFiles;
    this.#hashOf = hashOf;
    this.#debounceMs = options.debounceMs ?? 100;
  }

  get paused(): boolean {
    return this.#paused;
  }

  attach(sink: NotificationSink): void {
    this.#sink = sink;
  }

  /** Call before writing: the content about to be on disk is ours, not an external change. */
  expect(real: string, sha256: string): void {
    this.#known.set(real, sha256);
  }

  track(loaded: LoadedFile): void {
    this.#known.set(loaded.real, loaded.sha256);
    const dir = path.dirname(loaded.real);
    if (this.#watchers.has(dir)) return;
    const watcher = watch(dir, { persistent: false }, (_event, filename) => {
      if (filename) this.#schedule(path.join(dir, filename.toString()));
    });
    watcher.on("error", () => {
      watcher.close();
      this.#watchers.delete(dir);
    });
    this.#watchers.set(dir, watcher);
  }

  untrack(real: string): void {
    this.#known.delete(real);
  }

  #find(real: string): LoadedFile | undefined {
    for (const loaded of this.#loadedFiles()) if (loaded.real === real) return loaded;
    return undefined;
  }

  #schedule(real: string): void {
    if (this.#paused || !this.#known.has(real)) return;
    clearTimeout(this.#timers.get(real));
    this.#timers.set(
      real,
      setTimeout(() => {
        this.#timers.delete(real);
        void this.#check(real);
      }, this.#debounceMs),
    );
  }

  async #check(real: string): Promise<void> {
    const loaded = this.#find(real);
    if (!loaded || this.#paused) return;
    const current = await this.#hashOf(loaded);
    const known = this.#known.get(real) ?? loaded.sha256;
    if (current === known || this.#paused) return;
    this.#known.set(real, current);
    this.#sink?.({
      sourceId: this.#sourceId,
      at: Date.now(),
      kind: current === DELETED ? "file-deleted" : "file-modified",
      label: loaded.label,
      message: current === DELETED ? memoryMessages.fileDeletedOutside(loaded.path, loaded.label) : memoryMessages.fileChangedOutside(loaded.path, loaded.label),
      detail: { path: loaded.path },
    });
  }

  pause(): void {
    this.#paused = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async resume(): Promise<void> {
    if (!this.#paused) return;
    this.#paused = false;
    for (const loaded of [...this.#loadedFiles()]) await this.#check(loaded.real);
  }

  close(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
