import { openAuditSink } from "../audit/open.js";
import type { AuditSink } from "../audit/types.js";
import { sharedKillswitch } from "../killswitch/shared.js";
import type { KillswitchLease } from "../killswitch/shared.js";
import { loadPolicyFile, permissionPolicy } from "../policy/file.js";
import type { LoadedPolicy } from "../policy/file.js";
import { assertPolicyFits, type DeclaredRisks } from "../policy/check.js";
import { SwappablePermissions, watchPolicyFile, type PolicyWatcher, type WatchPolicyOptions } from "../policy/watch.js";
import { Guard } from "./guard.js";

/** The risk each of the guard's tools declares itself, per tool and per operation. */
export function declaredRisks(guard: Guard): DeclaredRisks {
  return new Map(
    guard.registry.names().map((name) => {
      const spec = guard.spec(name);
      return [name, { risk: spec?.risk, operationRisk: spec?.operationRisk ?? {} }] as const;
    }),
  );
}
import type { GuardOptions } from "./options.js";
import type { ToolArguments } from "../policy/check.js";

/** The top-level argument names of each of the guard's tools (ToolRegistry.argumentNames). */
export function toolArguments(guard: Guard): ToolArguments {
  return guard.registry.argumentNames();
}

/** Guard options a policy describes: permission rules, risk categories, tool rules, redaction, execution limits. */
export function guardOptionsFromPolicy(policy: LoadedPolicy, options: GuardOptions): GuardOptions {
  return {
    ...options,
    permissions: options.permissions ?? permissionPolicy(policy),
    ...(options.shadowPermissions === undefined && policy.shadow === undefined ? {} : { shadowPermissions: options.shadowPermissions ?? permissionPolicy(policy.shadow!) }),
    toolRisk: { ...policy.toolRisk, ...options.toolRisk },
    operationRisk: { ...policy.operationRisk, ...options.operationRisk },
    lowerRisk: [...policy.lowerRisk, ...(options.lowerRisk ?? [])],
    defaultRisk: options.defaultRisk ?? policy.defaultRisk,
    riskModes: { ...policy.riskModes, ...options.riskModes },
    mcp: { ...options.mcp, trustAnnotations: [...new Set([...(policy.mcp?.trustAnnotations ?? []), ...(options.mcp?.trustAnnotations ?? [])])] },
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
  /** With `watch`: the file watcher (its `permissions.loaded` is the policy in force). */
  watcher?: PolicyWatcher | undefined;
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
  options: GuardOptions & {
    waitForKillswitch?: boolean;
    /**
     * Watch the policy file (source must be a path): a changed file is parsed, compiled and checked
     * against the tools, then its permission rules (unless given in code), tool rules and risk levels replace the old ones together
     * (one synchronous swap); a bad file keeps the old policy and is reported (audit record event
     * "policy", and the log). Rule state is per tool, so counts of a run in progress survive.
     */
    watch?: boolean | Pick<WatchPolicyOptions, "log" | "debounceMs" | "onEvent">;
  },
): Promise<PolicyGuard> {
  const policy = typeof source === "string" ? await loadPolicyFile(source) : source;
  const ownAudit = options.audit === undefined && policy.audit !== undefined;
  const audit = options.audit ?? (policy.audit ? await openAuditSink(policy.audit) : undefined);
  let lease: KillswitchLease | undefined;
  if (options.killswitch === undefined && policy.killswitch !== undefined) {
    lease = sharedKillswitch(policy.killswitch, audit ? { audit } : {});
    if (options.waitForKillswitch !== false) await lease.killswitch.start();
  }
  const watching = options.watch !== undefined && options.watch !== false;
  if (watching && typeof source !== "string") throw new TypeError("guardFromPolicy: watch needs the policy file's path as source");
  const swappable = watching && options.permissions === undefined ? new SwappablePermissions(policy) : undefined;
  const { watch: watchOptions, ...guardOptions } = options;
  const guard = new Guard(
    guardOptionsFromPolicy(policy, {
      ...guardOptions,
      audit,
      killswitch: options.killswitch ?? lease?.killswitch,
      ...(swappable !== undefined ? { permissions: swappable } : {}),
    }),
  );
  let watcher: PolicyWatcher | undefined;
  try {
    // The tools are known here: rules naming tools or operations that do not exist, and risks
    // lower than a tool's own without lowerRisk, are errors (t12).
    assertPolicyFits(policy, guard.registry.catalog(), declaredRisks(guard), toolArguments(guard));
    // A shadow policy (`shadow: FILE`) is checked against the same tools: a rule that could never fire would shadow nothing.
    if (policy.shadow !== undefined) assertPolicyFits(policy.shadow, guard.registry.catalog(), declaredRisks(guard), toolArguments(guard));
    if (watching && typeof source === "string") {
      // A reloaded file is checked against these tools before it replaces the permission rules (or,
      // with permission rules given in code, which stay, only its tool rules and risk levels).
      watcher = watchPolicyFile(source, policy, {
        ...(typeof watchOptions === "object" ? watchOptions : {}),
        audit,
        tools: guard.registry.catalog(),
        declared: declaredRisks(guard),
        toolArguments: toolArguments(guard),
        ...(swappable !== undefined ? { permissions: swappable } : {}),
        // The file's tool rules replace the old file's; rules given in code (options.rules) stay, after them.
        rules: (toolRules) => guard.prepareRules([...toolRules, ...(options.rules ?? [])]),
        // The file's risk levels replace the old file's in the guard's own lookup; risks given in code stay over them.
        risks: (next) => guard.prepareRisks(guardOptionsFromPolicy(next, guardOptions)),
      });
    }
  } catch (error) {
    watcher?.close();
    await lease?.release();
    if (ownAudit) await audit?.close();
    throw error;
  }
  return {
    guard,
    policy,
    audit,
    watcher,
    close: async () => {
      watcher?.close();
      await lease?.release();
      if (ownAudit) await audit?.close();
    },
  };
}
