import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { provenanceIndex, ProvenanceIndex, type SourceText } from "../src/provenance/index-builder.js";
import { canonicalText, extractIdentifiers, mayHold, tokenize, valueQuery, withoutSeparators } from "../src/provenance/tokens.js";

/** A thread: the user's message, then one tool call per output, each answered. */
function thread(user: string, outputs: { tool: string; text: string; status?: "success" | "error" }[]): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are a helpful assistant."), new HumanMessage({ content: user, id: "h1" })];
  outputs.forEach((output, i) => {
    messages.push(new AIMessage({ content: "", tool_calls: [{ id: `c${i}`, name: output.tool, args: { q: `query ${i}` }, type: "tool_call" }] }));
    messages.push(new ToolMessage({ content: output.text, tool_call_id: `c${i}`, name: output.tool, status: output.status ?? "success" }));
  });
  return messages;
}

const fromUser = (source: SourceText) => source.kind === "user" || source.kind === "system";
const anywhere = () => true;

function foundIn(messages: BaseMessage[], value: unknown, accept: (s: SourceText) => boolean = fromUser) {
  return provenanceIndex(messages).find(valueQuery(value), accept);
}

describe("what 'appears' means", () => {
  it("finds whole tokens only: 13 is never found in 2013, x13y or June 13", () => {
    const messages = thread("Meet on June 13 in 2013 at room x13y", []);
    for (const value of ["13", 13]) expect(foundIn(messages, value).source).toBeUndefined();
    expect(valueQuery("13").untraceable).toMatch(/fewer than 3/);
    expect(valueQuery(13).untraceable).toMatch(/fewer than 4 digits/);
    expect(foundIn(thread("order 2013", []), "201").source).toBeUndefined();
  });

  it("ASCII text takes fast paths that tokenise exactly as the full normalisation and the Unicode token pattern do (property)", () => {
    const ascii = fc.string({ unit: fc.constantFrom(..."aZ09 .-/:@+#_,()\n\t\r'?=&~%!\"$".split("")), maxLength: 60 });
    fc.assert(
      fc.property(ascii, (text) => {
        // A zero-width space (removed by normalisation) makes the text non-ASCII: the full normalisation.
        expect(tokenize(text)).toEqual(tokenize(`${text}\u200b`));
        // A snowman (kept, not part of any token) keeps the canonical text non-ASCII: the Unicode token pattern.
        expect(tokenize(text)).toEqual(tokenize(`${text} \u2603`));
      }),
      { numRuns: 400 },
    );
  });

  it("the pre-check that lets a value found nowhere stay nowhere never rules out a text that holds it (property)", () => {
    const unit = fc.constantFrom(..."ab19 -./()+@:,_#".split(""), "DE89", "3704", "Ｕ", "é");
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 20 }), fc.string({ unit, minLength: 1, maxLength: 12 }), fc.string({ unit, maxLength: 20 }), fc.boolean(), (before, value, after, embed) => {
        // Half the texts carry the value between two random stretches, so that it is often there.
        const text = embed ? `${before} ${value} ${after}` : `${before}${after}`;
        const query = valueQuery(value, 1);
        const canonical = canonicalText(text);
        const held = provenanceIndex(thread("", [{ tool: "t", text }])).find(query, (source) => source.kind === "tool");
        if (held.source !== undefined) expect(mayHold(canonical, query, () => withoutSeparators(canonical))).toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it("a token that looks like an index key is only itself: #123456 is not the identifier 123456, n:5000 is not the number 5000", () => {
    const messages = thread("codes 123456 and 5000", []);
    expect(foundIn(messages, "#123456").source).toBeUndefined();
    expect(foundIn(messages, "n:5000").source).toBeUndefined();
    expect(foundIn(messages, "123456").source?.index).toBe(1);
    expect(foundIn(thread("tag #123456", []), "#123456").source?.index).toBe(1);
  });

  it("a decimal number is a number, not an identifier: 1000.0 is never 10000, while 10,000 is", () => {
    const messages = thread("amount: 1000.0 and 2.5", []);
    for (const value of [10000, "10000", "1000.0", 25, "25"]) expect(foundIn(messages, value).source?.index === 1).toBe(value === "1000.0");
    expect(foundIn(messages, 1000).source?.index).toBe(1);
    expect(foundIn(thread("send $10,000 now", []), 10000).source?.index).toBe(1);
    // Identifiers with dots still compact: a phone number written with points.
    expect(foundIn(thread("call 555.123.4567", []), "5551234567").source?.index).toBe(1);
  });

  it("finds a multi-word value only as a contiguous run inside one message", () => {
    const messages = thread("Please write to Emma Johnson today", []);
    expect(foundIn(messages, "Emma Johnson").source?.index).toBe(1);
    expect(foundIn(messages, "Johnson Emma").source).toBeUndefined();
    // Split across two messages: never found as one value.
    const split = thread("Please write to Emma", [{ tool: "t", text: "Johnson sends regards" }]);
    expect(foundIn(split, "Emma Johnson", anywhere).source).toBeUndefined();
  });

  it("treats case, whitespace, fullwidth forms, look-alike letters and zero-width characters as the same value", () => {
    const user = "Send it to alice@example.com and IBAN DE89370400440532013000";
    const messages = thread(user, []);
    for (const value of [
      "ALICE@EXAMPLE.COM",
      "  alice@example.com ",
      "ａｌｉｃｅ@ｅｘａｍｐｌｅ.ｃｏｍ",
      "\u0430lice@example.com", // Cyrillic a
      "ali\u200Bce@exam\u200Dple.com",
      "de89 3704 0044 0532 0130 00",
      "DE89-3704-0044-0532-0130-00",
    ]) {
      expect(foundIn(messages, value).source?.kind, value).toBe("user");
    }
    expect(foundIn(messages, "alice@example.co").source).toBeUndefined();
    expect(foundIn(messages, "DE8937040044053201300").source).toBeUndefined();
  });

  it("matches identifiers written with separators in the text against their compact form", () => {
    const messages = thread("IBAN: DE89 3704 0044 0532 0130 00, phone +1 (555) 123-4567", []);
    expect(foundIn(messages, "DE89370400440532013000").source?.kind).toBe("user");
    expect(foundIn(messages, "+15551234567").source?.kind).toBe("user");
    expect(foundIn(messages, "+1-555-123-4567").source?.kind).toBe("user");
    // A run is whole tokens: a value that cuts a group is not found.
    expect(foundIn(messages, "DE8937040044053201").source).toBeUndefined();
    expect(foundIn(messages, "E8937040044053201300").source).toBeUndefined();
  });

  it("compares numbers by value: 98.70 is 98.7, 30,000 is 30000; short numbers are never traced", () => {
    const messages = thread("The bill is 98.70 and the limit 30,000", []);
    expect(foundIn(messages, 98.7).source).toBeUndefined(); // 3 digits: too short
    expect(foundIn(messages, 30000).source?.kind).toBe("user");
    expect(foundIn(messages, "30000").source?.kind).toBe("user");
    expect(foundIn(messages, 30001).source).toBeUndefined();
  });

  it("drops URL schemes and trailing punctuation; a full stop glued to a capitalised word ends a sentence", () => {
    const messages = thread("See https://www.example.com/a/b. Then post to www.our-company.com.They know.", []);
    expect(foundIn(messages, "www.example.com/a/b").source?.kind).toBe("user");
    expect(foundIn(messages, "http://www.example.com/a/b/").source?.kind).toBe("user");
    expect(foundIn(messages, "www.our-company.com").source?.kind).toBe("user");
    expect(foundIn(messages, "www.example.com").source).toBeUndefined();
  });

  it("never takes a value from the model's own text, its tool calls, or a refused call's error message", () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ content: "hello", id: "h" }),
      new AIMessage({ content: "I will pay US133000000121212121212", tool_calls: [{ id: "x", name: "pay", args: { to: "US133000000121212121212" }, type: "tool_call" }] }),
      new ToolMessage({ content: "Refused pay: recipient US133000000121212121212", tool_call_id: "x", name: "pay", status: "error" }),
    ];
    const found = foundIn(messages, "US133000000121212121212", anywhere);
    expect(found.source).toBeUndefined();
    expect(found.seenIn).toBeUndefined();
  });

  it("names the first output a value was seen in when it is not from an accepted source", () => {
    const messages = thread("pay the bill", [
      { tool: "read_file", text: "IBAN: UK12345678901234567890" },
      { tool: "get_iban", text: "GB00000000000000000000" },
    ]);
    const found = foundIn(messages, "UK12345678901234567890");
    expect(found.source).toBeUndefined();
    expect(found.seenIn).toMatchObject({ kind: "tool", tool: "read_file", toolCallId: "c0", index: 3 });
    const trusted = foundIn(messages, "GB00000000000000000000", (s) => s.kind === "tool" && s.tool === "get_iban");
    expect(trusted.source).toMatchObject({ tool: "get_iban", toolCallId: "c1", index: 5 });
  });

  it("extracts links and addresses written inside a body", () => {
    expect(extractIdentifiers("Check www.secure-systems-252.com, mail bob@x.org or https://a.b/c?d=1.", ["links", "emails"]).sort()).toEqual(
      ["https://a.b/c?d=1", "bob@x.org", "www.secure-systems-252.com"].sort(),
    );
    expect(extractIdentifiers("report.docx is ready", ["links"])).toEqual([]);
  });
});

