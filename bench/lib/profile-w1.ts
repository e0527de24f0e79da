/**
 * W1 under the profiler, one contender at a time:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof/c --import tsx bench/lib/profile-w1.ts c
 *   npx tsx bench/lib/profile-summary.ts /tmp/prof/c
 */
import { MemorySaver } from "@langchain/langgraph";
import { guardedAgent, langchainAgent, plainToolNode } from "./contenders.js";

const which = process.argv[2] ?? "c";
const make = which === "a" ? plainToolNode : which === "b" ? langchainAgent : guardedAgent;
const contender = make({ turnsPerRun: 10, checkpointer: () => new MemorySaver() });
for (let t = 0; t < 60; t++) await contender.invoke(`t${t}`, "go");
