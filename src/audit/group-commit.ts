/**
 * Group commit for an append-only file: appends are written at once (so a killed process loses
 * none of them: they are in the kernel's page cache), and made durable by `fdatasync`, one sync
 * covering every append written before it started. Concurrent writers share a sync; a writer
 * waits only for the first sync that started after its own append.
 *
 * A sync that fails is sticky: after a failed `fdatasync` the kernel may already have dropped the
 * dirty pages (they are marked clean), so no later sync can prove the earlier appends reached the
 * disk. Every later `durable` and `flush` rejects with the same error, and the file's owner
 * refuses further appends (fail closed).
 */
export class GroupCommit {
  readonly #datasync: () => Promise<void>;
  /** Appends written so far (a generation counter). */
  #written = 0;
  /** Appends covered by the last completed sync. */
  #synced = 0;
  #syncing: Promise<void> | undefined;
  #failure: Error | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(datasync: () => Promise<void>) {
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

  /** Records that one more append was written; returns its generation. */
  written(): number {
    this.#written += 1;
    return this.#written;
  }

  /** Resolves once a sync that started after append `generation` was written has completed. */
  async durable(generation: number): Promise<void> {
    while (this.#synced < generation) {
      if (this.#failure) throw this.#failure;
      if (this.#syncing) {
        await this.#syncing.catch(() => undefined);
        continue;
      }
      await this.#sync();
    }
    if (this.#failure) throw this.#failure;
  }

  /** Syncs within `ms` unless something else syncs first (`ms` 0: on the next turn of the event loop). */
  later(ms: number): void {
    if (this.#timer || this.#failure) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // A failure is kept (sticky) and surfaces on the next append or on close.
      void this.flush().catch(() => undefined);
    }, ms);
    this.#timer.unref?.();
  }

  /** Makes every append written so far durable. */
  async flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    await this.durable(this.#written);
  }

  #sync(): Promise<void> {
    const target = this.#written;
    const run = this.#datasync().then(
      () => {
        if (target > this.#synced) this.#synced = target;
      },
      (error: unknown) => {
        this.#failure ??= error instanceof Error ? error : new Error(String(error));
        throw this.#failure;
      },
    );
    // Waiters only need to know it settled; the caller of #sync gets the outcome from `run`.
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#syncing = settled;
    void settled.then(() => {
      if (this.#syncing === settled) this.#syncing = undefined;
    });
    return run;
  }
}
