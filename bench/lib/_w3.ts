import { benchW3 } from "../w3-parallel.js";
console.log(await benchW3({ quick: process.argv.includes("--quick") }));
