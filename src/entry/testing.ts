// "guarded-graph/testing": the scripted chat model that plays a scenario offline (no key, no
// network), for tests and demos.
export { ScriptedChatModel } from "../model/scripted.js";
export type { ScriptedCall, ScriptedChatModelFields } from "../model/scripted.js";
export { loadScenario, parseScenario } from "../model/scenario.js";
export type { Scenario, ScenarioInput, ScenarioTurn } from "../model/scenario.js";
