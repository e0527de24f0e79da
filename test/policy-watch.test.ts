// Issue 15: policy files are watched and swapped atomically after validation; a bad file keeps the
// old policy and is reported (audit + log).
import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MemoryAuditSink } from "../src/audit/memory.js";
import { guardFromPolicy } from "../src/guard/from-policy.js";
import { reviewCall } from "../src/guard/review.js";
import type { PolicyWatchEvent } from "../src/policy/watch.js";
import { defineTool } from "../src/tools/define-tool.js";

const deploy = defineTool({ name: "deploy", description: "d", schema: z.object({ env: z.string() }), risk: "low", execute: () => "ok" });

const ALLOW = "permissions:\n  - { id: gate, rule: \"deploy(env:production)\", mode: allow }\n";
const DENY = "permissions:\n  - { id: gate, rule: \"deploy(env:production)\", mode: deny }\n";

function nextEvent(events: PolicyWatchEvent[]): Promise<PolicyWatchEvent> {
  const seen = events.length;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const event = events[seen];
      if (event !== undefined) {
        clearInterval(poll);
        resolve(event);
      } else if (Date.now() - started > 20_000) {
        clearInterval(poll);
        reject(new Error("no policy watch event within 20 s"));
      }
    }, 20);
  });
}

describe("guardFromPolicy({ watch: true })", () => {
  it("swaps a changed file after validation; a bad file keeps the old policy and is audited and logged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-"));
    const file = join(dir, "policy.yaml");
    writeFileSync(file, ALLOW);
    const audit = new MemoryAuditSink();
    const events: PolicyWatchEvent[] = [];
    const logged: string[] = [];
    const pg = await guardFromPolicy(file, { tools: [deploy], audit, watch: { debounceMs: 20, onEvent: (e) => events.push(e), log: (e) => logged.push(e.message) } });
    const decide = async () => (await reviewCall(pg.guard, pg.guard.initialRuleState(), { id: "c", name: "deploy", args: { env: "production" } })).outcome;
    try {
      expect(await decide()).toBe("run");

      // An editor's save: write a temp file and rename it over the policy.
      let event = nextEvent(events);
      writeFileSync(join(dir, "policy.yaml.tmp"), DENY);
      renameSync(join(dir, "policy.yaml.tmp"), file);
      expect((await event).kind).toBe("applied");
      expect(await decide()).toBe("refuse");

      // Invalid YAML: rejected, the deny stays.
      event = nextEvent(events);
      writeFileSync(file, "permissions: [ { mode: \n");
      expect(await event).toMatchObject({ kind: "rejected" });
      expect(await decide()).toBe("refuse");

      // Valid YAML naming a tool that does not exist: rejected against the guard's tools.
      event = nextEvent(events);
      writeFileSync(file, "permissions:\n  - { rule: \"deploi(env:production)\", mode: allow }\n");
      const rejected = await event;
      expect(rejected.kind).toBe("rejected");
      expect(rejected.message).toMatch(/names tool "deploi", which matches no known tool/);
      expect(await decide()).toBe("refuse");

      const records = (await audit.query({})).filter((r) => r.event === "policy");
      expect(records.map((r) => r.decision)).toEqual(["applied", "rejected", "rejected"]);
      expect(logged.filter((line) => line.includes("rejected, the previous policy stays in force"))).toHaveLength(2);
    } finally {
      await pg.close();
    }
  }, 60_000);

  it("reload() applies a file right away, and decisions never see a half-applied policy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-watch-"));
    const file = join(dir, "policy.json");
    writeFileSync(file, JSON.stringify({ permissions: [{ id: "gate", rule: "deploy(env:production)", mode: "allow" }] }));
    const pg = await guardFromPolicy(file, { tools: [deploy], watch: { debounceMs: 10_000, log: () => undefined } });
    try {
      const outcomes = new Set<string>();
      for (let i = 0; i < 20; i++) {
        writeFileSync(file, JSON.stringify({ permissions: [{ id: "gate", rule: "deploy(env:production)", mode: i % 2 === 0 ? "deny" : "ask" }] }));
        const reloading = pg.watcher?.reload();
        outcomes.add((await reviewCall(pg.guard, pg.guard.initialRuleState(), { id: "c", name: "deploy", args: { env: "production" } })).outcome);
        expect((await reloading)?.kind).toBe("applied");
      }
      // Only whole policies were ever seen: allow (before), deny or ask.
      for (const outcome of outcomes) expect(["run", "refuse", "ask"]).toContain(outcome);
      expect(pg.watcher?.permissions.loaded.permissions[0]?.mode).toBe("ask");
    } finally {
      await pg.close();
    }
  });
});
