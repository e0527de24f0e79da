// "guarded-graph/middleware": guardMiddleware, the guard as one middleware for LangChain v1 createAgent.
export { guardMiddleware, GUARD_MIDDLEWARE_NAME } from "./guard-middleware.js";
export type { AgentToolsOption, GuardMiddlewareOptions } from "./guard-middleware.js";
export { GuardMiddlewareState } from "./state.js";
export { GuardStateSchema } from "../guard/state.js";
export { Guard } from "../guard/guard.js";
export type { GuardOptions } from "../guard/options.js";
export type { ApprovalRequest } from "../guard/approval/payload.js";
export type { ApprovalResume } from "../guard/approval/resume.js";
