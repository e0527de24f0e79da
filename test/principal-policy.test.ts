import { describe, expect, it } from "vitest";
import { checkPolicy } from "../src/policy/check.js";
import { parsePolicy, permissionPolicy } from "../src/policy/file.js";
import { linearScanForTests, PermissionPolicy } from "../src/policy/permissions.js";
import { asUser, principalOf, type AuthUserInput } from "../src/principal/principal.js";
import { ApiKeys } from "../src/platform/api-keys.js";
import { runPolicyCommand } from "./helpers/policy-command.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const POLICY = `
principals:
  metadata: [tenant, role]
  configurable: [environment]
tools:
  read_invoice: { risk: low }
  deploy: { risk: high }
permissions:
  - id: own-tenant
    tool: read_invoice
    mode: deny
    where:
      tenantId: { not: { sameAs: metadata.tenant } }
    reason: invoices of another tenant
  - id: deployers
    tool: deploy
    mode: allow
    principal:
      permissions: { equals: deploy }
      configurable.environment: { in: [staging, production] }
  - id: no-prod-for-juniors
    tool: deploy
    mode: deny
    where: { env: { equals: production } }
    principal:
      metadata.role: { not: { in: [sre, admin] } }
`;

const loaded = parsePolicy(POLICY, "yaml", "principal.yaml");
const policy = permissionPolicy(loaded);
const reference = linearScanForTests(permissionPolicy(parsePolicy(POLICY, "yaml", "principal.yaml")));

function as(user: AuthUserInput | undefined, configurable: Record<string, unknown> = {}) {
  const config = { configurable: { thread_id: "t", ...configurable } };
  return principalOf(user === undefined ? config : asUser(config, user));
}

function decide(tool: string, args: Record<string, unknown>, principal: ReturnType<typeof as>) {
  const fast = policy.decide(tool, args, undefined, undefined, principal);
  // The fast paths (kept verdicts, value index) decide as the linear scan does.
  expect(reference.decide(tool, args, undefined, undefined, principal)).toEqual(fast);
  return fast;
}

const alice = { identity: "alice", permissions: ["deploy"], metadata: { tenant: "acme", role: "dev" } };

describe("an argument compared with the caller's attribute (sameAs)", () => {
  it("allows the caller's own tenant and denies another one", () => {
    expect(decide("read_invoice", { tenantId: "acme", id: "1" }, as(alice)).mode).toBe("allow");
    const other = decide("read_invoice", { tenantId: "globex", id: "1" }, as(alice));
    expect(other).toMatchObject({ mode: "deny", ruleId: "permission:own-tenant", reason: "invoices of another tenant" });
  });

  it("compares spellings as the matchers do: case, whitespace, full-width letters", () => {
    for (const spelling of ["ACME", " acme ", "ａｃｍｅ", "a\u200Bcme"]) expect(decide("read_invoice", { tenantId: spelling }, as(alice)).mode).toBe("allow");
    // caseSensitive is not set: "Acme" in the user's metadata matches "acme" in the call.
    expect(decide("read_invoice", { tenantId: "acme" }, as({ ...alice, metadata: { tenant: "Acme" } })).mode).toBe("allow");
  });

  it("a list attribute holds each of its items; a list argument needs every item to be the caller's", () => {
    const twoTenants = as({ ...alice, metadata: { tenant: ["acme", "initech"] } });
    expect(decide("read_invoice", { tenantId: "initech" }, twoTenants).mode).toBe("allow");
    expect(decide("read_invoice", { tenantId: "globex" }, twoTenants).mode).toBe("deny");
    expect(decide("read_invoice", { tenantId: ["acme", "globex"] }, as(alice)).mode).toBe("deny");
  });

  it("fails closed and names what is missing: no authenticated user, no tenant, a user marked unauthenticated", () => {
    const none = decide("read_invoice", { tenantId: "acme" }, as(undefined));
    expect(none.mode).toBe("ask");
    expect(none.reason).toContain("the run has no authenticated user (langgraph_auth_user), so metadata.tenant cannot be read");
    const noTenant = decide("read_invoice", { tenantId: "acme" }, as({ identity: "bob", metadata: { role: "dev" } }));
    expect(noTenant.mode).toBe("ask");
    expect(noTenant.reason).toContain("the run's principal has no metadata.tenant");
    expect(decide("read_invoice", { tenantId: "acme" }, as({ ...alice, is_authenticated: false })).mode).toBe("ask");
    // A tenant that is an object cannot be compared: not allowed.
    expect(decide("read_invoice", { tenantId: "acme" }, as({ ...alice, metadata: { tenant: { id: "acme" } } })).mode).toBe("ask");
  });

  it("a top-level field of the user counts as metadata; the user's metadata object wins over it", () => {
    expect(decide("read_invoice", { tenantId: "acme" }, as({ identity: "carol", tenant: "acme" })).mode).toBe("allow");
    expect(decide("read_invoice", { tenantId: "acme" }, as({ identity: "carol", tenant: "acme", metadata: { tenant: "globex" } })).mode).toBe("deny");
  });
});

describe("rules on roles, permissions and configurable values (principal:)", () => {
  it("allows a user with the permission in an allowed environment; asks (the tool's risk) otherwise", () => {
    expect(decide("deploy", { service: "web", env: "staging" }, as(alice, { environment: "staging" }))).toMatchObject({ mode: "allow", ruleId: "permission:deployers" });
    expect(decide("deploy", { service: "web", env: "staging" }, as({ ...alice, permissions: ["read"] }, { environment: "staging" })).mode).toBe("ask");
    expect(decide("deploy", { service: "web", env: "staging" }, as(alice, { environment: "dev" })).mode).toBe("ask");
  });

  it("permissions compare normalised and case-insensitively unless the rule says caseSensitive", () => {
    expect(decide("deploy", { service: "web", env: "staging" }, as({ ...alice, permissions: ["read", " DEPLOY "] }, { environment: "staging" })).mode).toBe("allow");
    const strict = new PermissionPolicy([{ tool: "deploy", mode: "allow", principal: { permissions: { equals: "deploy", caseSensitive: true } } }], { toolRisk: { deploy: "high" } });
    expect(strict.decide("deploy", {}, "high", undefined, as({ ...alice, permissions: ["DEPLOY"] })).mode).toBe("ask");
    expect(strict.decide("deploy", {}, "high", undefined, as(alice)).mode).toBe("allow");
  });

  it("a missing user never allows, and the reason of the ask says why the allow rule could not apply", () => {
    const decision = decide("deploy", { service: "web", env: "staging" }, as(undefined, { environment: "staging" }));
    expect(decision.mode).toBe("ask");
    expect(decision.reason).toContain("permission:deployers could not allow this call: the run has no authenticated user (langgraph_auth_user), so permissions cannot be read");
    // A permissions field that is not a list of strings is not read as one.
    expect(decide("deploy", { service: "web", env: "staging" }, as({ ...alice, permissions: "deploy" as unknown as string[] }, { environment: "staging" })).mode).toBe("ask");
  });

  it("a deny on the role: denied for a developer, not for an SRE; a missing role asks (never slips through a not)", () => {
    expect(decide("deploy", { service: "web", env: "production" }, as(alice, { environment: "production" }))).toMatchObject({ mode: "deny", ruleId: "permission:no-prod-for-juniors" });
    expect(decide("deploy", { service: "web", env: "production" }, as({ ...alice, metadata: { tenant: "acme", role: ["dev", "SRE"] } }, { environment: "production" })).mode).toBe("allow");
    const noRole = decide("deploy", { service: "web", env: "production" }, as({ ...alice, metadata: { tenant: "acme" } }, { environment: "production" }));
    expect(noRole.mode).toBe("ask");
    expect(noRole.reason).toContain("the run's principal has no metadata.role");
  });

  it("LangGraph's own configurable keys are not run values: a rule cannot read them", () => {
    expect(principalOf({ configurable: { thread_id: "t", langgraph_auth_user_id: "x", __pregel_x: 1, environment: "staging" } }).configurable).toEqual({ environment: "staging" });
  });
});

describe("policy check knows the principal's names", () => {
  const check = (text: string) => checkPolicy(parsePolicy(text, "yaml", "p.yaml")).errors;
  it("flags misspelt, undeclared and LangGraph-internal names, with the closest known name", () => {
    const errors = check(`
