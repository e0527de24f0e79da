import type { Guard } from "./guard.js";

const POLL_MS = 100;

type LedgerClaim =
  | { kind: "run"; settle(success: boolean, recorded?: string): Promise<void> }
  | { kind: "done"; recorded: string }
  | { kind: "aborted" };

const NO_LEDGER: LedgerClaim = { kind: "run", settle: async () => undefined };

/**
 * Claims a call in the execution ledger: "run" it now (then `settle` records a success or frees the
 * claim), or it is "done" (another run completed it; here is its recorded result). While another
 * worker's claim is live, waits, unless the run is aborted.
 */
export async function claimCall(guard: Guard, key: string, signal: AbortSignal | undefined): Promise<LedgerClaim> {
  const ledger = guard.options.ledger;
  if (!ledger) return NO_LEDGER;
  const owner = guard.workerId;
  const leaseMs = guard.ledgerLeaseMs;
  for (;;) {
    if (signal?.aborted) return { kind: "aborted" };
    const claim = await ledger.claim(key, owner, leaseMs);
    if (claim === "done") return { kind: "done", recorded: (await ledger.result(key)) ?? JSON.stringify({ content: "" }) };
    if (claim === "claimed") {
      const renewal = setInterval(() => void ledger.renew(key, owner, leaseMs).catch(() => false), leaseMs / 3);
      renewal.unref?.();
      return {
        kind: "run",
        settle: async (success, recorded) => {
          clearInterval(renewal);
          if (success && recorded !== undefined) await ledger.complete(key, recorded);
          else await ledger.release(key, owner);
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
