export * from "./types.js";
export { Killswitch, type KillswitchOptions } from "./killswitch.js";
export { sharedKillswitch, type KillswitchLease } from "./shared.js";
export { transitionRecord, type KillswitchTransition } from "./transition-record.js";
