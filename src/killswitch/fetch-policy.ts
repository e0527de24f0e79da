import type { Dispatcher } from "undici";
import { RemotePolicySchema, type RemotePolicy } from "./types.js";

export type FetchOutcome =
  | { kind: "policy"; policy: RemotePolicy; etag: string | undefined }
  | { kind: "not-modified" }
  | { kind: "failure"; reason: string };

interface FetchPolicyOptions {
  url: string;
  /** Already resolved (no `${ENV}` left), lower-case names. */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Origins besides the url's own that a redirect may lead to (as `URL.origin` spells them). */
  allowedRedirectOrigins?: readonly string[] | undefined;
  /** ETag of the policy we hold; sent as If-None-Match. */
  etag?: string | undefined;
  dispatcher?: Dispatcher | undefined;
  /** Aborts the fetch when the killswitch stops. */
  signal?: AbortSignal | undefined;
}

/**
 * One fetch of the remote policy: never throws, every way it can go wrong is a `failure` with a
 * reason naming what happened. The timeout covers every hop, headers and body together.
 */
export async function fetchRemotePolicy(options: FetchPolicyOptions): Promise<FetchOutcome> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  try {
    return await fetchFollowingRedirects(options, signal);
  } catch (error) {
    if (options.signal?.aborted) return failure(`fetch of ${options.url} aborted: the killswitch was stopped`);
    if (deadline.aborted || isUndiciTimeout(error)) {
      return failure(`timed out after ${options.timeoutMs} ms fetching ${options.url}`);
    }
    return failure(`fetch of ${options.url} failed: ${describeError(error)}`);
  }
}

async function fetchFollowingRedirects(options: FetchPolicyOptions, signal: AbortSignal): Promise<FetchOutcome> {
  const origin = new URL(options.url).origin;
  const allowedOrigins = new Set([origin, ...(options.allowedRedirectOrigins ?? [])]);
  const visited = new Set<string>([options.url]);
  let current = options.url;
  for (let hop = 0; ; hop++) {
    // Configured headers (a bearer token, say) only go to the configured origin.
    const sameOrigin = new URL(current).origin === origin;
    const headers: Record<string, string> = {
      accept: "application/json",
      ...(sameOrigin ? options.headers : {}),
      ...(options.etag !== undefined ? { "if-none-match": options.etag } : {}),
    };
    // Loaded on the first fetch: importing the package does not pay for the HTTP client.
    const { request } = await import("undici");
    const response = await request(current, {
      method: "GET",
      headers,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
    const status = response.statusCode;

    if (status === 304) {
      discard(response.body);
      if (options.etag === undefined) return failure(`HTTP 304 from ${current} although no ETag was sent`);
      return { kind: "not-modified" };
    }

    if (status >= 300 && status < 400) {
      discard(response.body);
      const location = headerValue(response.headers["location"]);
      if (location === undefined) return failure(`HTTP ${status} from ${current} without a Location header`);
      const next = new URL(location, current);
      if (next.protocol !== "http:" && next.protocol !== "https:") {
        return failure(`redirect from ${current} to unsupported URL ${next.href}`);
      }
      const refused = refusedRedirect(new URL(current), next, origin, allowedOrigins);
      if (refused !== undefined) return failure(`redirect from ${current} to ${next.href} refused: ${refused}`);
      if (visited.has(next.href)) return failure(`redirect loop: ${current} redirects back to ${next.href}`);
      if (hop >= options.maxRedirects) {
        return failure(`too many redirects: more than ${options.maxRedirects} starting at ${options.url}`);
      }
      visited.add(next.href);
      current = next.href;
      continue;
    }

    if (status < 200 || status >= 300) {
      discard(response.body);
      return failure(`HTTP ${status} from ${current}`);
    }

    const declared = Number(headerValue(response.headers["content-length"]) ?? Number.NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      discard(response.body);
      return failure(`body of ${current} is ${declared} bytes, over the limit of ${options.maxBytes} bytes`);
    }
    const text = await readLimited(response.body, options.maxBytes);
    if (text === undefined) {
      return failure(`body of ${current} is over the limit of ${options.maxBytes} bytes`);
    }
    return parsePolicy(text, current, headerValue(response.headers["etag"]));
  }
}

/**
 * Why a redirect must not be followed, or undefined: it never goes from https to plain http (a
 * listed origin included), nor to an origin other than the policy's own unless that origin is listed.
 */
function refusedRedirect(from: URL, to: URL, origin: string, allowed: ReadonlySet<string>): string | undefined {
  if (from.protocol === "https:" && to.protocol === "http:") return "it leaves https for plain http";
  if (!allowed.has(to.origin)) {
    return `${to.origin} is another origin than the policy's own (${origin}); list it in allowedRedirectOrigins to follow such a redirect`;
  }
  return undefined;
}

/** Reads at most `maxBytes`; returns undefined (and closes the stream) as soon as the limit is crossed. */
async function readLimited(body: Dispatcher.ResponseData["body"], maxBytes: number) {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) {
      discard(body);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

function parsePolicy(text: string, url: string, etag: string | undefined): FetchOutcome {
  let json: unknown;
  try {
    // RFC 8259 §8.1: a parser may ignore a leading byte order mark (a file saved by a Windows editor and served as is).
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    return failure(`body of ${url} is not JSON: ${describeError(error)}`);
  }
  const parsed = RemotePolicySchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
      .join("; ");
    return failure(`body of ${url} is not a valid killswitch policy: ${issues}`);
  }
  return { kind: "policy", policy: parsed.data, etag };
}

/** Closes a body we will not read; undici reports that as an AbortError, which is expected here. */
function discard(body: { on(event: "error", listener: () => void): unknown; destroy(): unknown }): void {
  body.on("error", () => undefined);
  body.destroy();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isUndiciTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause instanceof Error ? error.cause : undefined;
  const causeCode = (cause as { code?: unknown } | undefined)?.code;
  const shownCode = typeof code === "string" ? code : typeof causeCode === "string" ? causeCode : undefined;
  const message = error.message || cause?.message || error.name;
  return shownCode !== undefined && !message.includes(shownCode) ? `${message} (${shownCode})` : message;
}

function failure(reason: string): FetchOutcome {
  return { kind: "failure", reason };
}
