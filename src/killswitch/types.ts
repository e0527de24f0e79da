import { z } from "zod";

/** How the guard restricts while the remote policy cannot be trusted. */
export const RestrictModeSchema = z.enum(["deny-risky", "ask-non-low"]);
export type RestrictMode = z.infer<typeof RestrictModeSchema>;

/** The `killswitch` section of a policy file. Durations in ms. */
export const KillswitchConfigSchema = z
  .object({
    url: z.url(),
    ttlMs: z.number().int().positive().default(60_000),
    /** Refresh this long before expiry, in the background. */
    refreshAheadMs: z.number().int().nonnegative().default(5_000),
    timeoutMs: z.number().int().positive().default(2_000),
    /** A policy older than this (since its last successful fetch) counts as a failure. */
    maxAgeMs: z.number().int().positive().default(300_000),
    maxBytes: z.number().int().positive().default(1_000_000),
    maxRedirects: z.number().int().nonnegative().default(3),
    /** Header name → value; `${ENV_NAME}` is replaced from the environment. */
    headers: z.record(z.string(), z.string()).default({}),
    onFailure: RestrictModeSchema.default("deny-risky"),
  })
  .strict();
export type KillswitchConfig = z.infer<typeof KillswitchConfigSchema>;
export type KillswitchConfigInput = z.input<typeof KillswitchConfigSchema>;

/** The remote policy document. */
export const RemotePolicySchema = z
  .object({
    /** Stop every tool call. */
    stopAll: z.boolean().default(false),
    /** Disable bypass mode (auto-approval of asks). */
    bypassModeDisabled: z.boolean().default(false),
    /** Tool names or globs that are denied. */
    denyTools: z.array(z.string()).default([]),
    /** Tool names or globs that must ask. */
    askTools: z.array(z.string()).default([]),
    reason: z.string().optional(),
  })
  .strict();
export type RemotePolicy = z.infer<typeof RemotePolicySchema>;

export type KillswitchStatus = "ok" | "restricted";

export interface KillswitchSnapshot {
  status: KillswitchStatus;
  /** Why restricted (no fetch yet, timeout, HTTP 500, invalid body, too large, stale, ...). */
  reason?: string | undefined;
  policy?: RemotePolicy | undefined;
  /** Epoch ms of the last successful fetch. */
  fetchedAt?: number | undefined;
  restrictMode: RestrictMode;
}
