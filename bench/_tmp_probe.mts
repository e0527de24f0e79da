import { realisticRules } from "./rules.bench.js";
import { ToolRulesEngine } from "../src/rules/index.js";
const { rules, tools } = realisticRules();
const engine = new ToolRulesEngine(rules, { tools });
let state = engine.initialState(0);
for (let i = 0; i < 20; i++) state = engine.record(state, { tool: `tool_${i * 5}`, callId: `w${i}`, success: true, at: i });
const ok = [], bad = [];
for (let i = 0; i < 100; i++) { const c = { tool: `tool_${i}`, operation: tools.get(`tool_${i}`)!.length ? ["read","write","list","delete"][i%4] : undefined }; (engine.checkCall(state, c, 1e6) ? bad : ok).push(c); }
for (const [name, set] of [["ok", ok], ["bad", bad]] as const) {
  const n = 200000; const t = performance.now();
  for (let i = 0; i < n; i++) engine.checkCall(state, set[i % set.length], 1e6);
  console.log(name, set.length, Math.round(n / ((performance.now() - t) / 1000)));
}
console.log(engine.checkCall(state, bad[0], 1e6)?.message.slice(0, 300));
