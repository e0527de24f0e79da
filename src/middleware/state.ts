import { StateSchema } from "@langchain/langgraph";
import { GuardStateFields } from "../guard/state.js";

/**
 * The middleware's state keys, checkpointed with the agent: the guard's channels as StateSchema
 * fields (`GuardStateFields`, built from `GUARD_CHANNELS` in guard/state.ts, the same list
 * `GuardAnnotation` is built from).
 */
export const GuardMiddlewareState = new StateSchema(GuardStateFields);
