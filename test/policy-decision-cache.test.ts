// Decisions kept per distinct argument data (PermissionPolicy.decide, src/policy/decision-cache.ts)
// against the reference that keeps nothing and tries every rule (linearScanForTests): arguments that
// look alike to JSON but not to the canonical views get their own decisions, a decision that reads
// the thread, the principal or the filesystem is never kept, a caller that changes a decision it got
// changes no later one, and declared risk levels are kept apart.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { argumentsHash, DataCache } from "../src/policy/decision-cache.js";
import { linearScanForTests, PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import { asUser, principalOf } from "../src/principal/principal.js";

const RULES: PermissionRule[] = [
  { id: "rm", tool: "sh", mode: "deny", where: { command: { command: "rm *" } } },
  { id: "git", tool: "sh", mode: "allow", where: { command: { command: ["git status", "git log *"] } } },
  { id: "big", tool: "pay", mode: "ask", where: { amount: { gt: 100 } } },
  { id: "zero", tool: "pay", mode: "deny", where: { amount: { equals: 0 } } as PermissionRule["where"] },
  { id: "to", tool: "pay", mode: "allow", where: { to: { in: ["alice", "bob"] } } },
  { id: "tok", tool: "*", mode: "ask", args: "token_[a-z0-9]+" },
  { id: "any", tool: "pay", mode: "deny", where: { "items[*]": { equals: "forbidden" } } },
];

function pair(rules: readonly PermissionRule[] = RULES, options: ConstructorParameters<typeof PermissionPolicy>[1] = {}) {
  return { fast: new PermissionPolicy(rules, options), naive: linearScanForTests(new PermissionPolicy(rules, options)) };
}

class Box {
  constructor(readonly to: string) {}
}

describe("decisions kept per distinct argument data", () => {
  it("arguments alike in JSON but not as data are decided each on their own, over several passes", () => {
    const { fast, naive } = pair(RULES, { toolRisk: { sh: "high", pay: "low" } });
    const boxed = Object.assign(Object.create(null) as Record<string, unknown>, { to: "alice" });
    const withToJson = { to: "mallory", toJSON: () => ({ to: "alice" }) };
    const sparse: unknown[] = [];
    sparse[1] = "forbidden";
    const calls: [string, unknown][] = [
      ["pay", { to: "alice" }],
      ["pay", new Box("alice")],
      ["pay", { to: new String("alice") }],
      ["pay", boxed],
      ["pay", withToJson],
      ["pay", { to: "alice", amount: 0 }],
      ["pay", { to: "alice", amount: -0 }],
      ["pay", { to: "alice", amount: Number.NaN }],
      ["pay", { to: "alice", amount: null }],
      ["pay", { to: "alice", amount: 101 }],
      ["pay", { to: "alice", amount: 100 }],
      ["pay", { to: "alice", amount: 10n }],
      ["pay", { to: "alice", amount: undefined }],
      ["pay", { to: "alice", items: sparse }],
      ["pay", { to: "alice", items: [null, "forbidden"] }],
      ["pay", { to: "alice", items: [undefined, "ok"] }],
      ["pay", { to: "alice", memo: "token_abc" }],
      ["pay", { memo: "token_abc", to: "alice" }],
      ["pay", { to: "alic\u0000e", memo: "x\u0007" }],
      ["pay", { memo: "x\u0007", to: "alic\u0000e" }],
      ["pay", { to: "ＡＬＩＣＥ" }],
      ["pay", { to: "alice", nested: { deep: [1, 2, { to: "bob" }] } }],
      ["pay", { to: "alice", big: "x".repeat(5_000) }],
      ["sh", { command: "git status" }],
      ["sh", { command: "git status && rm -rf /" }],
      ["sh", { command: "git log --oneline" }],
      ["sh", { command: "rm -rf /" }],
      ["sh", { command: "ls" }],
      ["other", { command: "rm -rf /" }],
    ];
    for (let pass = 0; pass < 3; pass++) {
      for (const [tool, args] of pass === 1 ? [...calls].reverse() : calls) {
        for (const risk of [undefined, "low", "high", "always-deny"] as const) {
          expect(fast.decide(tool, args, risk), `${tool} #${calls.findIndex(([, a]) => a === args)} ${risk}`).toEqual(naive.decide(tool, args, risk));
        }
      }
    }
  });

  it("a tool whose calls stop repeating stops keeping for a while, and decides the same", () => {
    const { fast, naive } = pair(RULES, { toolRisk: { pay: "low" } });
    const calls = [
      ...Array.from({ length: 400 }, (_, i) => ({ to: i % 2 === 0 ? "alice" : "carol", amount: i, memo: `m${i}` })), // never repeated: keeping pauses
      ...Array.from({ length: 3_000 }, (_, i) => ({ to: i % 3 === 0 ? "bob" : "dave", amount: i % 5 === 0 ? 0 : 150, memo: i % 7 === 0 ? "token_x" : "m" })), // repeated
    ];
    for (const args of calls) expect(fast.decide("pay", args, "low"), JSON.stringify(args)).toEqual(naive.decide("pay", args, "low"));
  });

  it("only plain JSON data is kept, and equal data hash alike", () => {
    expect(argumentsHash({ a: [1, "x", null, true, { b: 2 }] })).toBe(argumentsHash(JSON.parse('{"a":[1,"x",null,true,{"b":2}]}')));
    expect(argumentsHash({ a: [] })).toBeGreaterThanOrEqual(0);
    expect(argumentsHash({ a: 1.5, b: -3, c: 1e300 })).toBeGreaterThanOrEqual(0);
    for (const args of [new Box("a"), { a: new Date(0) }, { a: -0 }, { a: Number.NaN }, { a: 1n }, { a: () => 1 }, { a: [undefined] }, { a: Symbol("s") }, "text", null, { a: "x".repeat(2_000) }]) {
      expect(argumentsHash(args), String(args)).toBe(-1);
    }
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(argumentsHash(deep)).toBe(-1);
  });

  it("data that share a hash are kept apart, in key order, and copied", () => {
    const cache = new DataCache<string>();
    const args = [{ a: "x", b: "y" }, { b: "y", a: "x" }, { a: "x", b: "y", c: null }, { a: ["x"], b: "y" }, { a: "x", b: "Y" }, { a: 1, b: "y" }, { a: "1", b: "y" }];
    // One hash for all of them, as colliding data would have: only equal data finds a value.
    args.slice(0, 4).forEach((data, i) => cache.set(7, data, `v${i}`));
    args.slice(0, 4).forEach((data, i) => expect(cache.get(7, JSON.parse(JSON.stringify(data)))).toBe(`v${i}`));
    for (const other of args.slice(4)) expect(cache.get(7, other)).toBeUndefined();
    // A fifth entry under one hash pushes the oldest out.
    cache.set(7, args[4]!, "v4");
    expect(cache.get(7, args[0])).toBeUndefined();
    expect(cache.get(7, { a: "x", b: "Y" })).toBe("v4");
    // What the caller does with its arguments after keeping changes nothing kept.
    const mine = { a: "x", b: ["y"] };
    cache.set(9, mine, "mine");
    mine.b.push("z");
    expect(cache.get(9, mine)).toBeUndefined();
    expect(cache.get(9, { a: "x", b: ["y"] })).toBe("mine");
  });

  it("generated arguments: the kept decision is the reference's, whatever the hash", () => {
    const { fast, naive } = pair(RULES, { toolRisk: { pay: "low", sh: "high" } });
    const texts = ["alice", "bob", "forbidden", "token_ab1", "git status", "rm -rf /", "ＡＬＩＣＥ", "x\u0007"];
    let seed = 7;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    for (let i = 0; i < 3_000; i++) {
      const tool = next(2) === 0 ? "pay" : "sh";
      const entries: [string, unknown][] = [
        ["to", texts[next(texts.length)]],
        ["amount", [0, 5, 150, 1.5][next(4)]],
        ["command", texts[next(texts.length)]],
        ["items", [texts[next(texts.length)]]],
      ].filter(() => next(3) !== 0) as [string, unknown][];
      if (next(2) === 0) entries.reverse();
      const args = Object.fromEntries(entries);
      expect(fast.decide(tool, args, "low"), `${tool} ${JSON.stringify(args)}`).toEqual(naive.decide(tool, args, "low"));
    }
  });

  it("a caller that changes a decision it got changes no later decision", () => {
    const { fast, naive } = pair();
    for (let i = 0; i < 3; i++) {
      const got = fast.decide("pay", { to: "alice" }, "low");
      expect(got).toEqual(naive.decide("pay", { to: "alice" }, "low"));
      got.reason = "changed";
      got.mode = "deny";
    }
  });

  it("decisions that read the thread follow the thread; those that read the principal follow the principal", () => {
    const rules: PermissionRule[] = [
      { id: "untraced", tool: "send", where: { to: { not: { from: ["user"] } } }, mode: "ask" },
      { id: "send", tool: "send", mode: "allow" },
      { id: "admins", tool: "deploy", mode: "allow", principal: { permissions: { equals: "deploy" } } },
      { id: "plain", tool: "read", mode: "deny", where: { path: { prefix: "/etc" } } },
    ];
    const { fast, naive } = pair(rules, { toolRisk: { send: "low", deploy: "high", read: "low" } });
    const said = [new HumanMessage({ content: "send it to GB29NWBK60161331926819", id: "h1" })];
    const read = [
      new HumanMessage({ content: "send it", id: "h2" }),
      new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "fetch", args: {}, type: "tool_call" }] }),
      new ToolMessage({ content: "to GB29NWBK60161331926819", tool_call_id: "c1", name: "fetch" }),
    ];
    const args = { to: "GB29NWBK60161331926819" };
    const deployer = principalOf(asUser({}, { identity: "u", permissions: ["deploy"] }));
    const other = principalOf(asUser({}, { identity: "v", permissions: [] }));
    const seen = new Set<string>();
    for (let pass = 0; pass < 3; pass++) {
      for (const messages of [said, read, said]) {
        const got = fast.decide("send", args, "low", { messages });
        expect(got).toEqual(naive.decide("send", args, "low", { messages }));
        seen.add(got.mode);
      }
      expect(fast.decide("send", args, "low")).toEqual(naive.decide("send", args, "low"));
      for (const principal of [deployer, other, undefined, deployer]) {
        const got = fast.decide("deploy", { env: "prod" }, "high", undefined, principal);
        expect(got).toEqual(naive.decide("deploy", { env: "prod" }, "high", undefined, principal));
        seen.add(`deploy ${got.mode}`);
      }
      // A tool whose rules read neither, in a policy whose other rules read the thread: with messages, decided every time.
      expect(fast.decide("read", { path: "/etc/x" }, "low")).toEqual(naive.decide("read", { path: "/etc/x" }, "low"));
      expect(fast.decide("read", { path: "/etc/x" }, "low", { messages: read })).toEqual(naive.decide("read", { path: "/etc/x" }, "low", { messages: read }));
      expect(fast.decide("read", { path: "/srv/x" }, "low", { messages: said })).toEqual(naive.decide("read", { path: "/srv/x" }, "low", { messages: said }));
    }
    expect(seen).toEqual(new Set(["allow", "ask", "deploy allow", "deploy ask"]));
  });

  it("a path read through this machine's symlinks is decided again when a link changes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-decision-cache-"));
    try {
      writeFileSync(join(dir, "plain"), "x");
      const rules: PermissionRule[] = [{ id: "secret", tool: "read", mode: "deny", where: { file: { path: "/etc/**" } } }];
      const policy = new PermissionPolicy(rules, { toolRisk: { read: "low" }, pathBase: dir, fieldKinds: { read: { file: "path" } } });
      expect(policy.decide("read", { file: "link" }).mode).toBe("allow");
      symlinkSync("/etc", join(dir, "link"));
      await new Promise((resolve) => setTimeout(resolve, 300)); // readings through symlinks are kept 250 ms
      expect(policy.decide("read", { file: "link" }).mode).toBe("deny");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("declared field kinds handed over later change later decisions", () => {
    const rules: PermissionRule[] = [{ id: "secret", tool: "read", mode: "deny", where: { target: { path: "/etc/**" } } }];
    const policy = new PermissionPolicy(rules, { toolRisk: { read: "low" } });
    const args = { target: "/etc/../etc/passwd" };
    const before = policy.decide("read", args);
    policy.declareToolKinds(new Map([["read", { target: "path" as const }]]));
    const reference = linearScanForTests(new PermissionPolicy(rules, { toolRisk: { read: "low" } }));
    reference.declareToolKinds(new Map([["read", { target: "path" as const }]]));
    expect(policy.decide("read", args)).toEqual(reference.decide("read", args));
    expect(before).toBeDefined();
  });
});
