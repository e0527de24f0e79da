// Who runs or answers a local thread: the CLI authenticates an API key against the same key set a
// server uses (GUARDED_GRAPH_API_KEYS, with GUARDED_GRAPH_API_USERS), so policy rules and approver
// rules read the same user locally as on the server. Without a key, a local run has no user.
import { ApiKeys } from "../platform/api-keys.js";
import type { AuthUserInput } from "../principal/principal.js";
import { CliError } from "./errors.js";

export function localUser(flags: { "api-key"?: string | undefined }, env: Record<string, string | undefined> = process.env): AuthUserInput | undefined {
  const key = flags["api-key"]?.trim() || env.GUARDED_GRAPH_API_KEY?.trim() || undefined;
  if (key === undefined) return undefined;
  const spec = env.GUARDED_GRAPH_API_KEYS?.trim();
  if (!spec) {
    if (flags["api-key"] === undefined) return undefined; // a key kept in the environment for --url use
    throw new CliError("--api-key goes with --url (or GUARDED_GRAPH_URL): which server is it for? (on a local thread it names the user when GUARDED_GRAPH_API_KEYS is set)", 2);
  }
  let keys: ApiKeys;
  try {
    keys = ApiKeys.parse(spec, env.GUARDED_GRAPH_API_USERS);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), 2);
  }
  const user = keys.lookup(key);
  if (user === undefined) throw new CliError("the API key is not one of GUARDED_GRAPH_API_KEYS: the local thread cannot be run or answered as its user", 2);
  return { identity: user.identity, display_name: user.display_name, permissions: user.permissions, ...(user.metadata === undefined ? {} : { metadata: user.metadata }) };
}
