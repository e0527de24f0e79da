export { createModel, DEFAULT_OPENAI_MODEL, DEFAULT_SCENARIO, PLACEHOLDER_API_KEY, scenarioPath } from "./create-model.js";
export type { CreateModelOptions } from "./create-model.js";
export { loadScenario, parseScenario, scenarioSchema } from "./scenario.js";
export type { PlainTurn, Scenario, ScenarioInput, ScenarioTurn, TurnCondition } from "./scenario.js";
export { ScriptedChatModel } from "./scripted.js";
export type { BoundToolDefinition, ScriptedCall, ScriptedChatModelCallOptions, ScriptedChatModelFields } from "./scripted.js";
