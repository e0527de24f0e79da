export { createGuardedAgent } from "./agent.js";
export { Guard } from "./guard.js";
export type { RawToolCall } from "./guard.js";
export { GuardedToolNode } from "./tool-node.js";
export { GuardAnnotation } from "./state.js";
export type { GuardState } from "./state.js";
