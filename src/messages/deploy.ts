// Sentences of the LangGraph Platform integration: auth handler, policy by name, platform store, CLI --url.

export const deployMessages = {
  noApiKeysConfigured: () =>
    "Request refused: the server has no API keys configured; set GUARDED_GRAPH_API_KEYS=<user>:<key>[,<user>:<key>…] in its environment.",
  missingApiKey: () => "Request refused: no API key; send it in the x-api-key header (or Authorization: Bearer <key>).",
  unknownApiKey: () => "Request refused: the API key is not one of the server's keys (GUARDED_GRAPH_API_KEYS).",
  badApiKeyEntry: (index: number, reason: string) =>
    `GUARDED_GRAPH_API_KEYS entry ${index + 1} is invalid: ${reason}; write <user>:<key> with a key of at least 16 characters.`,
  badApiUsers: (reason: string) =>
    `GUARDED_GRAPH_API_USERS is invalid (${reason}); write JSON such as {"alice": {"permissions": ["approve"], "metadata": {"role": "lead"}}}.`,
  apiUserWithoutKey: (name: string, known: readonly string[]) =>
    `GUARDED_GRAPH_API_USERS names "${name}", who has no key in GUARDED_GRAPH_API_KEYS (users with keys: ${known.length > 0 ? known.join(", ") : "none"}).`,
  duplicateApiKey: (index: number) => `GUARDED_GRAPH_API_KEYS entry ${index + 1} repeats a key already given to another entry; every key must be unique.`,
  policyNameNotString: () => 'configurable.policy must be a policy name (a string such as "devops"), never a policy body.',
  badPolicyName: (name: string) =>
    `Policy name "${name}" is refused: a name is letters, digits, "-" and "_" (at most 64), naming a file in the server's policy directory.`,
  unknownPolicyName: (name: string, known: readonly string[]) =>
    `Policy "${name}" is not one of the server's policies; known: ${known.length > 0 ? known.join(", ") : "(none)"}.`,
  ambiguousPolicyName: (name: string, files: readonly string[]) =>
    `Policy "${name}" is ambiguous: the server's policy directory has ${files.join(" and ")}; keep one file per name.`,
  noPlatformStore: () =>
    "The memory graph has no store: LangGraph Platform injects one at run time; outside it, pass { store } or a dataDir to createMemoryGraph.",
} as const;
