import { z } from "zod";
import { KillswitchConfigSchema } from "../killswitch/types.js";
import { ASKABLE_RULE_TYPES, RULE_TYPES } from "../rules/types.js";
import { ARGUMENT_KINDS } from "./kinds/readings.js";
import { AfterSchema, BudgetSchema, fieldConditionSchema, ProvenanceConfigSchema, ScopeSchema } from "../provenance/schema.js";
import { ApproverRuleSchema, PrincipalConditionsSchema, PrincipalsDeclarationSchema } from "../principal/schema.js";

export const RiskLevelSchema = z.lazy(() => z.enum(["low", "medium", "high", "always-deny"]));
export const PermissionModeSchema = z.lazy(() => z.enum(["allow", "deny", "ask"]));
export const PrecedenceSchema = z.lazy(() => z.enum(["deny-first", "first-match"]));

const scalar = z.lazy(() => z.union([z.string(), z.number(), z.boolean()]));
const MATCHER_KEYS = ["equals", "in", "glob", "regex", "prefix", "exists", "path", "command", "url", "domain", "email"] as const;
const patterns = z.lazy(() => z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]));

/** One per-field condition; exactly one of equals/in/glob/regex/prefix/exists. */
const FieldMatcherSchema = z.lazy(() =>
  z
    .strictObject({
      equals: scalar.optional().describe("Equal after normalisation (case-insensitive unless caseSensitive)."),
      in: z.array(scalar).min(1).optional().describe("Equal to one of these values."),
      glob: z.string().min(1).optional().describe("picomatch glob on the value, e.g. /etc/**."),
      regex: z.string().min(1).optional().describe("RE2 regex searched in the value."),
      prefix: z.string().min(1).optional().describe("The value starts with this."),
      exists: z.boolean().optional().describe("The field is present (true) or absent (false)."),
      path: patterns.optional().describe("Filesystem path glob(s), gitignore-like: ./secrets/**, **/.env, *.pem, /etc/**. The value is resolved against base first."),
      base: z.string().min(1).optional().describe("path only: absolute directory relative paths resolve against (default: the policy's pathBase, else /)."),
      command: patterns.optional().describe("Shell command pattern(s): 'npm run test' (exact words), 'npm run test:*' (prefix), 'git * main'. Every simple command of the line is checked."),
      url: patterns.optional().describe("URL glob(s) over scheme://host[:port]/path, e.g. https://api.example.com/v1/**."),
      domain: patterns.optional().describe("Host name(s): example.com, *.example.com (subdomains), .example.com (both)."),
      email: patterns.optional().describe("Email address glob(s): *@example.com."),
      caseSensitive: z.boolean().optional(),
    })
    .superRefine((matcher, ctx) => {
      const used = MATCHER_KEYS.filter((key) => matcher[key] !== undefined);
      if (used.length !== 1) {
        ctx.addIssue({
          code: "custom",
          message: `expected exactly one of ${MATCHER_KEYS.join("|")}, got ${used.length === 0 ? "none" : used.join(" and ")}`,
        });
      } else if (used[0] === "exists" && matcher.caseSensitive !== undefined) {
        ctx.addIssue({ code: "custom", path: ["caseSensitive"], message: "caseSensitive has no meaning with exists" });
      }
      if (matcher.base !== undefined && used[0] !== "path") {
        ctx.addIssue({ code: "custom", path: ["base"], message: "base only has a meaning with path" });
      }
    }),
);

/** A field condition: a matcher, `not`/`anyOf`/`allOf` of conditions, a numeric comparison, or `from` (provenance). */
export const FieldConditionSchema = z.lazy(() =>
  fieldConditionSchema(FieldMatcherSchema),
);

