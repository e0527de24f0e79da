export * from "./tools/index.js";
export * from "./rules/index.js";
export * from "./policy/index.js";
export * from "./audit/index.js";
export * from "./killswitch/index.js";
export * from "./guard/index.js";
export * from "./storage/index.js";
export * from "./model/index.js";
