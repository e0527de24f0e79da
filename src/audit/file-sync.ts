/**
 * When an append-only file's appends reach the disk. Appends are written at once (so a killed
 * process loses none of them: they are in the kernel's page cache) and made durable by one
 * `fdatasync` that covers every append written before it: a sync now, or a sync deferred for at
 * most a few milliseconds that the next sync makes unnecessary.
 *
 * The sync runs on the calling thread, as better-sqlite3's commits do: measured in W1, a round trip
 * through libuv's thread pool per sync cost ≈ 0.15 × a ToolNode turn more CPU (1.58 vs 1.43 × (a),
 * 40 interleaved blocks), and an agent turn waits for its decision to be on disk anyway.
 *
 * Group commit: writers that need their appends durable before they go on call `syncShared`. The
 * first of them schedules one sync for the end of the current turn of the event loop
 * (`setImmediate`); every writer that appends before it runs — other threads' turns, other sinks'
 * callers — waits for that same sync, and a writer that comes after it is covered by the next one.
 * N concurrent writers cost one `fdatasync`, not N, and none is told durable before its append is.
 *
 * A sync that fails is sticky: after a failed `fdatasync` the kernel may already have dropped the
 * dirty pages (they are marked clean), so no later sync can prove the earlier appends reached the
 * disk. Every later `syncNow` and `flush` throws the same error, and the file's owner refuses
 * further appends (fail closed).
 */
export class FileSync {
  readonly #datasync: () => void;
  /** Appends written so far. */
  #written = 0;
  /** Appends covered by the last completed sync. */
  #synced = 0;
  #failure: Error | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The shared sync the waiting writers wait for (`syncShared`), until it runs. */
  #round: Promise<void> | undefined;

  constructor(datasync: () => void) {
    this.#datasync = datasync;
  }

  /** The error of a failed sync, once there was one. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** True while an append is written but not yet covered by a completed sync. */
  get pending(): boolean {
    return this.#synced < this.#written;
  }

  /** Records that one more append was written. */
  written(): void {
    this.#written += 1;
  }

  /** Makes every append written so far durable (nothing to do when none is pending). */
  syncNow(): void {
    if (this.#failure) throw this.#failure;
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (!this.pending) return;
    const target = this.#written;
    try {
      this.#datasync();
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error));
      throw this.#failure;
    }
    this.#synced = target;
  }

  /**
   * Resolves once every append written so far is durable: one sync shared by every caller that
   * comes before it runs (see the class comment). Rejects every waiter of a failed sync with its
   * error, and at once once a sync has failed.
   */
  syncShared(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    this.#round ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        this.#round = undefined;
        try {
          this.syncNow();
          resolve();
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    return this.#round;
  }

  /** Syncs within `ms` unless something else syncs first. */
  later(ms: number): void {
    if (this.#timer || this.#failure) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      try {
        this.syncNow();
      } catch {
        // Kept (sticky): it surfaces on the next append or at close.
      }
    }, ms);
    this.#timer.unref?.();
  }
}
