// Migrating Letta tool rules to guarded-graph rules, run by createGuardedAgent.
//
// Before (Letta):
//   tool_rules = [
//     InitToolRule(tool_name="load_profile"), InitToolRule(tool_name="resume_session"),
//     ChildToolRule(tool_name="load_profile", children=["plan"]),
//     ConditionalToolRule(tool_name="plan", child_output_mapping={"ship": "deploy"}, default_child="ask_user"),
//     MaxCountPerStepToolRule(tool_name="plan", max_count_limit=2),
//     TerminalToolRule(tool_name="deploy"),
//     RequiredBeforeExitToolRule(tool_name="save_notes"),
//   ]
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { fileURLToPath } from "node:url";
import { MemorySaver } from "@langchain/langgraph";
import { z } from "zod";
import { createGuardedAgent, defineTool, type ToolRule } from "guarded-graph";

const step = (name: string, output: (args: Record<string, unknown>) => string) =>
  defineTool({ name, description: `${name} step`, schema: z.looseObject({}), risk: "low", execute: output });

export const tools = [
  step("load_profile", (args) => `profile loaded (${JSON.stringify(args)})`),
  step("resume_session", () => "session resumed"),
  step("plan", () => JSON.stringify({ message: "ship" })), // Letta's function response shape
  step("deploy", () => "deployed"),
  step("ask_user", () => "asked"),
  step("save_notes", () => "notes saved"),
];

export const lettaRules: ToolRule[] = [
  // Two InitToolRules: the first call is one of them.
  { type: "InitialCall", tool: "load_profile", alternatives: ["resume_session"] },
  // ChildToolRule with prefilled arguments for the child (Letta's args / child_arg_nodes).
  { type: "ChildTools", tool: "load_profile", children: ["plan"], childArgs: { plan: { depth: 2 } } },
  // ConditionalToolRule: plan's output picks the next tool.
  { type: "ConditionalNext", tool: "plan", outputMapping: { ship: "deploy" }, defaultChild: "ask_user" },
  // MaxCountPerStepToolRule: a step is one user input here (a run).
  { type: "MaxCalls", tool: "plan", max: 2 },
  { type: "Terminal", tool: "deploy" },
  // RequiredBeforeExitToolRule (must succeed here, not only be called).
  { type: "RequiredForExit", tool: "save_notes" },
];

export function createLettaStyleAgent(model: BaseChatModel) {
  return createGuardedAgent({ model, tools, rules: lettaRules, checkpointer: new MemorySaver() });
}

export async function runLettaStyle(model: BaseChatModel, text: string) {
  const agent = createLettaStyleAgent(model);
  const result = await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: "migrate-letta" } });
  return result.messages;
}

// Run directly: a scripted model that ignores tool_choice; the rules force plan, deploy and save_notes.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const model = fakeModel()
    .respondWithTools([{ name: "load_profile", args: {}, id: "l1" }])
    .respond(new AIMessage("planning"))
    .respond(new AIMessage("deploying"))
    .respond(new AIMessage("saving"));
  const messages = await runLettaStyle(model, "release");
  for (const message of messages) if (message.getType() === "tool") console.log(`tool: ${message.text}`);
  console.log(`last: ${messages.at(-1)?.text}`);
}
