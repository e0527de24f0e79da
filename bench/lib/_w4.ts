import { benchW4 } from "../w4-durability.js";
console.log(await benchW4({ quick: process.argv.includes("--quick"), postgresUrl: process.env.POSTGRES_URL }));
