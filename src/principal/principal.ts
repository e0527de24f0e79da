import { z } from "zod";

/**
 * Who is asking: the authenticated user of a run and the run's `configurable` values, as policy
 * conditions and approver rules read them. On LangGraph Platform the server's auth handler puts the
 * user in `config.configurable.langgraph_auth_user` (identity, permissions, and whatever else the
 * handler returned, e.g. `metadata: { tenant, role }`); in-process, the caller puts it there.
 * Nothing here ever reads an identity from a tool call or a resume payload.
 */

/** The authenticated user of a run. */
export interface PrincipalUser {
  readonly identity: string;
  /** Undefined when the user object carries no list of strings there (conditions on it cannot tell). */
  readonly permissions: readonly string[] | undefined;
  readonly displayName: string | undefined;
  /** `metadata.<key>`: the user's `metadata` object, then the user's other top-level fields. */
  readonly attributes: Readonly<Record<string, unknown>>;
}

export interface Principal {
  /** Undefined when the run has no authenticated user (or one marked `is_authenticated: false`). */
  readonly user: PrincipalUser | undefined;
  /** The run's `configurable`, without LangGraph's own keys. */
  readonly configurable: Readonly<Record<string, unknown>>;
}

/** The user object as a server's auth handler (or an in-process caller) hands it over. */
export interface AuthUserInput {
  identity: string;
  permissions?: readonly string[];
  display_name?: string;
  is_authenticated?: boolean;
  metadata?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** Fields of the user object that are not attributes (`metadata.<key>` never reads them). */
const RESERVED_USER_FIELDS = new Set(["identity", "display_name", "is_authenticated", "permissions", "metadata"]);

const UserSchema = z.lazy(() =>
  z
    .object({
      identity: z.string().trim().min(1),
      is_authenticated: z.boolean().optional(),
      display_name: z.string().optional(),
    })
    .loose(),
);

/** `configurable` keys set by LangGraph itself (threads, checkpoints, auth, its internals): not run values a rule may read. */
export function isInternalConfigurableKey(key: string): boolean {
  return key.startsWith("__") || key.startsWith("langgraph_") || key === "thread_id" || key === "checkpoint_id" || key === "checkpoint_ns" || key === "checkpoint_map" || key === "run_id";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The authenticated user in `langgraph_auth_user`, validated; undefined when there is none. */
function authUserOf(raw: unknown): PrincipalUser | undefined {
  const parsed = UserSchema.safeParse(raw);
  if (!parsed.success || parsed.data.is_authenticated === false) return undefined;
  const user = parsed.data as Record<string, unknown>;
  const permissions = Array.isArray(user.permissions) && user.permissions.every((p) => typeof p === "string") ? (user.permissions as string[]) : undefined;
  const attributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(user)) if (!RESERVED_USER_FIELDS.has(key)) attributes[key] = value;
  // The handler's `metadata` object wins over a top-level field of the same name.
  if (isRecord(user.metadata)) for (const [key, value] of Object.entries(user.metadata)) attributes[key] = value;
  return { identity: parsed.data.identity, permissions, displayName: parsed.data.display_name, attributes };
}

const NO_ONE: Principal = Object.freeze({ user: undefined, configurable: Object.freeze({}) });

/**
 * Principals read per `configurable` object (the calls of one step share it), with the user object
 * and key count they were read from: a config whose user object or keys were replaced is read again.
 * LangGraph makes a config per task and the platform a user object per request.
 */
const readPrincipals = new WeakMap<object, { user: unknown; keys: number; principal: Principal }>();

/** The principal of a run, read from its config (`configurable.langgraph_auth_user` and the other `configurable` values). */
export function principalOf(config: { configurable?: Record<string, unknown> | undefined } | undefined): Principal {
  const configurable = config?.configurable;
  if (configurable === undefined || configurable === null) return NO_ONE;
  const keys = Object.keys(configurable).length;
  const known = readPrincipals.get(configurable);
  if (known !== undefined && known.user === configurable.langgraph_auth_user && known.keys === keys) return known.principal;
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(configurable)) if (!isInternalConfigurableKey(key)) values[key] = value;
  const principal: Principal = Object.freeze({ user: authUserOf(configurable.langgraph_auth_user), configurable: Object.freeze(values) });
  readPrincipals.set(configurable, { user: configurable.langgraph_auth_user, keys, principal });
  return principal;
}

/** What a name of the principal reads: the value, or what is missing. */
export type PrincipalValue = { found: true; value: unknown } | { found: false; missing: "user" | "attribute" };