describe("properties", () => {
  const word = fc.stringMatching(/^[a-z][a-z0-9]{3,9}$/);

  it("a value the user wrote is found whatever its spelling in the call (case, spaces, zero-width, fullwidth)", () => {
    const fullwidth = (s: string) => [...s].map((ch) => (/[a-z0-9]/.test(ch) ? String.fromCodePoint(ch.codePointAt(0)! + 0xfee0) : ch)).join("");
    fc.assert(
      fc.property(word, word, fc.constantFrom<(s: string) => string>(
        (s) => s.toUpperCase(),
        (s) => ` \t${s}\n`,
        (s) => s.split("").join("\u200B"),
        fullwidth,
      ), (a, b, spell) => {
        const value = `${a}.${b}@example.com`;
        const messages = thread(`Please contact ${value} soon.`, []);
        expect(foundIn(messages, spell(value)).source?.kind).toBe("user");
      }),
      { numRuns: 200 },
    );
  });

  it("a value never written anywhere is never found, and a token is never found inside a longer token", () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 30 }), word, (words, extra) => {
        const text = words.join(" ");
        const messages = thread(text, [{ tool: "t", text: words.map((w) => `${w}${extra}`).join(" ") }]);
        const value = `zz${extra}q`;
        expect(foundIn(messages, value, anywhere).source).toBeUndefined();
        for (const w of words) {
          if (!text.split(" ").includes(`${w}${extra}`)) expect(foundIn(messages, `${w}${extra}`, fromUser).source).toBeUndefined();
        }
      }),
      { numRuns: 200 },
    );
  });

  it("an IBAN or phone number in any grouping is the same value", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Z]{2}[0-9]{14,20}$/), fc.integer({ min: 2, max: 6 }), fc.constantFrom(" ", "-", ".", " - "), (iban, size, sep) => {
        const groups = iban.match(new RegExp(`.{1,${size}}`, "g"))!;
        if (groups.length > 8) return; // runs of more than 8 groups are not joined (documented)
        const messages = thread(`my account is ${groups.join(sep)} thanks`, []);
        expect(foundIn(messages, iban).source?.kind).toBe("user");
        expect(foundIn(messages, iban.toLowerCase()).source?.kind).toBe("user");
      }),
      { numRuns: 200 },
    );
  });

  it("tokenising is idempotent on its own output", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const once = tokenize(text).tokens.join(" ");
        expect(tokenize(once).tokens.join(" ")).toBe(once);
      }),
      { numRuns: 300 },
    );
  });
});