export const PermissionRuleSchema = z.lazy(() =>
  z
    .strictObject({
      id: z.string().min(1).optional().describe("Stable id; decisions name it as permission:<id>."),
      rule: z
        .string()
        .min(1)
        .optional()
        .describe("Compact rule as Claude Code users write it: Bash(npm run test:*), Read(./secrets/**), kubectl_delete(namespace:production), WebFetch(domain:example.com). Replaces tool/where."),
      tool: z.string().min(1).optional().describe("Tool name glob (kubectl_*), or a regex matching the whole name when toolRegex is true."),
      toolRegex: z.boolean().optional(),
      args: z.string().min(1).optional().describe("RE2 regex searched in the canonical JSON of the arguments."),
      where: z
        .record(z.string().min(1), FieldConditionSchema)
        .optional()
        .describe("Field selector (a.b[0].c, items[*].name) → condition; all must hold."),
      after: AfterSchema.optional(),
      afterScope: ScopeSchema.optional().describe("Where `after` looks: run (default) or thread."),
      budget: BudgetSchema.optional(),
      principal: PrincipalConditionsSchema.optional(),
      mode: PermissionModeSchema,
      reason: z.string().optional(),
      shadow: z
        .boolean()
        .optional()
        .describe("Shadow rule: decided on every call and audited as what it would have done (would deny by this rule), never enforced. Roll a rule out in shadow first, then remove shadow to enforce it."),
      caseSensitive: z.boolean().optional().describe("Match the tool name and args regex case-sensitively (default: insensitive)."),
    })
    .superRefine((rule, ctx) => {
      if (rule.rule === undefined && rule.tool === undefined) ctx.addIssue({ code: "custom", path: ["tool"], message: "is required (or write the rule as a compact string in rule:)" });
      if (rule.rule !== undefined) {
        for (const key of ["tool", "toolRegex", "where"] as const) {
          if (rule[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: `cannot be combined with rule: (the compact string names the tool and its condition)` });
        }
      }
    }),
);

/** `30000` (ms), `"30s"`, `"1m30s"`, `"500ms"`, or serde's `{ secs = 30, nanos = 0 }`. */
export const DurationSchema = z.lazy(() =>
  z.union([
    z.number().positive(),
    z.string().regex(/^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/, 'expected a duration like "30s", "1m30s" or "500ms"'),
    z.strictObject({ secs: z.number().int().nonnegative(), nanos: z.number().int().nonnegative().optional() }),
  ]),
);

