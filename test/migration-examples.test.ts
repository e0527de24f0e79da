import { AIMessage, ToolMessage } from "@langchain/core/messages";
import type { BaseMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { describe, expect, it } from "vitest";
import { runMigrated, scriptedModel } from "../examples/migrate-langchain.js";
import { runLettaStyle } from "../examples/migrate-letta.js";

const toolTexts = (messages: BaseMessage[]) =>
  messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m)).map((m) => [m.name, String(m.content)]);

describe("examples/migrate-langchain.ts (docs/migration-langchain.md)", () => {
  it("approval as interruptOn gave it, then the run limit ends the run with a message", async () => {
    const messages = await runMigrated(scriptedModel(), "ship it", "approve");
    expect(toolTexts(messages)).toEqual([
      ["search", "results for a"],
      ["search", "results for b"],
      ["deploy", "deployed web"],
      ["search", "Refused search by rule MaxTotalCalls:*#0: call limit reached: at most 3 calls to all tools together per run, and 3 were made. Allowed now: no tool."],
    ]);
    expect(String(messages.at(-1)?.content)).toBe(
      "Stopped: call limit reached: at most 3 calls to all tools together per run, and 3 were made (rule MaxTotalCalls:*#0), so this run ends here.",
    );
  });

  it("a rejected deploy is answered and the model goes on", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "deploy", args: { service: "web" }, id: "d1" }])
      .respond(new AIMessage("ok, not deploying"));
    const messages = await runMigrated(model, "ship it", "reject");
    expect(toolTexts(messages)).toEqual([["deploy", "Refused deploy by a human reviewer. Do not retry this call unchanged."]]);
    expect(String(messages.at(-1)?.content)).toBe("ok, not deploying");
  });
});

describe("examples/migrate-letta.ts (docs/migration-letta.md)", () => {
  it("init choice, forced child with prefilled args, conditional next, terminal, required exit tool", async () => {
    const model = fakeModel()
      .respondWithTools([{ name: "load_profile", args: {}, id: "l1" }])
      .respond(new AIMessage("planning")) // ignores tool_choice: the guard adds the forced plan call
      .respond(new AIMessage("deploying"))
      .respond(new AIMessage("saving"));
    const messages = await runLettaStyle(model, "release");
    expect(toolTexts(messages)).toEqual([
      ["load_profile", "profile loaded ({})"],
      ["plan", '{"message":"ship"}'],
      ["deploy", "deployed"],
      ["save_notes", "notes saved"],
    ]);
    const planCall = messages.flatMap((m) => (AIMessage.isInstance(m) ? (m.tool_calls ?? []) : [])).find((c) => c.name === "plan");
    expect(planCall?.args).toEqual({ depth: 2 });
  });
});
