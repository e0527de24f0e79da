import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PermissionPolicy, type PermissionRule } from "../src/policy/permissions.js";
import type { ProvenanceSettings } from "../src/provenance/context.js";
import { MAX_USAGE_CHARS } from "../src/provenance/usage.js";

const lines = (rules: PermissionRule[], provenance: ProvenanceSettings = { trusted: ["get_iban"], untrusted: ["read_file"] }) => new PermissionPolicy(rules, { provenance }).usageLines();

describe("usage sentences say the whole condition that is enforced", () => {
  it("an allOf is said in full, not by its first part", () => {
    expect(lines([{ tool: "send_money", where: { recipient: { allOf: [{ from: ["untrusted"] }, { not: { from: ["user"] } }] } }, mode: "ask" }])).toEqual([
      "`send_money`: when `recipient` appears in the output of `read_file` and does not appear in what the user wrote, a human is asked first",
    ]);
  });

  it("not over a connective is said by De Morgan, nested connectives in parentheses", () => {
    expect(lines([{ tool: "send_money", where: { recipient: { not: { allOf: [{ from: ["user"] }, { glob: "GB*" }] } } }, mode: "deny" }])).toEqual([
      '`send_money`: when `recipient` does not appear in what the user wrote or does not match glob "GB*", it is refused',
    ]);
    expect(
      lines([{ tool: "send_money", where: { recipient: { allOf: [{ anyOf: [{ from: ["untrusted"] }, { from: ["get_rates"] }] }, { not: { from: ["user"] } }] } }, mode: "ask" }]),
    ).toEqual(["`send_money`: when `recipient` (appears in the output of `read_file` or appears in the output of `get_rates`) and does not appear in what the user wrote, a human is asked first"]);
    expect(lines([{ tool: "pay", where: { amount: { not: { anyOf: [{ lt: 0 }, { between: [1, 5] }] } } }, after: ["untrusted"], mode: "ask" }])).toEqual([
      "`pay`: when `read_file` returned in this request and `amount` is not a number < 0 and is not a number between 1 and 5, a human is asked first",
    ]);
  });

  it("every field of a rule, its after, budget and argument pattern are said together: the rule applies only when all hold", () => {
    expect(
      lines([
        {
          tool: "{send_money,schedule_transaction}",
          where: { recipient: { not: { from: ["user", "trusted"] } }, amount: { anyOf: [{ gt: 100 }, { lt: 0 }] } },
          mode: "ask",
        },
        { tool: "send_money", where: { recipient: { from: ["untrusted"] } }, budget: { sum: "amount", max: 500, scope: "thread" }, args: "urgent", mode: "deny" },
      ]),
    ).toEqual([
      "`send_money`, `schedule_transaction`: when `recipient` does not appear in what the user wrote or the output of `get_iban` and `amount` (is a number > 100 or is a number < 0), a human is asked first",
      '`send_money`: when `recipient` appears in the output of `read_file` and the arguments match the pattern "urgent" and `amount` would add up to more than 500 per conversation, it is refused',
    ]);
  });

  it("keeps the short forms for the common one-field rules (they say the same condition)", () => {
    expect(
      lines([
        { tool: "send_money", where: { recipient: { not: { anyOf: [{ from: ["user", "trusted", "args:invite"] }, { glob: "GB*" }] } } }, mode: "ask" },
        { tool: "send_money", where: { recipient: { from: ["untrusted"] } }, mode: "ask" },
        { tool: "send_message", where: { body: { not: { from: ["user"], only: ["links"] } } }, mode: "deny" },
      ]),
    ).toEqual([
      '`send_money`: `recipient` must come from what the user wrote or the output of `get_iban` or an earlier `invite` call (or match glob "GB*"); otherwise a human is asked first',
      "`send_money`: when `recipient` also appears in the output of `read_file`, a human is asked first",
      "`send_message`: links in `body` must come from what the user wrote; otherwise it is refused",
    ]);
    // A `not: anyOf` with two sources is not that short form: it is said whole.
    expect(lines([{ tool: "t", where: { x: { not: { anyOf: [{ from: ["user"] }, { from: ["untrusted"] }] } } }, mode: "ask" }])).toEqual([
      "`t`: when `x` does not appear in what the user wrote and does not appear in the output of `read_file`, a human is asked first",
    ]);
  });

  it("names trusted fields and outputs trusted for the user's arguments, and the untrusted rest of such an output", () => {
    const provenance: ProvenanceSettings = {
      trusted: [{ tool: "get_transactions", fields: ["[*].sender"] }, { tool: "get_webpage", argsFromUser: true }],
      untrusted: ["get_transactions", "get_webpage", "read_file"],
    };
    expect(
      lines(
        [
          { tool: "send_money", where: { recipient: { not: { from: ["user", "trusted"] } } }, mode: "ask" },
          { tool: "send_money", where: { recipient: { from: ["untrusted"] } }, mode: "ask" },
        ],
        provenance,
      ),
    ).toEqual([
      // Longer than a sentence should carry: said once.
      "Untrusted outputs: the output of `read_file` or the output of `get_transactions` outside the trusted field `[*].sender` or the output of `get_webpage` when not called with arguments the user typed",
      "`send_money`: `recipient` must come from what the user wrote or the field `[*].sender` of the output of `get_transactions` or the output of `get_webpage` called with arguments the user typed; otherwise a human is asked first",
      "`send_money`: when `recipient` also appears in an untrusted output (listed above), a human is asked first",
    ]);
  });

  it("every part of a random condition is said, joined by exactly one connective per pair (property)", () => {
    const leaf = fc.oneof(
      fc.integer({ min: 0, max: 9 }).map((i) => ({ from: [`tool_${i}`] })),
      fc.integer({ min: 0, max: 9 }).map((i) => ({ glob: `pattern${i}*` })),
      fc.integer({ min: 1000, max: 9999 }).map((n) => ({ gt: n })),
    );
    const { condition } = fc.letrec<{ condition: unknown }>((tie) => ({
      condition: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        tie("condition").map((c) => ({ not: c })),
        fc.array(tie("condition"), { minLength: 2, maxLength: 3 }).map((cs) => ({ anyOf: cs })),
        fc.array(tie("condition"), { minLength: 2, maxLength: 3 }).map((cs) => ({ allOf: cs })),
      ),
    }));
    const leaves = (c: unknown): string[] => {
      const o = c as Record<string, unknown>;
      if ("not" in o) return leaves(o.not);
      if ("anyOf" in o) return (o.anyOf as unknown[]).flatMap(leaves);
      if ("allOf" in o) return (o.allOf as unknown[]).flatMap(leaves);
      if ("from" in o) return [`\`${(o.from as string[])[0]}\``];
      if ("glob" in o) return [JSON.stringify(o.glob)];
      return [`> ${String(o.gt)}`];
    };
    fc.assert(
      fc.property(condition, (c) => {
        // A plain from or a not over one from have short forms: in an allOf with a fixed part (which also makes the rule need the thread), the general sentence.
        const rule = { tool: "t", where: { x: { allOf: [c, { not: { from: ["fixed_tool"] } }] } }, mode: "ask" as const } as PermissionRule;
        const [line] = lines([rule], {});
        const said = leaves(c);
        for (const part of said) expect(line).toContain(part);
        const joints = (line!.match(/ (?:and|or) /g) ?? []).length;
        // One connective between each two leaves (the fixed part is one more leaf), none dropped or added.
        expect(joints).toBe(said.length);
      }),
      { numRuns: 300 },
    );
  });
});