/** Built where used (each use its own schema, as the policy's JSON Schema shows it). */
const toolName = () => z.string().min(1);
const ruleCommonShape = () => ({
  id: z.string().min(1).optional(),
  conditions: z.array(toolName()).optional(),
  priority: z.number().finite().optional(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
});
let ruleCommonFields: ReturnType<typeof ruleCommonShape> | undefined;
/** The fields every tool rule has (built once, on the first parse). */
const ruleCommon = () => (ruleCommonFields ??= ruleCommonShape());

const VALUE_FIELDS = { MaxCalls: "max", MaxTotalCalls: "max", Cooldown: "duration", Periodic: "duration", AllowedOperations: "operations", ChildTools: "children", ParentTools: "children", ConditionalNext: "outputMapping" } as const;

/** Optional fields per rule type (a field outside its types is an error, not silently ignored). */
const OPTIONAL_FIELDS: Readonly<Record<string, readonly string[]>> = {
  scope: ["MaxCalls", "MaxTotalCalls", "MustFollow", "MustPrecede", "ExclusiveGroup"],
  exitBehavior: ["MaxCalls", "MaxTotalCalls"],
  onViolation: ASKABLE_RULE_TYPES,
  alternatives: ["InitialCall"],
  args: ["InitialCall", "RequiredForExit", "RequiredForExitIf", "Periodic"],
  childArgs: ["ChildTools"],
  defaultChild: ["ConditionalNext"],
  requireOutputMapping: ["ConditionalNext"],
};

const prefilledArgs = z.lazy(() => z.record(z.string(), z.unknown()));

/** Tool rule in this project's form: `{ tool, type, max?, scope?, duration?, operations?, ... }`. */
export const NativeToolRuleSchema = z.lazy(() =>
  z
    .strictObject({
      ...ruleCommon(),
      tool: toolName().describe('Tool name, or "*".'),
      type: z.enum(RULE_TYPES),
      max: z.number().int().nonnegative().optional().describe("MaxCalls / MaxTotalCalls only."),
      scope: z.enum(["run", "thread"]).optional().describe("MaxCalls, MaxTotalCalls, MustFollow, MustPrecede, ExclusiveGroup (default run)."),
      exitBehavior: z.enum(["continue", "end", "error"]).optional().describe("MaxCalls / MaxTotalCalls only (default continue)."),
      onViolation: z
        .enum(["refuse", "ask"])
        .optional()
        .describe(`What a call that breaks the rule gets: refuse (default) or ask (a human approves or rejects it). ${ASKABLE_RULE_TYPES.join(", ")} only; ask cannot be combined with exitBehavior end or error.`),
      duration: DurationSchema.optional().describe("Cooldown / Periodic only."),
      durationMs: z.number().positive().optional().describe("Cooldown / Periodic only (alternative to duration)."),
      operations: z.array(z.string().min(1)).min(1).optional().describe("AllowedOperations only."),
      alternatives: z.array(toolName()).optional().describe("InitialCall only: the first call is one of tool and these."),
      args: prefilledArgs.optional().describe("InitialCall, RequiredForExit(If), Periodic: prefilled arguments."),
      children: z.array(toolName()).min(1).optional().describe("ChildTools: the tools allowed right after tool; ParentTools: the tools allowed only right after tool."),
      childArgs: z.record(toolName(), prefilledArgs).optional().describe("ChildTools only: prefilled arguments per child."),
      outputMapping: z.record(z.string(), toolName()).optional().describe("ConditionalNext only: output → next tool."),
      defaultChild: toolName().optional().describe("ConditionalNext only: next tool when no output matches."),
      requireOutputMapping: z.boolean().optional().describe("ConditionalNext only: no match allows no tool."),
    })
    .superRefine((rule, ctx) => {
      const needed = VALUE_FIELDS[rule.type as keyof typeof VALUE_FIELDS] as string | undefined;
      const present = (key: string) => (rule as Record<string, unknown>)[key] !== undefined;
      if (needed === "duration" && !present("duration") && !present("durationMs")) {
        ctx.addIssue({ code: "custom", path: ["duration"], message: `is required for ${rule.type} (e.g. duration: "30s")` });
      } else if (needed !== undefined && needed !== "duration" && !present(needed)) {
        ctx.addIssue({ code: "custom", path: [needed], message: `is required for ${rule.type}` });
      }
      for (const key of ["max", "duration", "durationMs", "operations", "children", "outputMapping"]) {
        const owner = key === "durationMs" ? "duration" : key;
        if (present(key) && owner !== needed) {
          ctx.addIssue({ code: "custom", path: [key], message: `has no meaning for ${rule.type}` });
        }
      }
      for (const [key, types] of Object.entries(OPTIONAL_FIELDS)) {
        if (present(key) && !types.includes(rule.type)) {
          ctx.addIssue({ code: "custom", path: [key], message: `has no meaning for ${rule.type} (only for ${types.join(", ")})` });
        }
      }
      if (rule.onViolation === "ask" && rule.exitBehavior !== undefined && rule.exitBehavior !== "continue") {
        ctx.addIssue({ code: "custom", path: ["onViolation"], message: `ask cannot be combined with exitBehavior ${rule.exitBehavior} (a call that asks neither ends the run nor throws)` });
      }
    }),
);

/** The seed's serde form: `rule_type = "MustFollow"` or `{ MaxCalls = 3 }`, `{ Cooldown = "30s" }`, ... */
/** The seed's own rule types (the newer ones are written in this project's form). */
const SEED_RULE_TYPES = RULE_TYPES.filter(
  (t): t is Exclude<(typeof RULE_TYPES)[number], "MaxTotalCalls" | "ChildTools" | "ParentTools" | "ConditionalNext"> =>
    t !== "MaxTotalCalls" && t !== "ChildTools" && t !== "ParentTools" && t !== "ConditionalNext",
);

const SeedRuleTypeSchema = z.lazy(() =>
  z.union([
    z.enum(SEED_RULE_TYPES as [typeof SEED_RULE_TYPES[number], ...typeof SEED_RULE_TYPES[number][]]),
    z.strictObject({ MaxCalls: z.number().int().nonnegative() }),
    z.strictObject({ Cooldown: DurationSchema }),
    z.strictObject({ Periodic: DurationSchema }),
    z.strictObject({ AllowedOperations: z.array(z.string().min(1)).min(1) }),
  ]),
);

export const SeedToolRuleSchema = z.lazy(() =>
  z
    .strictObject({
      ...ruleCommon(),
      tool_name: toolName(),
      rule_type: SeedRuleTypeSchema,
      scope: z.enum(["run", "thread"]).optional(),
    })
    .superRefine((rule, ctx) => {
      if (typeof rule.rule_type === "string" && rule.rule_type in VALUE_FIELDS) {
        const examples: Record<string, string> = { MaxCalls: "3", Cooldown: '"30s"', Periodic: '"5m"', AllowedOperations: '["read"]' };
        const example = examples[rule.rule_type] ?? "...";
        ctx.addIssue({ code: "custom", path: ["rule_type"], message: `${rule.rule_type} needs a value: rule_type = { ${rule.rule_type} = ${example} }` });
      }
    }),
);

const ToolRuleEntrySchema = z.lazy(() =>
  z.union([NativeToolRuleSchema, SeedToolRuleSchema]),
);

const AuditConfigSchema = z.lazy(() =>
  z
    .strictObject({
      sink: z.enum(["jsonl", "sqlite", "postgres", "memory"]),
      path: z.string().min(1).optional().describe("File for jsonl and sqlite."),
      url: z.string().min(1).optional().describe("Connection URL for postgres."),
      table: z.string().min(1).optional(),
      redact: z.array(z.string().min(1)).optional().describe('Field names or paths replaced by "[REDACTED]", e.g. token, headers.authorization.'),
    })
    .superRefine((audit, ctx) => {
      if ((audit.sink === "jsonl" || audit.sink === "sqlite") && audit.path === undefined) {
        ctx.addIssue({ code: "custom", path: ["path"], message: `is required for the ${audit.sink} sink` });
      }
      if (audit.sink === "postgres" && audit.url === undefined) {
        ctx.addIssue({ code: "custom", path: ["url"], message: "is required for the postgres sink" });
      }
    }),
);

const ExecutionConfigSchema = z.lazy(() =>
  z.strictObject({
    maxConcurrency: z.number().int().positive().optional(),
    timeoutMs: z.number().int().positive().optional(),
    maxResultChars: z.number().int().positive().optional(),
  }),
);

/** `tools.X.mainArgument`: the argument a bare compact pattern (`shell(npm test)`) means for tool X. */
export const MainArgumentSchema = z.lazy(() =>
  z
    .strictObject({
      field: z.string().min(1).describe("The argument (a selector: cmd, file_path, request.url)."),
      kind: z.enum(["command", "path", "url"]).describe("How a bare pattern matches it: command (shell-aware), path (resolved, gitignore-like glob), url."),
    })
    .describe("Which argument a compact rule's bare pattern means for this tool, e.g. { field: cmd, kind: command } so shell(npm run test:*) reads cmd."),
);

const ToolEntrySchema = z.lazy(() =>
  z
    .strictObject({
      risk: RiskLevelSchema.optional().describe("Risk of every call of the tool (raises the tool's own; lowering it needs lowerRisk: true)."),
      operations: z.record(z.string().min(1), RiskLevelSchema).optional().describe("Risk per operation, e.g. { delete: high }; wins over risk."),
      lowerRisk: z.boolean().optional().describe("Say so explicitly to set a risk lower than the one the tool declares."),
      mainArgument: MainArgumentSchema.optional(),
      fields: z
        .record(z.string().min(1), z.enum(ARGUMENT_KINDS))
        .optional()
        .describe("What the tool's arguments are, by field selector: { path: path, target: url } (path, url, domain, email, command; text for none). Every equals/in/prefix/glob/regex on such a field compares the value's canonical readings (a path resolved, a URL normalised)."),
      description: z.string().optional(),
    })
    .superRefine((entry, ctx) => {
      if (entry.risk === undefined && entry.operations === undefined && entry.mainArgument === undefined && entry.fields === undefined) ctx.addIssue({ code: "custom", path: ["risk"], message: "is required (or give operations, mainArgument or fields)" });
    }),
);

/** The policy document (YAML, JSON or TOML). Published as policies/policy.schema.json. */
export const PolicyFileSchema = z.lazy(() =>
  z
    .strictObject({
      $schema: z.string().optional(),
      version: z.literal(1).optional().describe("Format version (1)."),
      precedence: PrecedenceSchema.optional().describe("deny-first (default: deny > ask > allow) or first-match (the first matching rule in written order wins)."),
      defaultRisk: RiskLevelSchema.optional().describe("Risk of tools that declare none. Unset: a call no rule matches, on a tool with no declared risk, asks."),
      pathBase: z.string().min(1).optional().describe("Absolute directory the tools run in: relative paths in path matchers and compact rules resolve against it (default /), and deny and ask command patterns also read a command line's relative words from it (default: the directory a line starts in is unknown)."),
      followSymlinks: z.boolean().optional().describe("Read paths through the symlinks on this machine too (default: when pathBase is a directory on this machine)."),
      workingDirectories: z
        .array(z.string().min(1).refine((dir) => dir.startsWith("/"), "must be an absolute directory"))
        .optional()
        .describe("Absolute directories besides pathBase the tools work in (Claude Code's additionalDirectories): a path there is placed, so a deny or ask path pattern holds there only where it matches and an allow pattern naming it can allow it (a path elsewhere outside pathBase matches every deny and no allow)."),
      home: z.string().min(1).optional().describe("Absolute home directory `~` names in path patterns (`Read(~/.ssh/**)`), as bash expands `~/…` (default: the home of the process the policy is built in)."),
      riskModes: z
        .strictObject({
          low: PermissionModeSchema.optional(),
          medium: PermissionModeSchema.optional(),
          high: PermissionModeSchema.optional(),
          "always-deny": PermissionModeSchema.optional(),
        })
        .optional()
        .describe("What each risk level decides when no permission rule matches."),
      tools: z.record(z.string().min(1), ToolEntrySchema).optional().describe("Per tool name: risk category, risk per operation, and the main argument of compact rules."),
      permissions: z.array(PermissionRuleSchema).optional(),
      principals: PrincipalsDeclarationSchema.optional(),
      approvers: z.array(ApproverRuleSchema).optional().describe("Who may answer which approvals. A call several rules cover needs all of them to hold."),
      shadow: z
        .string()
        .min(1)
        .optional()
        .describe("A candidate policy file (relative to this one) run in shadow: its permission rules and risk levels are decided on every call and audited as what they would have done, never enforced."),
      tool_rules: z.array(ToolRuleEntrySchema).optional(),
      agent: z
        .strictObject({
          name: z.string().optional(),
          tools: z.array(toolName()).optional(),
          tool_rules: z.array(ToolRuleEntrySchema).optional(),
        })
        .optional(),
      provenance: ProvenanceConfigSchema.optional(),
      killswitch: KillswitchConfigSchema.optional(),
      audit: AuditConfigSchema.optional(),
      execution: ExecutionConfigSchema.optional(),
      mcp: z
        .strictObject({
          trustAnnotations: z
            .array(z.string().min(1))
            .optional()
            .describe("MCP servers (as named in mcp__SERVER__TOOL) whose tool annotations may also relax a tool: readOnlyHint → low risk and parallel runs. Other servers' annotations may only make a tool stricter."),
        })
        .optional()
        .describe("MCP tools loaded with @langchain/mcp-adapters."),
    })
    .describe("guarded-graph policy"),
);

export type PolicyFile = z.output<typeof PolicyFileSchema>;
export type PolicyFileInput = z.input<typeof PolicyFileSchema>;
export type FieldMatcherEntry = z.output<typeof FieldMatcherSchema>;
export type ToolRuleEntry = z.output<typeof ToolRuleEntrySchema>;
export type AuditConfig = z.output<typeof AuditConfigSchema>;
export type ExecutionConfig = z.output<typeof ExecutionConfigSchema>;
