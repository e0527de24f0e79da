export { ApiKeys, apiKeyOf, authenticateRequest } from "./api-keys.js";
export type { ApiKeyUser, AuthOutcome } from "./api-keys.js";
export { policyDirectory, policyFiles, policyNameProblem, resolvePolicyName } from "./policy-names.js";
export { RunStore } from "./run-store.js";
