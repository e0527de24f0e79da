/**
 * Every permission policy shown in README.md, docs/ and policies/ against the path and URL readings
 * of the real programs, with adversarial spellings. For each rule condition on a field of the path
 * or URL kind, values are built from its own patterns and spelled around (`..`, `./`, backslashes,
 * percent-encoding, case; userinfo, scheme-less, `?@`, IPv4-embedding IPv6). Each value's canonical
 * readings come from the real programs: `path.resolve(base, v)` (also with backslashes as
 * separators and percent-decoded), and WHATWG `new URL` (`http://` and `https://` added to a
 * scheme-less value). A canonical value has one reading, so the policy's verdict on it is the rule's
 * meaning:
 * - an allow rule that matches a value matches every canonical reading of it;
 * - a value one of whose canonical readings a deny or ask rule matches is never allowed.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicyFile, parsePolicy, permissionPolicy, PermissionPolicy, type LoadedPolicy } from "../src/policy/index.js";
import { compileToolMatcher, type PermissionRule } from "../src/policy/permissions.js";
import { interpretations } from "./helpers/oracle.js";
import { codeBlocks } from "./helpers/readme.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const DOCS = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

interface Example {
  source: string;
  policy: PermissionPolicy;
  rules: readonly PermissionRule[];
  base: string;
  words: string[];
}

/** Rule object literals written on one line in a TypeScript block (`{ id: "x", tool: ..., mode: "allow" }`). */
function inlineRules(body: string): PermissionRule[] {
  const rules: PermissionRule[] = [];
  for (const line of body.split("\n")) {
    const text = line.trim().replace(/,$/, "");
    if (!text.startsWith("{") || !/\bmode: "(allow|deny|ask)"/.test(text) || !/\b(tool|rule):/.test(text)) continue;
    try {
      rules.push(new Function(`return (${text});`)() as PermissionRule);
    } catch {
      // not a plain literal (it uses a variable): not an example of a rule
    }
  }
  return rules;
}

function examples(): Example[] {
  const out: Example[] = [];
  const fromLoaded = (source: string, loaded: LoadedPolicy, words: string[]) =>
    out.push({ source, policy: permissionPolicy(loaded), rules: loaded.permissions, base: loaded.pathBase ?? "/", words });
  for (const file of DOCS) {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    codeBlocks(text).forEach(({ lang, body }, i) => {
      const words = [...new Set(body.match(/[A-Za-z_][\w-]*/g) ?? [])];
      if (["yaml", "yml", "toml", "json"].includes(lang) && /permissions/.test(body)) {
        try {
          fromLoaded(`${file} block ${i}`, parsePolicy(body, lang === "yml" ? "yaml" : (lang as "yaml"), `${file}#${i}`), words);
        } catch {
          // a fragment, not a whole policy
        }
      } else if (lang === "ts" || lang === "typescript") {
        const rules = inlineRules(body);
        if (rules.length === 0) return;
        try {
          out.push({ source: `${file} block ${i}`, policy: new PermissionPolicy(rules), rules, base: "/", words });
        } catch {
          // rules of another example (tool rules), or a fragment
        }
      }
    });
  }
  return out;
}

const docExamples: Example[] = examples();

/** The policies shipped in policies/ too. */
async function shipped(): Promise<Example[]> {
  const dir = path.join(ROOT, "policies");
  const out: Example[] = [];
  for (const name of readdirSync(dir).filter((f) => /\.(ya?ml|toml)$/.test(f))) {
    const loaded = await loadPolicyFile(path.join(dir, name));
    const words = [...new Set(readFileSync(path.join(dir, name), "utf8").match(/[A-Za-z_][\w-]*/g) ?? [])];
    out.push({ source: `policies/${name}`, policy: permissionPolicy(loaded), rules: loaded.permissions, base: loaded.pathBase ?? "/", words });
  }
  return out;
}

// ---- readings of the real programs ----


function canonicalPaths(value: string, base: string): string[] {
  return interpretations(value).filter((s) => !s.startsWith("~")).map((s) => path.resolve(base, s));
}

function canonicalUrls(value: string): string[] {
  const out: string[] = [];
  const add = (text: string) => {
    try {
      const url = new URL(text);
      if (url.hostname === "") return false;
      out.push(`${url.protocol}//${url.hostname.replace(/\.+$/, "")}${url.port === "" ? "" : `:${url.port}`}${url.pathname}${url.search}`);
      return true;
    } catch {
      return false;
    }
  };
  const text = value.trim();
  if (/^(https?|wss?|ftp):/i.test(text)) add(text);
  else {
    add(`https://${text}`);
    add(`http://${text}`);
  }
  return out;
}

// ---- values built from a rule's own patterns ----

function patternTexts(condition: unknown, out: string[] = []): string[] {
  if (typeof condition !== "object" || condition === null) return out;
  const c = condition as Record<string, unknown>;
  for (const key of ["equals", "prefix", "glob", "path", "url", "domain"]) {
    const v = c[key];
    if (typeof v === "string") out.push(v);
    if (Array.isArray(v)) for (const x of v) if (typeof x === "string") out.push(x);
  }
  if (Array.isArray(c.in)) for (const x of c.in) if (typeof x === "string") out.push(x);
  if (c.not !== undefined) patternTexts(c.not, out);
  for (const key of ["anyOf", "allOf"]) if (Array.isArray(c[key])) for (const x of c[key] as unknown[]) patternTexts(x, out);
  return out;
}

