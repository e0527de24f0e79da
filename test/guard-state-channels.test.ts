// The guard's state channels are declared once (GUARD_CHANNELS in src/guard/state.ts): GuardAnnotation
// (StateGraph, createGuardedAgent, GuardedToolNode) and the middleware's GuardMiddlewareState are built
// from it. These tests enumerate the channels of both and try to make them disagree.
import { BinaryOperatorAggregate, type BaseChannel } from "@langchain/langgraph";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyGuardState, GUARD_CHANNELS, GuardAnnotation, GuardedAgentState, GuardStateSchema, type CallResult, type GuardState } from "../src/guard/state.js";
import { GuardMiddlewareState } from "../src/middleware/state.js";

const names = Object.keys(GUARD_CHANNELS).sort();
const annotationChannels = GuardAnnotation.spec as Record<string, BaseChannel>;
const middlewareChannels = GuardMiddlewareState.getChannels() as Record<string, BaseChannel>;

const callResult: fc.Arbitrary<CallResult> = fc.record({
  id: fc.string(),
  name: fc.string({ minLength: 1 }),
  status: fc.constantFrom("success", "error", "cancelled", "refused"),
  at: fc.nat(),
  requestHeartbeat: fc.boolean(),
});
const callResults = fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), callResult, { maxKeys: 4 });
const guardState: fc.Arbitrary<GuardState> = fc.record({
  rules: fc.constant(null),
  runId: fc.string(),
  turn: fc.constant(null),
  forcedTool: fc.option(fc.string(), { nil: null }),
  terminatedBy: fc.option(fc.string(), { nil: null }),
  next: fc.constantFrom("dispatch", "agent", "end"),
  exitUnsatisfied: fc.array(fc.string(), { maxLength: 3 }),
});
const updatesFor: Record<keyof typeof GUARD_CHANNELS, fc.Arbitrary<unknown>> = {
  guard: guardState,
  guardResults: fc.option(callResults, { nil: null }),
};

describe("the guard's state channels are declared once", () => {
  it("GuardAnnotation, the middleware's state and GuardedAgentState list the same channels", () => {
    expect(names).toEqual(["guard", "guardResults"]);
    expect(Object.keys(annotationChannels).sort()).toEqual(names);
    expect(Object.keys(GuardMiddlewareState.fields).sort()).toEqual(names);
    expect(Object.keys(middlewareChannels).sort()).toEqual(names);
    expect(Object.keys(GuardedAgentState.spec).sort()).toEqual(["messages", ...names].sort());
  });

  it.each(names)("%s: the same channel kind, the same reducer and the same initial value in both", (name) => {
    const channel = GUARD_CHANNELS[name as keyof typeof GUARD_CHANNELS];
    const fromAnnotation = annotationChannels[name];
    const fromMiddleware = middlewareChannels[name];
    expect(fromAnnotation).toBeInstanceOf(BinaryOperatorAggregate);
    expect(fromMiddleware).toBeInstanceOf(BinaryOperatorAggregate);
    expect((fromAnnotation as BinaryOperatorAggregate<unknown, unknown>).operator).toBe(channel.reducer);
    expect((fromMiddleware as BinaryOperatorAggregate<unknown, unknown>).operator).toBe(channel.reducer);
    expect(fromAnnotation?.fromCheckpoint(undefined).get()).toEqual(channel.initial());
    expect(fromMiddleware?.fromCheckpoint(undefined).get()).toEqual(channel.initial());
  });

  it.each(names)("%s: any sequence of steps leaves both channels with the same value", (name) => {
    const key = name as keyof typeof GUARD_CHANNELS;
    fc.assert(
      fc.property(fc.array(fc.array(updatesFor[key], { minLength: 1, maxLength: 3 }), { maxLength: 6 }), (steps) => {
        const a = annotationChannels[key]!.fromCheckpoint(undefined);
        const m = middlewareChannels[key]!.fromCheckpoint(undefined);
        for (const step of steps) {
          a.update(step);
          m.update(step);
          expect(m.get()).toEqual(a.get());
        }
      }),
    );
  });

  it("the middleware's schemas check what enters: the initial values pass, a malformed guard state does not", () => {
    expect(GuardStateSchema.safeParse(emptyGuardState()).success).toBe(true);
    expect(GUARD_CHANNELS.guardResults.update.safeParse(null).success).toBe(true);
    expect(GuardStateSchema.safeParse({ ...emptyGuardState(), next: "elsewhere" }).success).toBe(false);
    expect(GUARD_CHANNELS.guardResults.value.safeParse({ a: { id: "a", name: "t", status: "done", at: 1, requestHeartbeat: false } }).success).toBe(false);
  });
});
