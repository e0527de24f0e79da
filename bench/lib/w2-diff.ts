/**
 * Differential check of the decision path against another checkout (`--base DIR`, unpacked as for
 * bench/w2-hetero-ab.ts): generated heterogeneous workloads (several seeds of bench/lib/hetero.ts and
 * other mixes: fewer and more tools, rules and tool rules) are reviewed by both trees' guards
 * (`Guard.reviewTurn`) and decided by both trees' policies (`PermissionPolicy.decide`, both
 * precedences, each tool's risk and none), every call several times (so kept answers are read
 * back), also with a request id of its own (calls that never repeat), as a fresh copy, with its keys reversed, and with a null written in (strict mode). Any difference in a reviewed call
 * (outcome, rule, reason, message, risk, ...) or a decision is printed; exits 1 when there is one.
 *   npx tsx bench/lib/w2-diff.ts --base DIR
 */
import { resolve } from "node:path";
import { modulesAt, type Modules } from "./checkout-modules.js";

const argv = process.argv.slice(2);
const at = argv.indexOf("--base");
const baseDir = at >= 0 ? (argv[at + 1] ?? "") : "";
if (baseDir === "") throw new Error("usage: w2-diff.ts --base DIR");
const base = await modulesAt(baseDir);
const own = await modulesAt(resolve(import.meta.dirname, "../.."));

type Options = Parameters<Modules["hetero"]["heteroWorkload"]>[0];
const mixes: Options[] = [
  ...[20261127, 1, 2, 3, 42, 777].map((seed) => ({ seed })),
  { seed: 5, rules: 300, tools: 30, toolRules: 20, calls: 1_500 },
  { seed: 6, rules: 3_000, tools: 60, toolRules: 10, calls: 1_500 },
  { seed: 7, rules: 5_000, tools: 500, toolRules: 120, calls: 2_000 },
  { seed: 8, rules: 50, tools: 10, toolRules: 0, calls: 800 },
];

/** Keys reversed at every depth (canonical views sort keys: the decision must not change). */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
}

const OPTIONAL = ["cwd", "env", "timeout", "content", "options", "headers", "body", "params", "labels", "containers", "replicas", "cc", "memo"];
function withNull(args: unknown, i: number): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const copy = structuredClone(args) as Record<string, unknown>;
  const keys = Object.keys(copy);
  switch (i % 4) {
    case 0:
      copy[OPTIONAL[i % OPTIONAL.length]!] = null;
      break;
    case 1:
      if (keys.length > 0) copy[keys[i % keys.length]!] = null;
      break;
    case 2: {
      const nested = keys.find((k) => typeof copy[k] === "object" && copy[k] !== null && !Array.isArray(copy[k]));
      if (nested !== undefined) (copy[nested] as Record<string, unknown>).encoding = null;
      else copy.extra = null;
      break;
    }
    default:
      copy.extra = [null, { x: null }];
  }
  return copy;
}

let differences = 0;
let compared = 0;
const report = (what: string, a: unknown, b: unknown) => {
  compared += 1;
  const left = JSON.stringify(a, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
  const right = JSON.stringify(b, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v));
  if (left === right) return;
  differences += 1;
  if (differences <= 20) console.log(`DIFF ${what}\n  base: ${left}\n  this: ${right}`);
};

for (const mix of mixes) {
  const name = JSON.stringify(mix);
  const wb = base.hetero.heteroWorkload(mix);
  const wo = own.hetero.heteroWorkload(mix);
  const gb = base.bench.heteroGuard(wb);
  const go = own.bench.heteroGuard(wo);
  const variants = (calls: typeof wo.calls) => [
    ...calls,
    ...calls,
    // Calls that never repeat (each with a request id of its own): a tool stops keeping decisions for a while.
    ...[0, 1, 2].flatMap((k) => calls.map((c, i) => ({ ...c, args: typeof c.args === "object" && c.args !== null && !Array.isArray(c.args) ? { ...c.args, request_id: `r${k}-${i}` } : c.args }))),
    ...calls.map((c) => ({ ...c, args: structuredClone(c.args) })),
    ...calls.map((c) => ({ ...c, args: reversed(c.args) })),
    ...calls,
    // Strict mode's nulls: an optional field (cwd, content, headers, labels, cc, memo, ...) or a required one written null, a nested null, an unknown key.
    ...calls.map((c, i) => ({ ...c, args: withNull(c.args, i) })),
  ];
  const cb = variants(wb.calls);
  const co = variants(wo.calls);
  for (let i = 0; i < co.length; i++) {
    const b = await gb.guard.reviewTurn(gb.state, [cb[i]!]);
    const o = await go.guard.reviewTurn(go.state, [co[i]!]);
    report(`${name} review #${i} ${co[i]!.name} ${JSON.stringify(co[i]!.args)}`, b.reviewed, o.reviewed);
  }
  for (const precedence of ["deny-first", "first-match"] as const) {
    const pb = new base.policy.PermissionPolicy(wb.permissions, { mainArguments: wb.mainArguments, precedence });
    const po = new own.policy.PermissionPolicy(wo.permissions, { mainArguments: wo.mainArguments, precedence });
    for (let i = 0; i < co.length; i++) {
      const tool = wo.tools.find((t) => t.name === co[i]!.name);
      const risk = i % 3 === 0 ? undefined : tool?.risk;
      report(`${name} ${precedence} decide #${i} ${co[i]!.name} ${JSON.stringify(co[i]!.args)}`, pb.decide(cb[i]!.name, cb[i]!.args, risk), po.decide(co[i]!.name, co[i]!.args, risk));
      if (i % 7 === 0) report(`${name} ${precedence} explain #${i}`, pb.explain(cb[i]!.name, cb[i]!.args, risk), po.explain(co[i]!.name, co[i]!.args, risk));
    }
  }
  console.log(`${name}: ${co.length} calls × (review + 2 decides), differences so far ${differences}`);
}
console.log(`${compared} comparisons, ${differences} differences`);
if (differences > 0) process.exitCode = 1;
