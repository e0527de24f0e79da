import { MemorySaver } from "@langchain/langgraph";
import { plainToolNode, langchainAgent, guardedAgent } from "/work/main/bench/lib/contenders.js";
const turns = Number(process.argv[2] ?? 20);
const runs = Number(process.argv[3] ?? 5);
for (const make of [plainToolNode, langchainAgent, guardedAgent]) {
  const c = make({ turnsPerRun: turns, checkpointer: () => new MemorySaver() });
  await c.invoke("warm", "hi");
  const t = performance.now();
  let msgs = 0;
  for (let r = 0; r < runs; r++) msgs += (await c.invoke(`t${r}`, "hi")).length;
  const ms = performance.now() - t;
  console.log(c.id, (ms / (turns * runs)).toFixed(3), "ms/turn", msgs);
}