const witness = (pattern: string) => pattern.replace(/\{([^,}]*)[^}]*\}/g, "$1").replace(/\*\*/g, "a/b").replace(/[*?]/g, "x").replace(/\/$/, "/x.txt");

function pathValues(patterns: string[]): string[] {
  const seeds = [...patterns.map(witness), "/workspace/notes.md", "secrets/api.key", "/etc/hosts", ".env", "src/a.ts"];
  return seeds.flatMap((w) => [
    w,
    `${w}/../../../../root/.ssh/authorized_keys`,
    `${w}/../../../../etc/passwd`,
    `./${w}`,
    `docs/../${w}`,
    w.replace(/\//g, "\\"),
    w.replace(/\//g, "//"),
    w.replace(/\./g, "%2e"),
    w.replace(/\//g, "%2f"),
    `${w}/.`,
    `/tmp/../${w.replace(/^\//, "")}`,
    w.toUpperCase(),
    `${w}%2f..%2f..%2f..%2fetc%2fpasswd`,
  ]);
}

function urlValues(patterns: string[]): string[] {
  const seeds = [...patterns.map(witness), "https://api.example.com/v1/x", "http://169.254.169.254/latest/meta-data", "https://example.com/docs"];
  return seeds.flatMap((w) => [
    w,
    w.replace("://", "://user@"),
    w.replace(/^[a-z]+:\/\//i, ""),
    w.replace(/^[a-z]+:\/\//i, "//"),
    w.replace(/:\/\/([^/]+)/, "://$1.evil.com"),
    w.replace(/:\/\/([^/]+)/, "://$1@evil.com"),
    w.replace(/:\/\/([^/]+)/, "://evil.com?@$1"),
    w.replace(/:\/\/([^/]+)/, "://evil.com#@$1"),
    w.replace(/:\/\/([^/]+)/, "://$1.:8443"),
    w.toUpperCase(),
    w.replace("169.254.169.254", "[::ffff:a9fe:a9fe]"),
    w.replace("169.254.169.254", "2852039166"),
    w.replace(/^https:/, "http:"),
  ]);
}

// ---- the check ----

interface Finding {
  source: string;
  problem: string;
}

function checkExample(example: Example, findings: Finding[]): number {
  let checked = 0;
  example.rules.forEach((rule) => {
    const matches = compileToolMatcher(rule, "example");
    const tools = [...new Set([rule.tool, ...example.words])].filter((word) => matches(word)).slice(0, 3);
    for (const tool of tools) {
      for (const [selector, condition] of Object.entries(rule.where ?? {})) {
        if (!/^[A-Za-z_][\w-]*$/.test(selector)) continue;
        const explicit = typeof condition === "object" && condition !== null ? ["path", "url", "domain"].find((k) => k in condition) : undefined;
        // The kind the guard gives the field, else what its name means to a reader of the docs.
        const byName = /path|file|dir/i.test(selector) ? "path" : /url|uri|endpoint/i.test(selector) ? "url" : /host|domain/i.test(selector) ? "domain" : undefined;
        const kind = explicit ?? example.policy.kindOf(tool, selector, condition) ?? byName;
        if (kind !== "path" && kind !== "url" && kind !== "domain") continue;
        const patterns = patternTexts(condition);
        const values = kind === "path" ? pathValues(patterns) : urlValues(patterns);
        for (const value of values) {
          const canon = kind === "path" ? canonicalPaths(value, example.base) : canonicalUrls(value);
          if (canon.length === 0) continue;
          checked++;
          const matching = new Set(example.policy.matchingRules(tool, { [selector]: value }));
          const decision = example.policy.decide(tool, { [selector]: value });
          for (const c of canon) {
            const onCanonical = new Set(example.policy.matchingRules(tool, { [selector]: c }));
            for (const id of matching) {
              const mode = example.rules.find((r, i) => `permission:${r.id ?? `permissions[${i}]`}` === id)?.mode;
              if (mode === "allow" && !onCanonical.has(id)) findings.push({ source: example.source, problem: `${tool} ${selector}=${JSON.stringify(value)}: allow rule ${id} matches, but not its reading ${JSON.stringify(c)}` });
            }
            for (const id of onCanonical) {
              const mode = example.rules.find((r, i) => `permission:${r.id ?? `permissions[${i}]`}` === id)?.mode;
              if ((mode === "deny" || mode === "ask") && decision.mode === "allow") findings.push({ source: example.source, problem: `${tool} ${selector}=${JSON.stringify(value)} allowed (${decision.ruleId}), but its reading ${JSON.stringify(c)} is matched by ${mode} rule ${id}` });
            }
          }
        }
      }
    }
  });
  return checked;
}

describe("policy examples in README.md, docs/ and policies/ against path and URL readings", () => {
  it("finds the examples: the first policy of docs/policy.md among them", () => {
    expect(docExamples.length).toBeGreaterThan(3);
    expect(docExamples.some((e) => e.source.startsWith("docs/policy.md") && e.rules.some((r) => r.id === "workspace"))).toBe(true);
  });

  it("every example reads adversarial spellings as the real programs do", async () => {
    const all = [...docExamples, ...(await shipped())];
    const findings: Finding[] = [];
    let checked = 0;
    for (const example of all) checked += checkExample(example, findings);
    console.log(`docs examples: ${all.length} policies, ${checked} adversarial values on path/URL/domain fields, ${findings.length} disagreements`);
    expect(checked).toBeGreaterThan(200);
    expect(findings.map((f) => `${f.source}: ${f.problem}`).slice(0, 20)).toEqual([]);
  }, 300_000);
});
