import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openLedger, type ExecutionLedger } from "../src/storage/ledger.js";
import { postgresConfigured, postgresForTests, schemaDroppedAfterAll, uniqueName } from "./helpers/postgres.js";

const tmp = mkdtempSync(join(tmpdir(), "gg-ledger-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same contract for every backend; `open` gives two ledgers on the same store (two workers). */
function ledgerContract(open: () => Promise<[ExecutionLedger, ExecutionLedger]>) {
  it("claims once, reports busy to another worker, then done with the first result", async () => {
    const [a, b] = await open();
    try {
      const key = uniqueName("k");
      expect(await a.claim(key, "w1", 60_000)).toBe("claimed");
      expect(await b.claim(key, "w2", 60_000)).toBe("busy");
      expect(await b.result(key)).toBeUndefined();
      await a.complete(key, "deleted pod x");
      expect(await b.claim(key, "w2", 60_000)).toBe("done");
      expect(await b.result(key)).toBe("deleted pod x");
      // A late duplicate completion never overwrites the recorded result.
      await b.complete(key, "second result");
      expect(await a.result(key)).toBe("deleted pod x");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("lets another worker re-claim a call whose lease expired (crashed worker)", async () => {
    const [a, b] = await open();
    try {
      const key = uniqueName("k");
      expect(await a.claim(key, "crashed", 30)).toBe("claimed");
      await sleep(80);
      expect(await b.claim(key, "w2", 60_000)).toBe("claimed");
      expect(await a.claim(key, "w3", 60_000)).toBe("busy");
      await b.complete(key, "ok");
      expect(await a.claim(key, "w3", 60_000)).toBe("done");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("renew keeps only the owner's live claim from expiring", async () => {
    const [a, b] = await open();
    try {
      const key = uniqueName("k");
      expect(await a.claim(key, "w1", 120)).toBe("claimed");
      expect(await b.renew(key, "someone-else", 60_000)).toBe(false);
      expect(await a.renew(key, "w1", 60_000)).toBe(true);
      await sleep(200);
      expect(await b.claim(key, "w2", 60_000)).toBe("busy");
      await a.complete(key, "ok");
      expect(await a.renew(key, "w1", 60_000)).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("release drops only the owner's unfinished claim", async () => {
    const [a, b] = await open();
    try {
      const key = uniqueName("k");
      expect(await a.claim(key, "w1", 60_000)).toBe("claimed");
      await b.release(key, "someone-else");
      expect(await b.claim(key, "w2", 60_000)).toBe("busy");
      await a.release(key, "w1");
      expect(await b.claim(key, "w2", 60_000)).toBe("claimed");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("gives exactly one claim to many concurrent claimers", async () => {
    const [a, b] = await open();
    try {
      const key = uniqueName("k");
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim(key, `w${i}`, 60_000)),
      );
      expect(outcomes.filter((o) => o === "claimed")).toHaveLength(1);
      expect(outcomes.filter((o) => o === "busy")).toHaveLength(9);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("refuses empty keys and non-positive leases", async () => {
    const [a, b] = await open();
    try {
      await expect(a.claim("", "w", 1000)).rejects.toThrow(/ledger key is empty/);
      await expect(a.claim("k", "w", 0)).rejects.toThrow(/leaseMs must be a positive integer/);
    } finally {
      await a.close();
      await b.close();
    }
  });
}

describe("ExecutionLedger (SQLite)", () => {
  ledgerContract(async () => {
    const spec = `sqlite:${join(tmp, "ledger.db")}`;
    return [await openLedger(spec), await openLedger(spec)];
  });
});

describe("ExecutionLedger (memory)", () => {
  ledgerContract(async () => {
    const spec = `memory:${uniqueName("ledger")}`;
    return [await openLedger(spec), await openLedger(spec)];
  });
});

describe.runIf(postgresConfigured)("ExecutionLedger (PostgreSQL)", () => {
  const schema = schemaDroppedAfterAll("gg_ledger");
  ledgerContract(async () => {
    const url = await postgresForTests();
    if (!url) throw new Error("PostgreSQL is configured but unreachable");
    return [await openLedger(url, { schema }), await openLedger(url, { schema })];
  });
});
