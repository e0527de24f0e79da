import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { ErrorCode, GuardedGraphError } from "../errors/index.js";
import { deployMessages } from "../messages/index.js";

/** The user an API key stands for, as LangGraph Platform puts it in `config.configurable.langgraph_auth_user`. */
export interface ApiKeyUser {
  identity: string;
  display_name: string;
  is_authenticated: true;
  permissions: string[];
  /** Attributes policy rules read as `metadata.<key>` (a role, a tenant), from GUARDED_GRAPH_API_USERS. */
  metadata?: Record<string, string | number | boolean | string[]>;
}

/** What GUARDED_GRAPH_API_USERS says of one user: `{ "alice": { "permissions": ["approve"], "metadata": { "role": "lead" } } }`. */
const UserEntrySchema = z.strictObject({
  permissions: z.array(z.string().trim().min(1)).optional(),
  metadata: z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  display_name: z.string().min(1).optional(),
});
type UserEntry = z.output<typeof UserEntrySchema>;

/** GUARDED_GRAPH_API_USERS, parsed: identity → permissions and metadata. A malformed value throws. */
function parseUsers(text: string | undefined): Map<string, UserEntry> {
  if (text === undefined || text.trim() === "") return new Map();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.badApiUsers(error instanceof Error ? error.message : String(error)));
  }
  const parsed = z.record(z.string(), UserEntrySchema).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.badApiUsers(`${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`));
  }
  return new Map(Object.entries(parsed.data));
}

const MIN_KEY_LENGTH = 16;
const identitySchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/, "the user is letters, digits, '.', '_', '@', '-' (at most 128)");
const keySchema = z
  .string()
  .min(MIN_KEY_LENGTH, `the key is shorter than ${MIN_KEY_LENGTH} characters`)
  .max(512, "the key is longer than 512 characters")
  .regex(/^[\x21-\x7e]+$/, "the key has characters other than printable ASCII");

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * The API keys a server accepts, parsed from `GUARDED_GRAPH_API_KEYS` (`alice:KEY,bob:KEY`, commas or
 * newlines between entries). A malformed entry or a key given twice throws: a server must not start
 * with keys it would read differently from what its operator wrote.
 */
export class ApiKeys {
  readonly #entries: { hash: Buffer; user: ApiKeyUser }[];

  private constructor(entries: { hash: Buffer; user: ApiKeyUser }[]) {
    this.#entries = entries;
  }

  /** `users`: GUARDED_GRAPH_API_USERS (JSON), the permissions and metadata of the keys' users. */
  static parse(spec: string | undefined, users?: string): ApiKeys {
    const attributes = parseUsers(users);
    const raw = (spec ?? "")
      .split(/[,\n]/)
      .map((part) => part.trim())
      .filter((part) => part !== "");
    const entries: { hash: Buffer; user: ApiKeyUser }[] = [];
    raw.forEach((entry, index) => {
      const colon = entry.indexOf(":");
      if (colon < 0) throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.badApiKeyEntry(index, "it has no ':' between user and key"));
      const identity = identitySchema.safeParse(entry.slice(0, colon).trim());
      if (!identity.success) throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.badApiKeyEntry(index, identity.error.issues[0]?.message ?? "bad user"));
      const key = keySchema.safeParse(entry.slice(colon + 1).trim());
      if (!key.success) throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.badApiKeyEntry(index, key.error.issues[0]?.message ?? "bad key"));
      const hash = digest(key.data);
      if (entries.some((known) => timingSafeEqual(known.hash, hash))) throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.duplicateApiKey(index));
      const extra = attributes.get(identity.data);
      entries.push({
        hash,
        user: {
          identity: identity.data,
          display_name: extra?.display_name ?? identity.data,
          is_authenticated: true,
          permissions: [...(extra?.permissions ?? [])],
          ...(extra?.metadata === undefined ? {} : { metadata: extra.metadata }),
        },
      });
    });
    // A user with attributes but no key is a misspelling: the attributes would reach no one.
    const keyed = new Set(entries.map((entry) => entry.user.identity));
    for (const name of attributes.keys()) if (!keyed.has(name)) throw new GuardedGraphError(ErrorCode.PLATFORM_CONFIG, deployMessages.apiUserWithoutKey(name, [...keyed]));
    return new ApiKeys(entries);
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The user of `key`, compared in constant time over SHA-256 digests; undefined when no key matches. */
  lookup(key: string): ApiKeyUser | undefined {
    const hash = digest(key);
    let found: ApiKeyUser | undefined;
    for (const entry of this.#entries) if (timingSafeEqual(entry.hash, hash)) found = entry.user;
    return found === undefined ? undefined : { ...found, permissions: [...found.permissions], ...(found.metadata === undefined ? {} : { metadata: structuredClone(found.metadata) }) };
  }
}

/** The key a request carries: `x-api-key` (Agent Chat UI, the SDK's `apiKey`) or `Authorization: Bearer`. */
function apiKeyOf(headers: Headers): string | undefined {
  const direct = headers.get("x-api-key")?.trim();
  if (direct) return direct;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match?.[1];
}

type AuthOutcome = { ok: true; user: ApiKeyUser } | { ok: false; status: 401; message: string };

/** The user a health probe is served as: no identity, no permissions. */
const HEALTH_PROBE_USER: ApiKeyUser = Object.freeze({ identity: "health-probe", display_name: "health probe", is_authenticated: true, permissions: [] }) as ApiKeyUser;

/** GET or HEAD of `/ok`, the server's health probe (it reads nothing and runs nothing). */
function isHealthProbe(request: { method: string; url: string }): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  try {
    return new URL(request.url, "http://localhost").pathname === "/ok";
  } catch {
    return false;
  }
}

/** Who a request is, or why it is refused; with `request` given, the health probe needs no key. */
export function authenticateRequest(keys: ApiKeys, headers: Headers, request?: { method: string; url: string }): AuthOutcome {
  if (request !== undefined && isHealthProbe(request)) return { ok: true, user: { ...HEALTH_PROBE_USER, permissions: [] } };
  if (keys.size === 0) return { ok: false, status: 401, message: deployMessages.noApiKeysConfigured() };
  const key = apiKeyOf(headers);
  if (key === undefined) return { ok: false, status: 401, message: deployMessages.missingApiKey() };
  const user = keys.lookup(key);
  return user ? { ok: true, user } : { ok: false, status: 401, message: deployMessages.unknownApiKey() };
}