describe("usage text stays bounded as rules and trusted tools grow", () => {
  it("rules that say the same about different tools share one line", () => {
    const rule = (tool: string): PermissionRule => ({ tool, where: { recipient: { not: { from: ["user"] } } }, mode: "ask" });
    expect(lines([rule("send_money"), rule("{schedule_transaction,update_scheduled_transaction}"), rule("send_money")])).toEqual([
      "`send_money`, `schedule_transaction`, `update_scheduled_transaction`: `recipient` must come from what the user wrote; otherwise a human is asked first",
    ]);
  });

  it("a long list of trusted outputs is said once, and each sentence refers to it", () => {
    const trusted = [...Array.from({ length: 17 }, (_, i) => `get_listing_${i}`), ...["hotels", "restaurants", "cars"].map((kind) => ({ tool: `get_${kind}`, fields: ["[*].name", "[*].address"] }))];
    const out = lines(
      [
        { tool: "send_email", where: { body: { not: { from: ["user", "trusted"], only: ["links", "emails"] } } }, mode: "ask" },
        { tool: "reserve", where: { name: { not: { from: ["user", "trusted"] } } }, mode: "ask" },
      ],
      { trusted },
    );
    expect(out).toEqual([
      "Trusted outputs: the output of `get_listing_0`, `get_listing_1`, `get_listing_2`, `get_listing_3`, `get_listing_4` or 12 other trusted tools or the fields `[*].name`, `[*].address` of the output of `get_hotels`, `get_restaurants`, `get_cars`",
      "`send_email`: links and emails in `body` must come from what the user wrote or a trusted output (listed above); otherwise a human is asked first",
      "`reserve`: `name` must come from what the user wrote or a trusted output (listed above); otherwise a human is asked first",
    ]);
  });

  it("with 1 to 400 rules and as many trusted tools, the text never passes the bound and counts what it leaves out", () => {
    let previous = 0;
    for (const n of [1, 5, 20, 60, 150, 400]) {
      const trusted = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? `tool_${i}` : { tool: `tool_${i}`, fields: [`items[*].field_${i}`] }));
      const rules: PermissionRule[] = Array.from({ length: n }, (_, i) => ({
        tool: `act_${i}`,
        where: { [`arg_${i}`]: i % 3 === 0 ? { allOf: [{ from: ["untrusted"] }, { not: { from: ["user", "trusted"] } }] } : { not: { from: ["user", "trusted", `tool_${i}`] } } },
        after: i % 5 === 0 ? ["untrusted"] : undefined,
        mode: i % 2 === 0 ? "ask" : "deny",
      }));
      const out = lines(rules, { trusted, untrusted: trusted.map((t) => (typeof t === "string" ? t : t.tool)) });
      const text = out.join("\n");
      expect(text.length).toBeLessThanOrEqual(MAX_USAGE_CHARS);
      const last = out[out.length - 1]!;
      const sentences = out.filter((line) => line.startsWith("`"));
      const counted = /^(\d+) more rules? like these apply to /.exec(last);
      // Every rule is said or counted.
      expect(sentences.length + (counted === null ? 0 : Number(counted[1]))).toBe(n);
      if (n >= 60) expect(counted).not.toBeNull();
      previous = text.length;
    }
    expect(previous).toBeGreaterThan(MAX_USAGE_CHARS / 2);
  });
});