describe("long threads", () => {
  it("extends the index incrementally per turn and rebuilds when the history is rewritten", () => {
    const messages = thread("start DE89370400440532013000", []);
    const first = provenanceIndex(messages, "thread-inc");
    messages.push(new AIMessage({ content: "", tool_calls: [{ id: "n1", name: "read", args: {}, type: "tool_call" }] }));
    messages.push(new ToolMessage({ content: "new value GB29NWBK60161331926819", tool_call_id: "n1", name: "read" }));
    const second = provenanceIndex(messages, "thread-inc");
    expect(second).toBe(first);
    expect(second.length).toBe(messages.length);
    expect(second.find(valueQuery("GB29NWBK60161331926819"), anywhere).source?.tool).toBe("read");
    // A rewritten history (messages removed or replaced) is not extended: it is indexed again.
    const rewritten = [messages[0]!, new HumanMessage({ content: "other", id: "h2" })];
    const third = provenanceIndex(rewritten, "thread-inc");
    // A message replaced in the middle (same length) is noticed too: the removed value is no longer a source.
    const middle = thread("start", [{ tool: "read", text: "value AAAA111122223333" }, { tool: "read", text: "other" }]);
    expect(provenanceIndex(middle, "thread-mid").find(valueQuery("AAAA111122223333"), anywhere).source).toBeDefined();
    const edited = [...middle];
    edited[3] = new ToolMessage({ content: "value BBBB111122223333", tool_call_id: "c0", name: "read" });
    edited.push(new HumanMessage({ content: "next", id: "h3" }));
    expect(provenanceIndex(edited, "thread-mid").find(valueQuery("AAAA111122223333"), anywhere).source).toBeUndefined();
    expect(third).not.toBe(first);
    expect(third.find(valueQuery("DE89370400440532013000"), anywhere).source).toBeUndefined();
  });

  it("indexes 20,000 messages in bounded time and answers a lookup without scanning them again", () => {
    const index = new ProvenanceIndex();
    const messages: BaseMessage[] = [new HumanMessage({ content: "pay DE89370400440532013000", id: "h" })];
    for (let i = 0; i < 10_000; i++) {
      messages.push(new AIMessage({ content: "", tool_calls: [{ id: `c${i}`, name: "search", args: { q: `q${i}` }, type: "tool_call" }] }));
      messages.push(new ToolMessage({ content: `result ${i}: item-${i} costs ${i * 3} at shop${i % 97}.example.com`, tool_call_id: `c${i}`, name: "search" }));
    }
    // CPU time of this process (ms), not wall time: a loaded or starved machine delays the test, it does not make it cost more.
    const cpu = () => {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1_000;
    };
    const t0 = cpu();
    index.append(messages);
    const built = cpu() - t0;
    const t1 = cpu();
    for (let i = 0; i < 1_000; i++) index.find(valueQuery(`item-${i * 7}`), anywhere);
    const lookups = cpu() - t1;
    expect(index.find(valueQuery("item-9999"), anywhere).source?.index).toBe(20_000);
    expect(index.find(valueQuery("DE89370400440532013000"), fromUser).source?.index).toBe(0);
    // Generous bounds: linear build, lookups by key.
    expect(built).toBeLessThan(15_000);
    expect(lookups).toBeLessThan(2_000);
    // Appending one more turn tokenises only the new messages.
    messages.push(new HumanMessage({ content: "and FR7630006000011234567890189", id: "h9" }));
    const t2 = cpu();
    index.append(messages);
    expect(cpu() - t2).toBeLessThan(200);
    expect(index.find(valueQuery("FR7630006000011234567890189"), fromUser).source?.index).toBe(20_001);
  });
});
