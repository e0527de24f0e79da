import { ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod";
import { GUARD_CHANNELS, mapGuardChannels } from "../guard/state.js";

type GuardChannels = typeof GUARD_CHANNELS;
type ValueOf<K extends keyof GuardChannels> = ReturnType<GuardChannels[K]["initial"]>;
type UpdateOf<K extends keyof GuardChannels> = z.output<GuardChannels[K]["update"]>;

/**
 * The middleware's state keys, checkpointed with the agent: the guard's channels (`GUARD_CHANNELS`
 * in guard/state.ts, the same list `GuardAnnotation` is built from), each a reduced value whose
 * stored value and updates are checked by the channel's zod schemas; both default to the channel's
 * initial value.
 */
export const GuardMiddlewareState = new StateSchema(
  mapGuardChannels<{ -readonly [K in keyof GuardChannels]: ReducedValue<ValueOf<K>, UpdateOf<K>> }>(
    // LangChain's agent requires every middleware state field to have a default, the update schema included.
    (channel) =>
      new ReducedValue(channel.value.default(channel.initial), { inputSchema: channel.update.default(channel.initial), reducer: channel.reducer }),
  ),
);
