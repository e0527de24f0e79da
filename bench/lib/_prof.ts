import { MemorySaver } from "@langchain/langgraph";
import { plainToolNode, guardedAgent } from "./contenders.js";
const which = process.argv[2] ?? "c";
const c = (which === "a" ? plainToolNode : guardedAgent)({ turnsPerRun: 10, checkpointer: () => new MemorySaver() });
for (let r = 0; r < 60; r++) await c.invoke(`t${r}`, "hi");
