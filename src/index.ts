export * from "./tools/index.js";
export type * from "./rules/types.js";
export type * from "./policy/types.js";
export type * from "./audit/types.js";
export * from "./killswitch/types.js";
