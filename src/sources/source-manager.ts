import { MemoryError } from "../memory/errors.js";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import { memoryMessages } from "../messages/memory.js";
import type { ToolRule } from "../rules/types.js";
import type { GuardedTool } from "../tools/types.js";
import type { RequiredTool } from "./requirements.js";
import type { DataSource, SourceNotification, SourceStatus } from "./types.js";

/** Registry of data sources with the pause / resume / status / list the `source` tool exposes. */
export class SourceManager {
  readonly #sources = new Map<string, DataSource>();
  readonly #queue: SourceNotification[] = [];
  readonly #maxQueued: number;
  #dropped = 0;

  constructor(options: { maxQueuedNotifications?: number } = {}) {
    this.#maxQueued = options.maxQueuedNotifications ?? 1000;
  }

  register(source: DataSource): this {
    if (this.#sources.has(source.id)) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, memoryMessages.sourceAlreadyRegistered(source.id));
    // Starting a source registers its tools: two sources may not bring tools of the same name.
    const taken = new Set(this.tools().map((t) => t.name));
    const clash = (source.tools?.() ?? []).find((t) => taken.has(t.name));
    if (clash) throw new GuardedGraphError(ErrorCode.MEMORY_CONFIG, memoryMessages.sourceToolClash(source.id, clash.name));
    this.#sources.set(source.id, source);
    source.attach?.((n) => this.#enqueue(n));
    return this;
  }

  /** The tools the registered sources brought (FileSource's `file`, ...), in registration order. */
  tools(): GuardedTool[] {
    return [...this.#sources.values()].flatMap((s) => s.tools?.() ?? []);
  }

  /** Tool rules the registered sources derive from their own configuration. */
  toolRules(): ToolRule[] {
    return [...this.#sources.values()].flatMap((s) => s.toolRules?.() ?? []);
  }

  /** What the registered sources need from the agent's tools; pass to `validateRules(rules, catalog, { required })`. */
  requiredTools(): RequiredTool[] {
    return [...this.#sources.values()].flatMap((s) => s.requiredTools?.() ?? []);
  }

  get(id: string): DataSource | undefined {
    return this.#sources.get(id);
  }

  require(id: string): DataSource {
    const source = this.#sources.get(id);
    if (!source) {
      const known = [...this.#sources.keys()];
      throw new MemoryError(
        `no source "${id}"; registered sources: ${known.length ? known.join(", ") : "none"}`,
        "source:not-found",
      );
    }
    return source;
  }

  list(): SourceStatus[] {
    return [...this.#sources.values()].map((s) => s.status());
  }

  status(id: string): SourceStatus {
    return this.require(id).status();
  }

  /** Pauses a stream source. A block source is left as it is and the reply says why. */
  async pause(id: string): Promise<string> {
    const source = this.require(id);
    if (source.kind() !== "stream" || !source.pause) return this.#notAStream(source);
    await source.pause();
    return `source "${id}" paused: its notifications stop until source resume`;
  }

  async resume(id: string): Promise<string> {
    const source = this.require(id);
    if (source.kind() !== "stream" || !source.resume) return this.#notAStream(source);
    await source.resume();
    return `source "${id}" resumed`;
  }

  #notAStream(source: DataSource): string {
    const status = source.status();
    return `source "${source.id}" is a block source, not a stream: pause/resume do not apply (state: ${status.state}, ${JSON.stringify(status.details)})`;
  }

  #enqueue(notification: SourceNotification): void {
    this.#queue.push(notification);
    while (this.#queue.length > this.#maxQueued) {
      this.#queue.shift();
      this.#dropped += 1;
    }
  }

  /** Queued notifications, oldest first; the queue is emptied. */
  drainNotifications(): SourceNotification[] {
    return this.#queue.splice(0, this.#queue.length);
  }

  get pendingNotifications(): number {
    return this.#queue.length;
  }

  /** Notifications dropped because the queue was full. */
  get droppedNotifications(): number {
    return this.#dropped;
  }

  async close(): Promise<void> {
    for (const source of this.#sources.values()) await source.close?.();
  }
}
