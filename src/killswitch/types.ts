import { z } from "zod";

/** How the guard restricts while the remote policy cannot be trusted. */
const RestrictModeSchema = z.lazy(() => z.enum(["deny-risky", "ask-non-low"]));
export type RestrictMode = z.infer<typeof RestrictModeSchema>;

/**
 * An origin a redirect of the policy fetch may lead to: `scheme://host[:port]`, http or https,
 * nothing after it. Read as the WHATWG URL parser reads it (`https://Example.com:443` is
 * `https://example.com`).
 */
const RedirectOriginSchema = z.lazy(() =>
  z.string().transform((value, ctx) => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    const rest = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/$/, "");
    const bare = url !== undefined && url.pathname === "/" && !url.username && !url.password && !/[/?#@\\]/.test(rest);
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || !bare) {
      ctx.addIssue({ code: "custom", message: `${JSON.stringify(value)} is not an origin: write scheme://host[:port] (http or https), with no path, query or user, e.g. "https://policy.example.com"` });
      return z.NEVER;
    }
    return url.origin;
  }),
);

/** The `killswitch` section of a policy file. Durations in ms. */
export const KillswitchConfigSchema = z.lazy(() =>
  z
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
      /**
       * Origins besides the url's own that a redirect may lead to. A redirect to any other origin,
       * and any redirect from https to plain http (listed or not), is a failure: the guard restricts.
       */
      allowedRedirectOrigins: z.array(RedirectOriginSchema).default([]),
      /** Header name → value; `${ENV_NAME}` is replaced from the environment. */
      headers: z.record(z.string(), z.string()).default({}),
      onFailure: RestrictModeSchema.default("deny-risky"),
    })
    .strict(),
);
export type KillswitchConfig = z.infer<typeof KillswitchConfigSchema>;
export type KillswitchConfigInput = z.input<typeof KillswitchConfigSchema>;

/** Keys of the remote document, camelCase and the seed's snake_case spelling (seed 003). */
const REMOTE_KEYS = {
  stopAll: "stop_all",
  bypassModeDisabled: "bypass_mode_disabled",
  denyTools: "deny_tools",
  askTools: "ask_tools",
  reason: "reason",
} as const;

const RemotePolicyShape = z.lazy(() =>
  z
    .object({
      /** Stop every tool call. Missing: false (the seed's own document, `{"bypass_mode_disabled": true}`, names no stopAll and must still let tools run). */
      stopAll: z.boolean().default(false),
      /** Disable bypass mode (auto-approval of asks). Missing: true, its restrictive value (seed 003: `policy.get("bypass_mode_disabled", True)`). */
      bypassModeDisabled: z.boolean().default(true),
      /** Tool names or globs that are denied. */
      denyTools: z.array(z.string()).default([]),
      /** Tool names or globs that must ask. */
      askTools: z.array(z.string()).default([]),
      reason: z.string().optional(),
    })
    .strict(),
);

/**
 * The remote policy document, camelCase (`bypassModeDisabled`) or the seed's snake_case
 * (`bypass_mode_disabled`), read as written. A key given in both spellings is refused (the
 * killswitch then restricts), as is any unknown key. A missing key takes its restrictive value
 * where the seed gives one (bypassModeDisabled → true).
 */
export const RemotePolicySchema = z.lazy(() =>
  z.preprocess((input, ctx) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
    const out: Record<string, unknown> = {};
    const record = input as Record<string, unknown>;
    for (const [camel, snake] of Object.entries(REMOTE_KEYS)) {
      const hasCamel = Object.hasOwn(record, camel);
      const hasSnake = snake !== camel && Object.hasOwn(record, snake);
      if (hasCamel && hasSnake) {
        ctx.addIssue({ code: "custom", path: [snake], message: `${camel} and ${snake} are the same key; give one` });
        return input;
      }
      if (hasCamel) out[camel] = record[camel];
      else if (hasSnake) out[camel] = record[snake];
    }
    const known = new Set<string>([...Object.keys(REMOTE_KEYS), ...Object.values(REMOTE_KEYS)]);
    for (const key of Object.keys(record)) if (!known.has(key)) out[key] = record[key];
    return out;
  }, RemotePolicyShape),
);
export type RemotePolicy = z.output<typeof RemotePolicyShape>;

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