/** The names a condition on the principal may read. */
export const PRINCIPAL_FIELDS = ["identity", "permissions", "display_name"] as const;

/** How a principal name splits: a user field, `metadata.<key>`, or `configurable.<key>`; undefined for anything else. */
export function principalName(name: string): { scope: "user"; field: (typeof PRINCIPAL_FIELDS)[number] } | { scope: "metadata" | "configurable"; key: string } | undefined {
  if ((PRINCIPAL_FIELDS as readonly string[]).includes(name)) return { scope: "user", field: name as (typeof PRINCIPAL_FIELDS)[number] };
  for (const scope of ["metadata", "configurable"] as const) {
    if (name.startsWith(`${scope}.`) && name.length > scope.length + 1) return { scope, key: name.slice(scope.length + 1) };
  }
  return undefined;
}

/** The value of one principal name (`identity`, `permissions`, `metadata.tenant`, `configurable.environment`). */
export function principalValue(principal: Principal | undefined, name: string): PrincipalValue {
  const parsed = principalName(name);
  if (parsed === undefined) return { found: false, missing: "attribute" };
  if (parsed.scope === "configurable") {
    const value = principal?.configurable[parsed.key];
    return value === undefined || value === null ? { found: false, missing: "attribute" } : { found: true, value };
  }
  const user = principal?.user;
  if (user === undefined) return { found: false, missing: "user" };
  let value: unknown;
  if (parsed.scope === "metadata") value = Object.hasOwn(user.attributes, parsed.key) ? user.attributes[parsed.key] : undefined;
  else if (parsed.scope === "user" && parsed.field === "identity") value = user.identity;
  else if (parsed.scope === "user" && parsed.field === "permissions") value = user.permissions;
  else value = user.displayName;
  return value === undefined || value === null ? { found: false, missing: "attribute" } : { found: true, value };
}

/** What a thread keeps of the principal of the run that asked (`ApprovalState.approvers`): the user and the run's plain values. */
export interface PrincipalSnapshot {
  user?: Record<string, unknown> | undefined;
  configurable?: Record<string, unknown> | undefined;
}

const MAX_SNAPSHOT_KEYS = 64;
const MAX_SNAPSHOT_TEXT = 512;

function plainValue(value: unknown): boolean {
  if (typeof value === "string") return value.length <= MAX_SNAPSHOT_TEXT;
  if (typeof value === "number" || typeof value === "boolean") return true;
  return Array.isArray(value) && value.length <= 32 && value.every((item) => typeof item === "number" || typeof item === "boolean" || (typeof item === "string" && item.length <= MAX_SNAPSHOT_TEXT));
}

/** The principal of a run as a thread keeps it: the authenticated user, and the run's plain `configurable` values (bounded). */
export function principalSnapshot(config: { configurable?: Record<string, unknown> | undefined } | undefined): PrincipalSnapshot {
  const configurable = config?.configurable ?? {};
  const user = UserSchema.safeParse(configurable.langgraph_auth_user);
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(configurable)) {
    if (Object.keys(values).length >= MAX_SNAPSHOT_KEYS) break;
    if (!isInternalConfigurableKey(key) && plainValue(value)) values[key] = value;
  }
  return { ...(user.success ? { user: structuredClone(user.data) as Record<string, unknown> } : {}), ...(Object.keys(values).length > 0 ? { configurable: values } : {}) };
}

/**
 * `config` as the run that asked saw it: its own values and user replaced by the snapshot, so a
 * call is judged again on resume for the user who ran it, not for the user who answers.
 */
export function configAs<C extends { configurable?: Record<string, unknown> | undefined }>(config: C, snapshot: PrincipalSnapshot): C {
  const own: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config.configurable ?? {})) if (isInternalConfigurableKey(key) && !key.startsWith("langgraph_auth")) own[key] = value;
  return { ...config, configurable: { ...own, ...snapshot.configurable, ...(snapshot.user === undefined ? {} : { langgraph_auth_user: snapshot.user }) } };
}

/**
 * A config for an in-process run (invoke, stream, a resume) on behalf of `user`: what LangGraph
 * Platform's auth handler does for a request, for code that authenticated its caller itself.
 */
export function asUser<C extends { configurable?: Record<string, unknown> | undefined }>(config: C, user: AuthUserInput): C & { configurable: NonNullable<C["configurable"]> & { langgraph_auth_user: AuthUserInput } } {
  const configurable = { ...config.configurable, langgraph_auth_user: { is_authenticated: true, permissions: [], ...user } } as NonNullable<C["configurable"]> & { langgraph_auth_user: AuthUserInput };
  return { ...config, configurable };
}
