export { createGuardedAgent } from "./agent.js";
export { Guard } from "./guard.js";
export type { RawToolCall } from "./review.js";
export { GuardedToolNode } from "./tool-node.js";
export { GuardAnnotation } from "./state.js";
export type { GuardState } from "./state.js";
