import { summariseProfile } from "./profile.js";
const s = await summariseProfile(process.argv[2]!, 25);
console.log(s.totalMs.toFixed(0), "ms");
for (const a of s.areas) console.log((a.share * 100).toFixed(1).padStart(5), a.name);
console.log("--");
for (const a of s.functions) console.log((a.share * 100).toFixed(1).padStart(5), a.name);
