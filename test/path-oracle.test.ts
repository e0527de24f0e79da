/**
 * The path kind against the real filesystem. A temp tree with subdirectories, symlinks (inside →
 * outside, outside → inside, a loop) and odd names is built; generated spellings of paths into it
 * (`./`, `../`, `//`, backslashes, percent-encoding, trailing `/.`, absolute and relative, through
 * symlinked directories) are decided by policies whose rules are plain string matchers on a `path`
 * field. The judges: `path.resolve(base, value)`, `fs.realpathSync` of it (of its longest existing
 * part), and what the kernel opens for the value from the base (`fs.statSync`, by inode) — for the
 * value as written and as a tool on another platform or behind a URL decoder reads it (backslashes
 * as separators, percent-decoded).
 *
 * - A deny on a subtree never lets a value through that any judge places inside the subtree.
 * - An allow on a subtree never holds for a value any judge places outside it (or cannot place).
 */
import fc from "fast-check";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PermissionPolicy } from "../src/policy/index.js";
import { linearScanForTests, type PermissionRule } from "../src/policy/permissions.js";
import { interpretations, ORACLE_SEED, oracleCases } from "./helpers/oracle.js";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gg-path-oracle-")));
const ws = path.join(root, "ws");
const outside = path.join(root, "outside");
const file = (p: string) => {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, "x");
};
for (const p of ["secrets/api.key", "secrets/sub/deep.key", "docs/a.md", "docs/sp ace.md", "docs/uni-é.md", "..foo/x", "%2e/w", "back\\slash/v", "sp ace/y", "secrets-public/p"]) file(path.join(ws, p));
file(path.join(outside, "file"));
symlinkSync("../../outside", path.join(ws, "docs", "link-out"));
symlinkSync("../secrets", path.join(ws, "docs", "link-secrets"));
symlinkSync("../ws/secrets", path.join(outside, "link-in"));
symlinkSync("loop2", path.join(ws, "loop1"));
symlinkSync("loop1", path.join(ws, "loop2"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Inodes of a directory's entries (not following symlinks), the directory itself when `self`. */
function inodes(dir: string, self: boolean, out = new Set<number>()): Set<number> {
  if (self) out.add(statSync(dir).ino);
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = lstatSync(p);
    if (st.isSymbolicLink()) continue;
    out.add(st.ino);
    if (st.isDirectory()) inodes(p, false, out);
  }
  return out;
}
const secretInodes = inodes(path.join(ws, "secrets"), false);
const docsInodes = inodes(path.join(ws, "docs"), true);


/** fs.realpathSync of the longest existing part, the rest appended; "loop" when it cannot be resolved. */
function realOf(p: string): string | "loop" {
  const rest: string[] = [];
  let current = p;
  for (;;) {
    try {
      return path.join(realpathSync(current), ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return "loop";
      if (path.dirname(current) === current) return "loop";
      rest.push(path.basename(current));
      current = path.dirname(current);
    }
  }
}

interface Judged {
  /** Every place a judge puts the value (lexical, real), or "unplaceable". */
  places: (string | "unplaceable")[];
  /** Inodes the kernel opens for the value from the base (existing targets only). */
  opened: number[];
}

function judge(value: string): Judged {
  const places: (string | "unplaceable")[] = [];
  const opened: number[] = [];
  for (const s of interpretations(value)) {
    if (s.startsWith("~")) {
      places.push("unplaceable");
      continue;
    }
    const lexical = path.resolve(ws, s);
    places.push(lexical);
    const real = realOf(lexical);
    places.push(real === "loop" ? "unplaceable" : real);
    try {
      opened.push(statSync(path.isAbsolute(s) ? s : `${ws}/${s}`).ino);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ELOOP") places.push("unplaceable");
    }
  }
  return { places, opened };
}

const under = (p: string, dir: string) => p.startsWith(`${dir}/`);
const within = (p: string, dir: string) => p === dir || under(p, dir);

const SEGMENTS = ["secrets", "docs", "api.key", "a.md", "sub", "deep.key", "..foo", "%2e", "back\\slash", "sp ace", "uni-é.md", "link-out", "link-secrets", "loop1", "secrets-public", "p", ".", "..", "", "outside", "link-in", "file", "ws", "DOCS", "Secrets", "sp ace.md", "%2e%2e", "%2E%2e", "x"];
const SEPARATORS = ["/", "/", "/", "//", "\\", "/./", "%2f", "%2F", "%5c"];
const PREFIXES = ["", "", "", "docs/", "docs/", "./docs/", `${ws}/docs/`, "./", "../", "/", `${ws}/`, `${ws}//`, `${outside}/`, `${root}/ws/../ws/`, "%2e%2e/", "..\\", "~/", `${ws}/docs/../`];
const SUFFIXES = ["", "", "/", "/.", "/..", "//", "\\"];

/** A spelling of a path into the tree; sometimes one character percent-encoded. */
const pathValue = fc
  .tuple(fc.constantFrom(...PREFIXES), fc.array(fc.tuple(fc.constantFrom(...SEGMENTS), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 5 }), fc.constantFrom(...SUFFIXES), fc.option(fc.nat(), { nil: undefined }))
  .map(([prefix, parts, suffix, encodeAt]) => {
    let body = parts.map(([segment, sep], i) => (i === 0 ? segment : `${sep}${segment}`)).join("");
    if (encodeAt !== undefined && body.length > 0) {
      const i = encodeAt % body.length;
      const ch = body[i]!;
      if (ch.charCodeAt(0) < 0x80) body = `${body.slice(0, i)}%${ch.charCodeAt(0).toString(16).padStart(2, "0")}${body.slice(i + 1)}`;
    }
    return `${prefix}${body}${suffix}`;
  })
  .filter((value) => value.trim() !== "");

/** Readable-path rules read through the tool's `path` argument (a conventional name: the path kind). */
const DENIES: Record<string, { where: object; hits: (p: string) => boolean }> = {
  "glob secrets/**": { where: { path: { glob: "secrets/**" } }, hits: (p) => under(p, path.join(ws, "secrets")) },
  "prefix secrets/": { where: { path: { prefix: "secrets/" } }, hits: (p) => under(p, path.join(ws, "secrets")) },
  "regex ^secrets/": { where: { path: { regex: "^secrets/" } }, hits: (p) => under(p, path.join(ws, "secrets")) },
  "absolute glob": { where: { path: { glob: `${ws}/secrets/**` } }, hits: (p) => under(p, path.join(ws, "secrets")) },
  "absolute prefix": { where: { path: { prefix: `${ws}/secrets/` } }, hits: (p) => under(p, path.join(ws, "secrets")) },
  "equals secrets/api.key": { where: { path: { equals: "secrets/api.key" } }, hits: (p) => p === path.join(ws, "secrets", "api.key") },
  "in [./secrets/api.key]": { where: { path: { in: ["./secrets/api.key", "nothing"] } }, hits: (p) => p === path.join(ws, "secrets", "api.key") },
};
const ALLOWS: Record<string, object> = {
  "prefix docs/": { path: { prefix: "docs/" } },
  "glob docs/**": { path: { glob: "docs/**" } },
  "glob ./docs/**": { path: { glob: "./docs/**" } },
  "regex ^docs/": { path: { regex: "^docs/" } },
  "absolute glob": { path: { glob: `${ws}/docs/**` } },
  "absolute prefix": { path: { prefix: `${ws}/docs/` } },
};

const denyPolicies = Object.entries(DENIES).map(([name, rule]) => ({
  name,
  hits: rule.hits,
  policy: new PermissionPolicy([{ tool: "read", where: rule.where as never, mode: "deny" }, { tool: "read", mode: "allow" }], { pathBase: ws }),
}));
const allowPolicies = Object.entries(ALLOWS).map(([name, where]) => ({
  name,
  policy: new PermissionPolicy([{ tool: "read", where: where as never, mode: "allow" }], { pathBase: ws, defaultRisk: "high" }),
}));

describe("path kind against path.resolve, realpath and the kernel", () => {
  const cases = oracleCases();

  it(`a deny on a subtree never lets through a value a judge places inside it (${cases} generated values × ${denyPolicies.length} rules)`, () => {
    const counts = { cases: 0, inside: 0, allowed: 0, denied: 0, asked: 0 };
    const timing = { judge: 0, guard: 0 };
    const started = Date.now();
    fc.assert(
      fc.property(pathValue, (value) => {
        counts.cases++;
        let t = performance.now();
        const { places, opened } = judge(value);
        timing.judge += performance.now() - t;
        for (const { name, hits, policy } of denyPolicies) {
          t = performance.now();
          const decision = policy.decide("read", { path: value }).mode;
          timing.guard += performance.now() - t;
          counts[decision === "allow" ? "allowed" : decision === "deny" ? "denied" : "asked"]++;
          const secretFile = name.startsWith("equals") || name.startsWith("in ") ? statSync(path.join(ws, "secrets", "api.key")).ino : undefined;
          const inside = places.some((p) => p === "unplaceable" || hits(p)) || opened.some((ino) => (secretFile === undefined ? secretInodes.has(ino) : ino === secretFile));
          if (inside) counts.inside++;
          if (inside && decision === "allow") throw new Error(`${name}: ${JSON.stringify(value)} allowed, but it reaches ${JSON.stringify(places)} (opened inodes ${opened.join(",")})`);
        }
      }),
      { numRuns: cases, seed: ORACLE_SEED, endOnFailure: true },
    );
    console.log(`path oracle (deny): ${counts.cases} values × ${denyPolicies.length} rules in ${Date.now() - started} ms; inside the denied subtree ${counts.inside}; decisions allow ${counts.allowed}, deny ${counts.denied}, ask ${counts.asked}; judges ${Math.round(timing.judge)} ms, guard ${Math.round(timing.guard)} ms`);
    expect(counts.cases).toBe(cases);
    expect(counts.inside).toBeGreaterThan(cases / 10);
  }, 600_000);

  it(`an allow on a subtree never holds for a value a judge places outside it (${cases} generated values × ${allowPolicies.length} rules)`, () => {
    const counts = { cases: 0, allowed: 0, notAllowed: 0 };
    const started = Date.now();
    fc.assert(
      fc.property(pathValue, (value) => {
        counts.cases++;
        const { places, opened } = judge(value);
        const docs = path.join(ws, "docs");
        const outsideDocs = places.some((p) => p === "unplaceable" || !within(p, docs)) || opened.some((ino) => !docsInodes.has(ino));
        for (const { name, policy } of allowPolicies) {
          const decision = policy.decide("read", { path: value }).mode;
          if (decision === "allow") counts.allowed++;
          else counts.notAllowed++;
          if (decision === "allow" && outsideDocs) throw new Error(`${name}: ${JSON.stringify(value)} allowed, but it reaches ${JSON.stringify(places)} (opened inodes ${opened.join(",")})`);
        }
      }),
      { numRuns: cases, seed: ORACLE_SEED + 1, endOnFailure: true },
    );
    console.log(`path oracle (allow): ${counts.cases} values × ${allowPolicies.length} rules in ${Date.now() - started} ms; decisions allow ${counts.allowed}, not allowed ${counts.notAllowed}`);
    expect(counts.cases).toBe(cases);
    expect(counts.allowed).toBeGreaterThan(0);
  }, 600_000);

  it("the legitimate spellings are allowed and the documented attack spellings denied", () => {
    const [deny] = denyPolicies;
    for (const attack of ["docs/../secrets/api.key", "./secrets/api.key", "secrets\\api.key", "secrets//api.key", "%2e%2e/ws/secrets/api.key", "docs/link-secrets/api.key", `${outside}/link-in/api.key`, "docs/link-out/../ws/secrets/api.key"]) {
      expect(deny!.policy.decide("read", { path: attack }).mode, attack).not.toBe("allow");
    }
    for (const policy of allowPolicies) {
      for (const fine of ["docs/a.md", "./docs/a.md", `${ws}/docs/a.md`, "docs//sp ace.md", "docs/uni-é.md"]) expect(policy.policy.decide("read", { path: fine }).mode, `${policy.name}: ${fine}`).toBe("allow");
      for (const bad of ["docs/link-out/file", "docs/link-secrets/api.key", "docs/../secrets/api.key", "../ws/docs/a.md", "loop1/x"]) expect(policy.policy.decide("read", { path: bad }).mode, `${policy.name}: ${bad}`).not.toBe("allow");
    }
  });

  it(`the value index never leaves out a rule on a kinded field: decisions equal the linear scan's (${cases} generated values)`, () => {
    // Lexical readings (no pathBase on this machine): the index keys on values that are their own only reading.
    const rules: PermissionRule[] = [
      { tool: "read", where: { path: { glob: "/srv/1/**" } }, mode: "deny" },
      { tool: "read", where: { path: { prefix: "/srv/2/" } }, mode: "ask" },
      { tool: "read", where: { path: { equals: "/etc/passwd" } }, mode: "deny" },
      { tool: "read", where: { path: { in: ["secrets/api.key", "./x"] } }, mode: "deny" },
      { tool: "read", where: { path: { prefix: "workspace/" } }, mode: "allow" },
      { tool: "read", where: { path: { glob: "./docs/**" } }, mode: "allow" },
      { tool: "read", where: { path: { regex: "^/tmp/" } }, mode: "allow" },
      { tool: "read", where: { path: { prefix: "/workspace/", caseSensitive: true } }, mode: "allow" },
    ];
    const values = fc.oneof(
      pathValue,
      fc
        .tuple(fc.constantFrom("", "/", "./", "../", "/srv/", "/SRV/", "/srv/1/../", "srv/"), fc.constantFrom("1", "2", "etc", "docs", "workspace", "Workspace", "tmp", "x", "secrets"), fc.constantFrom("", "/", "/passwd", "/api.key", "/a", "/../2/a", "\\b"))
        .map(([a, b, c]) => `${a}${b}${c}`),
    );
    for (const pathBase of [undefined, "/workspace"]) {
      const options = { defaultRisk: "medium" as const, ...(pathBase === undefined ? {} : { pathBase, followSymlinks: false }) };
      const fast = new PermissionPolicy(rules, options);
      const linear = linearScanForTests(new PermissionPolicy(rules, options));
      fc.assert(
        fc.property(values, (value) => {
          const a = fast.decide("read", { path: value });
          const b = linear.decide("read", { path: value });
          expect(`${a.mode} ${a.ruleId}`, value).toBe(`${b.mode} ${b.ruleId}`);
        }),
        { numRuns: cases, seed: ORACLE_SEED + 4 },
      );
    }
  });
});
