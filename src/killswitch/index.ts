export * from "./types.js";
export { Killswitch, type KillswitchOptions, type TransitionListener } from "./killswitch.js";
export { sharedKillswitch, type KillswitchLease } from "./shared.js";
export { CompiledRemotePolicy, type KillswitchDecision } from "./compiled-policy.js";
export { fetchRemotePolicy, type FetchOutcome, type FetchPolicyOptions } from "./fetch-policy.js";
export { resolveHeaders, type ResolvedHeaders } from "./headers.js";
export { transitionRecord, type KillswitchTransition } from "./transition-record.js";
