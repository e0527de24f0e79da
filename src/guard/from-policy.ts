import { openAuditSink } from "../audit/open.js";
import type { AuditSink } from "../audit/types.js";
import { sharedKillswitch } from "../killswitch/shared.js";
import type { KillswitchLease } from "../killswitch/shared.js";
import { loadPolicyFile, permissionPolicy } from "../policy/file.js";
import type { LoadedPolicy } from "../policy/file.js";
import { Guard } from "./guard.js";
import type { GuardOptions } from "./options.js";

/** Guard options a policy describes: permission rules, risk categories, tool rules, redaction, execution limits. */
export function guardOptionsFromPolicy(policy: LoadedPolicy, options: GuardOptions): GuardOptions {
  return {
    ...options,
    permissions: options.permissions ?? permissionPolicy(policy),
    toolRisk: { ...policy.toolRisk, ...options.toolRisk },
    riskModes: { ...policy.riskModes, ...options.riskModes },
    rules: [...policy.toolRules, ...(options.rules ?? [])],
    redact: [...(policy.audit?.redact ?? []), ...(options.redact ?? [])],
    maxConcurrency: options.maxConcurrency ?? policy.execution?.maxConcurrency,
    defaultTimeoutMs: options.defaultTimeoutMs ?? policy.execution?.timeoutMs,
    maxResultChars: options.maxResultChars ?? policy.execution?.maxResultChars,
  };
}

export interface PolicyGuard {
  guard: Guard;
  policy: LoadedPolicy;
  audit: AuditSink | undefined;
  /** Releases the killswitch lease and closes an audit sink opened here. */
  close(): Promise<void>;
}

/**
 * A ready guard from a policy file (or a loaded policy): opens the audit sink it names (unless one is
 * given), joins the process-wide killswitch it configures and waits for its first fetch (a failed
 * fetch leaves the guard restricted, as it should), and validates the tool rules against the tools.
 */
export async function guardFromPolicy(
  source: string | LoadedPolicy,
  options: GuardOptions & { waitForKillswitch?: boolean },
): Promise<PolicyGuard> {
  const policy = typeof source === "string" ? await loadPolicyFile(source) : source;
  const ownAudit = options.audit === undefined && policy.audit !== undefined;
  const audit = options.audit ?? (policy.audit ? await openAuditSink(policy.audit) : undefined);
  let lease: KillswitchLease | undefined;
  if (options.killswitch === undefined && policy.killswitch !== undefined) {
    lease = sharedKillswitch(policy.killswitch, audit ? { audit } : {});
    if (options.waitForKillswitch !== false) await lease.killswitch.start();
  }
  const guard = new Guard(
    guardOptionsFromPolicy(policy, { ...options, audit, killswitch: options.killswitch ?? lease?.killswitch }),
  );
  return {
    guard,
    policy,
    audit,
    close: async () => {
      await lease?.release();
      if (ownAudit) await audit?.close();
    },
  };
}
