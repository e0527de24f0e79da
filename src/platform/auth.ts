// The custom auth handler for langgraph.json (`auth.path`): every request must carry one of the
// server's API keys (GUARDED_GRAPH_API_KEYS=alice:KEY,…) in `x-api-key` — what Agent Chat UI sends — or
// `Authorization: Bearer KEY`. The server then puts the key's user in `config.configurable.langgraph_auth_user`,
// which the approval step records as the approver (a client-supplied `actor` is kept only as a claim).
// The health probe (GET /ok) answers without a key. Assistants and runs that name a policy the server
// does not have (`configurable.policy`) are refused when they are created, not at their first run.
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { ApiKeys, authenticateRequest, type ApiKeyUser } from "./api-keys.js";
import { policyNameProblem } from "./policy-names.js";

function refuseUnknownPolicy(config: unknown): void {
  const problem = policyNameProblem(config);
  if (problem !== undefined) throw new HTTPException(422, { message: problem });
}

/**
 * An auth handler that accepts the keys in `spec` (default: GUARDED_GRAPH_API_KEYS, read now); each
 * key's user carries the permissions and metadata `users` gives it (default: GUARDED_GRAPH_API_USERS,
 * JSON), which policy rules and approver rules read.
 */
export function apiKeyAuth(spec: string | undefined = process.env.GUARDED_GRAPH_API_KEYS, users: string | undefined = process.env.GUARDED_GRAPH_API_USERS) {
  const keys = ApiKeys.parse(spec, users);
  return new Auth()
    .authenticate(async (request: Request): Promise<ApiKeyUser> => {
      const outcome = authenticateRequest(keys, request.headers, request);
      if (!outcome.ok) throw new HTTPException(outcome.status, { message: outcome.message });
      return outcome.user;
    })
    .on("assistants:create", ({ value }) => refuseUnknownPolicy(value.config))
    .on("assistants:update", ({ value }) => refuseUnknownPolicy(value.config))
    .on("threads:create_run", ({ value }) => refuseUnknownPolicy(value.kwargs.config));
}
