/**
 * W2h in a process of its own (spawned by `benchW2HeteroInOwnProcess`), with Node's promise hooks on
 * as in W2's child (one LangChain runnable first). Prints the rows as one JSON line after the marker.
 *   argv: quick (0|1)
 */
import { RunnableLambda } from "@langchain/core/runnables";
import { benchW2Hetero, benchW2Scale, W2H_ROWS_MARKER } from "../w2-hetero.js";

await RunnableLambda.from((x: number) => x + 1).invoke(1);
const quick = process.argv[2] === "1";
const rows = [...(await benchW2Hetero({ quick })), ...(await benchW2Scale({ quick }))];
process.stdout.write(`${W2H_ROWS_MARKER}${JSON.stringify(rows)}\n`);
