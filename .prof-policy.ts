import { benchPolicy } from "./bench/policy.bench.ts";
console.log(await benchPolicy({ quick: false }));
