import { benchW2 } from "../w2-decisions.js";
console.log(await benchW2({ quick: process.argv.includes("--quick") }));
