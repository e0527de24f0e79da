import { benchW1 } from "../w1-loop.js";
console.log(await benchW1({ quick: process.argv.includes("--quick") }));