principals: { metadata: [tenant], configurable: [environment] }
permissions:
  - { tool: a, mode: allow, principal: { permisions: { equals: deploy } } }
  - { tool: a, mode: allow, principal: { metadata.tenent: { equals: acme } } }
  - { tool: a, mode: deny, where: { t: { not: { sameAs: metadata.Tenant } } } }
  - { tool: a, mode: allow, principal: { configurable.thread_id: { exists: true } } }
  - { tool: a, mode: allow, principal: { configurable.enviroment: { equals: x } } }
`);
    expect(errors).toEqual([
      'permissions[0].principal: principal name "permisions" is not known (did you mean "permissions"?); known names: identity, permissions, display_name, metadata.tenant, configurable.environment',
      'permissions[1].principal: metadata.tenent reads metadata.tenent, which principals.metadata does not declare (did you mean "metadata.tenant"?); declare it there so a misspelling cannot go unnoticed',
      'permissions[2].where["t"]: metadata.Tenant reads metadata.Tenant, which principals.metadata does not declare (did you mean "metadata.tenant"?); declare it there so a misspelling cannot go unnoticed',
      "permissions[3].principal: configurable.thread_id is set by LangGraph itself, not a value of the run; read the user with identity, permissions or metadata.<key>",
      'permissions[4].principal: configurable.enviroment reads configurable.enviroment, which principals.configurable does not declare (did you mean "configurable.environment"?); declare it there so a misspelling cannot go unnoticed',
    ]);
    expect(check(POLICY)).toEqual([]);
  });

  it("an approver rule naming no known tool is an error when the tools are known", () => {
    const loaded = parsePolicy(`approvers: [{ id: x, tool: "deploy_*" }, { tool: "refund" }]`, "yaml", "a.yaml");
    expect(checkPolicy(loaded, new Map([["refund", []]])).errors).toEqual(['approvers[0] (x) names tool "deploy_*", which matches no known tool (known: refund); the rule would never apply']);
  });

  it("a policy built in code is checked too when a guard is made from it", () => {
    expect(() => new PermissionPolicy([{ tool: "a", mode: "allow", principal: { from: ["user"] } as never }])).toThrow();
  });
});

describe("zero cost for policies without rules on the principal", () => {
  it("readsPrincipal is false for them and true for a policy with a principal block or a sameAs", () => {
    expect(new PermissionPolicy([{ tool: "a", mode: "allow", where: { x: { equals: 1 } } }]).readsPrincipal).toBe(false);
    expect(policy.readsPrincipal).toBe(true);
    expect(new PermissionPolicy([{ tool: "a", mode: "deny", where: { x: { sameAs: "identity" } } }]).readsPrincipal).toBe(true);
  });
});

describe("API keys' users carry permissions and metadata (GUARDED_GRAPH_API_USERS)", () => {
  const KEY_A = "alice-key-0123456789abcdef";
  const KEY_B = "bob-key-0123456789abcdefgh";
  it("gives each key's user what the JSON says, and the policy reads it", () => {
    const keys = ApiKeys.parse(`alice:${KEY_A},bob:${KEY_B}`, JSON.stringify({ alice: { permissions: ["deploy"], metadata: { tenant: "acme", role: "dev" } } }));
    const user = keys.lookup(KEY_A);
    expect(user).toEqual({ identity: "alice", display_name: "alice", is_authenticated: true, permissions: ["deploy"], metadata: { tenant: "acme", role: "dev" } });
    expect(keys.lookup(KEY_B)).toEqual({ identity: "bob", display_name: "bob", is_authenticated: true, permissions: [] });
    expect(decide("read_invoice", { tenantId: "acme" }, principalOf({ configurable: { langgraph_auth_user: user } })).mode).toBe("allow");
    // A lookup hands out a copy: a caller changing it changes nothing for the next request.
    (user?.metadata as Record<string, unknown>).tenant = "globex";
    expect(keys.lookup(KEY_A)?.metadata).toEqual({ tenant: "acme", role: "dev" });
  });

  it("refuses malformed JSON, unknown fields and users without a key, naming the problem", () => {
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as Error).message;
      }
      return "";
    };
    expect(thrown(() => ApiKeys.parse(`alice:${KEY_A}`, "{alice"))).toMatch(/^GUARDED_GRAPH_API_USERS is invalid \(.*\); write JSON such as/);
    expect(thrown(() => ApiKeys.parse(`alice:${KEY_A}`, JSON.stringify({ alice: { roles: ["x"] } })))).toMatch(/^GUARDED_GRAPH_API_USERS is invalid \(alice: Unrecognized key: "roles"\)/);
    expect(thrown(() => ApiKeys.parse(`alice:${KEY_A}`, JSON.stringify({ alcie: { permissions: ["x"] } })))).toBe('GUARDED_GRAPH_API_USERS names "alcie", who has no key in GUARDED_GRAPH_API_KEYS (users with keys: alice).');
  });
});

describe("policy explain --user / --configurable", () => {
  it("judges rules on the principal for the given user and says who it is; without a user it says so and the allow rule cannot apply", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-explain-principal-"));
    try {
      const file = join(dir, "p.yaml");
      writeFileSync(file, POLICY);
      const args = ["explain", file, "--tool", "deploy", "--args", '{"service":"web","env":"staging"}'];
      const asAlice = await runPolicyCommand([...args, "--user", JSON.stringify(alice), "--configurable", '{"environment":"staging"}']);
      expect(asAlice.code).toBe(0);
      const text = asAlice.out.join("\n");
      expect(text).toContain('Principal: alice (permissions ["deploy"], metadata.tenant="acme", metadata.role="dev"); configurable environment="staging"');
      expect(text).toContain("Decision: allow by permission:deployers");
      const nobody = (await runPolicyCommand(args)).out.join("\n");
      expect(nobody).toContain("Principal: no authenticated user (give --user JSON); no configurable values");
      expect(nobody).toMatch(/Decision: ask by risk:high — permission:deployers could not allow this call: the run has no authenticated user/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("approver rules and standing decisions", () => {
  it("a standing approval never answers a call whose rule needs four eyes or several approvers; a standing reject does", async () => {
    const { ApproverGate } = await import("../src/principal/approvers.js");
    const gate = new ApproverGate(
      [
        { tool: "deploy", notRequester: true },
        { tool: "drop_*", approvals: 2 },
        { tool: "refund", principal: { permissions: { equals: "refund" } } },
      ],
      "m1",
      undefined,
      asUser({}, alice),
      true,
    );
    expect(gate.standingHolds({ id: "1", name: "deploy" }, "approve")).toBe(false);
    expect(gate.standingHolds({ id: "2", name: "drop_table" }, "approve")).toBe(false);
    expect(gate.standingHolds({ id: "3", name: "refund" }, "approve")).toBe(true);
    expect(gate.standingHolds({ id: "4", name: "deploy" }, "reject")).toBe(true);
  });
});
