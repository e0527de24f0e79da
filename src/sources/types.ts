import type { ToolRule } from "../rules/types.js";
import type { GuardedTool } from "../tools/types.js";
import type { RequiredTool } from "./requirements.js";

/** Block sources own blocks (loaded on demand); stream sources push notifications and can be paused. */
export type SourceKind = "block" | "stream";

export interface SourceStatus {
  id: string;
  kind: SourceKind;
  /** What the source is, e.g. "files under /repo". */
  description: string;
  /** "active", "paused", or "idle" (a block source that is not watching). */
  state: "active" | "paused" | "idle";
  /** Source-specific details: loaded blocks, watched paths, queued notifications. */
  details: Record<string, unknown>;
}

/** Something that happened in a source that the agent should hear about. */
export interface SourceNotification {
  sourceId: string;
  /** Epoch ms. */
  at: number;
  kind: string;
  message: string;
  /** Block the notification concerns, if any. */
  label?: string | undefined;
  detail?: Record<string, unknown> | undefined;
}

export type NotificationSink = (notification: SourceNotification) => void;

export interface DataSource {
  readonly id: string;
  kind(): SourceKind;
  status(): SourceStatus;
  /** Called once on registration with the sink for this source's notifications. */
  attach?(sink: NotificationSink): void;
  /** Stream sources only. */
  pause?(): Promise<void> | void;
  resume?(): Promise<void> | void;
  /** Tools the source registers when it is started (registered with a SourceManager), e.g. FileSource's `file`. */
  tools?(): GuardedTool[];
  /** Tool rules derived from the source's own configuration (e.g. FileSource: its permission rules). */
  toolRules?(): ToolRule[];
  /** The tools and operations the source needs; `validateRules` checks them. */
  requiredTools?(): RequiredTool[];
  /** Loads a block owned by this source (`block load` with `source_id`); returns its label. */
  loadBlock?(reference: string): Promise<{ label: string; summary: string }>;
  close?(): Promise<void> | void;
}
