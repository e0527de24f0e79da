/**
 * W2 in a process of its own (spawned by `benchW2InOwnProcess`): no other workload ran before it.
 * LangChain's AsyncLocalStorage is put to use first (one runnable invocation, as every LangGraph
 * step does), so Node's promise hooks are on, as in a process that runs guarded graphs: they cost
 * W2 ≈ 8–15 % (3 alternating runs each). Prints the rows as one JSON line after the marker.
 *   argv: quick (0|1)
 */
import { RunnableLambda } from "@langchain/core/runnables";
import { benchW2, W2_ROWS_MARKER } from "../w2-decisions.js";

await RunnableLambda.from((x: number) => x + 1).invoke(1);
const rows = await benchW2({ quick: process.argv[2] === "1" });
process.stdout.write(`${W2_ROWS_MARKER}${JSON.stringify(rows)}\n`);
