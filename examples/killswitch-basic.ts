// Remote killswitch: one process-wide cached policy, consulted synchronously before every tool call.
import { fileURLToPath } from "node:url";
import { sharedKillswitch } from "guarded-graph";

export async function killswitchExample(policyUrl: string, log: (line: string) => void = console.log) {
  const lease = sharedKillswitch(
    {
      url: policyUrl,
      ttlMs: 60_000, // cached this long; refreshed in the background 5 s before expiry
      timeoutMs: 2_000,
      maxAgeMs: 300_000, // older than this without a successful fetch: restricted
      headers: { authorization: "Bearer ${POLICY_TOKEN}" }, // from the environment
      onFailure: "deny-risky", // or "ask-non-low"
    },
    { env: { POLICY_TOKEN: "example-token" } },
  );
  const killswitch = lease.killswitch;
  killswitch.onTransition((t) => log(`killswitch ${t.from.status} -> ${t.to.status}: ${t.to.reason ?? "policy applied"}`));

  await killswitch.start(); // the first fetch; never throws

  // Synchronous, never waits on the network: null means "no opinion, go on with the other checks".
  const deploy = killswitch.decide("deploy_service", "high");
  const read = killswitch.decide("read_file", "low");
  log(`deploy_service: ${deploy ? `${deploy.mode} (${deploy.ruleId})` : "no opinion"}`);
  log(`read_file: ${read ? `${read.mode} (${read.ruleId})` : "no opinion"}`);
  log(`bypass mode allowed: ${killswitch.bypassAllowed()}`);

  const snapshot = killswitch.snapshot();
  await lease.release(); // the last holder stops timers and aborts any fetch
  return { status: snapshot.status, deploy, read };
}

// Run directly without POLICY_URL it shows the fail-safe: no policy could be fetched, so risky calls are denied.
if (process.argv[1] === fileURLToPath(import.meta.url)) await killswitchExample(process.env.POLICY_URL ?? "http://127.0.0.1:9/agent-policy");
