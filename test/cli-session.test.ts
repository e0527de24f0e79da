import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { addSuppressed, CliError, reportError, suppressedErrors } from "../src/cli/errors.js";
import { withThreadSession, type Session, type ThreadSession } from "../src/cli/session.js";

// withThreadSession opens storage, lock, audit sink and graph for run/approve/reject/edit/demo/sticky
// revoke, and must close them all, last opened first, whatever fails.

let root: string;
let cwd: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gg-cli-session-"));
  // Graphs keep their files under ./.guarded-graph: keep them out of the repository.
  cwd = process.cwd();
  process.chdir(root);
});
afterAll(() => {
  process.chdir(cwd);
  rmSync(root, { recursive: true, force: true });
});

let cases = 0;
/** Storage of its own per test (SQLite, so the lock is a lease row other sessions see). */
function storage() {
  const dir = mkdtempSync(join(root, `case-${++cases}-`));
  return { db: `sqlite:${join(dir, "x.db")}`, audit: `jsonl:${join(dir, "audit.jsonl")}` };
}

const plan = async (_session: Session) => ({ graph: "etl", policy: undefined, scenario: null }) as const;

/** Spies on the closes a test can reach, in the order they run; `wrap` may make one throw after closing. */
function watchCloses(thread: ThreadSession, order: string[], wrap: Partial<Record<"ready" | "audit" | "registry", Error>> = {}) {
  const targets = { ready: thread.ready, audit: thread.audit, registry: thread.session.registry } as const;
  for (const [name, target] of Object.entries(targets) as [keyof typeof targets, { close(): Promise<void> }][]) {
    const close = target.close.bind(target);
    vi.spyOn(target, "close").mockImplementation(async () => {
      order.push(name);
      await close();
      const failure = wrap[name];
      if (failure) throw failure;
    });
  }
}

/** The thread can be opened again: its lock was released. */
async function opensAgain(flags: { db: string; audit: string }, threadId: string) {
  await expect(withThreadSession({ flags, threadId, plan }, async () => "again")).resolves.toBe("again");
}

async function checkpointerClosed(session: Session) {
  await expect(session.checkpointer.getTuple({ configurable: { thread_id: "t" } })).rejects.toThrow(/not open/);
}

describe("withThreadSession", () => {
  it("holds the lock while the body runs; when the body throws, everything is closed in reverse order and the lock released", async () => {
    const flags = storage();
    const order: string[] = [];
    let opened: ThreadSession | undefined;
    const failure = new Error("body failed");
    await expect(
      withThreadSession({ flags, threadId: "t1", plan }, async (thread) => {
        opened = thread;
        watchCloses(thread, order);
        await expect(withThreadSession({ flags, threadId: "t1", plan }, async () => 0)).rejects.toThrow(/being run by another process/);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(order).toEqual(["ready", "audit", "registry"]);
    expect(suppressedErrors(failure)).toEqual([]);
    await checkpointerClosed(opened!.session);
    await opensAgain(flags, "t1");
  });

  it("when closes throw, the others still close; the first error is thrown and the later ones kept with it", async () => {
    const flags = storage();
    const order: string[] = [];
    let opened: ThreadSession | undefined;
    const readyFailed = new Error("ready close failed");
    const registryFailed = new Error("registry close failed");
    const thrown = await withThreadSession({ flags, threadId: "t2", plan }, async (thread) => {
      opened = thread;
      watchCloses(thread, order, { ready: readyFailed, registry: registryFailed });
      return 0;
    }).catch((error: unknown) => error);
    expect(thrown).toBe(readyFailed);
    expect(suppressedErrors(thrown)).toEqual([registryFailed]);
    expect(order).toEqual(["ready", "audit", "registry"]);
    await checkpointerClosed(opened!.session);
    await opensAgain(flags, "t2");
  });

  it("the body's error wins over a close's, which is kept with it (exit code and message unchanged)", async () => {
    const flags = storage();
    const order: string[] = [];
    const refused = new CliError("refused by the body", 2);
    const auditFailed = new Error("audit close failed");
    await expect(
      withThreadSession({ flags, threadId: "t3", plan }, async (thread) => {
        watchCloses(thread, order, { audit: auditFailed });
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(suppressedErrors(refused)).toEqual([auditFailed]);
    expect(order).toEqual(["ready", "audit", "registry"]);
    await opensAgain(flags, "t3");
  });

  it("a step that fails while opening (the audit sink, after the lock) closes what was opened and releases the lock", async () => {
    const flags = storage();
    const body = vi.fn(async () => 0);
    const refusal = await withThreadSession({ flags: { ...flags, audit: "nowhere:at-all" }, threadId: "t4", plan }, body).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CliError);
    expect((refusal as CliError).message).toMatch(/^--audit refused/);
    expect((refusal as CliError).exitCode).toBe(2);
    expect(body).not.toHaveBeenCalled();
    await opensAgain(flags, "t4");
  });
});

describe("reportError (main's catch)", () => {
  function report(error: unknown) {
    const err: string[] = [];
    const code = reportError(error, { out: () => undefined, err: (line) => void err.push(line) });
    return { code, err };
  }

  it("prints the error, then each close error kept with it; the exit code is the first error's", () => {
    const refused = new CliError("thread t is not waiting for approval", 2);
    addSuppressed(refused, new Error("audit close failed"));
    addSuppressed(refused, "lock release failed");
    expect(report(refused)).toEqual({
      code: 2,
      err: ["guarded-graph: thread t is not waiting for approval", "guarded-graph: then, while closing: audit close failed", "guarded-graph: then, while closing: lock release failed"],
    });
    expect(report(new Error("boom"))).toEqual({ code: 1, err: ["guarded-graph: boom"] });
  });

  it("a thrown non-object still gets its close errors reported", () => {
    const kept = addSuppressed("plain string", new Error("ready close failed"));
    expect(report(kept)).toEqual({ code: 1, err: ["guarded-graph: plain string", "guarded-graph: then, while closing: ready close failed"] });
  });
});
