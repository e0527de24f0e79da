/** Prints the self time per package and the top functions of a `--cpu-prof` directory. */
import { summariseProfile } from "./profile.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: profile-summary.ts DIR");
const summary = await summariseProfile(dir, 25);
console.log(`${summary.totalMs.toFixed(0)} ms busy on the main thread`);
for (const a of summary.areas) console.log(`${(a.share * 100).toFixed(1).padStart(5)}%  ${a.name}`);
console.log("--");
for (const f of summary.functions) console.log(`${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}`);
