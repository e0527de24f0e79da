import { readFileSync } from "node:fs";
import { yamlLibrary } from "../deps/on-demand.js";
import { z } from "zod";
import { ErrorCode, ModelError } from "../errors/index.js";

const argsSchema = z.lazy(() => z.record(z.string(), z.unknown()));

const scriptedCallSchema = z.lazy(() =>
  z.object({
    name: z.string().min(1, "tool call name is empty"),
    args: argsSchema.default({}),
  }),
);

const toolTurnSchema = z.lazy(() => z.object({ tool_calls: z.array(scriptedCallSchema).min(1, "tool_calls is empty"), text: z.string().optional() }).strict());
const textTurnSchema = z.lazy(() => z.object({ text: z.string() }).strict());
const plainTurnSchema = z.lazy(() => z.union([toolTurnSchema, textTurnSchema]));

/** What a conditional turn can look at: the tool results that answered the previous model turn. */
const conditionSchema = z.lazy(() =>
  z
    .object({
      /** Some ToolMessage answering the previous model turn contains this text (case-insensitive). */
      lastToolResultContains: z.string().min(1).optional(),
      /** The last human message contains this text (case-insensitive). */
      lastHumanMessageContains: z.string().min(1).optional(),
    })
    .strict()
    .refine((value) => Object.values(value).some((v) => v !== undefined), { message: "a `when` needs a condition" }),
);

const conditionalTurnSchema = z.lazy(() =>
  z
    .object({ when: conditionSchema, then: plainTurnSchema, else: plainTurnSchema.optional() })
    .strict(),
);

const scenarioSchema = z.lazy(() =>
  z
    .object({
      name: z.string().min(1),
      description: z.string().optional(),
      turns: z.array(z.union([conditionalTurnSchema, plainTurnSchema])).min(1, "a scenario needs at least one turn"),
      /** Arguments to use when `tool_choice` forces a tool the next turn does not call. */
      forced: z.record(z.string(), argsSchema).optional(),
    })
    .strict(),
);

export type Scenario = z.output<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type ScenarioTurn = Scenario["turns"][number];
export type PlainTurn = z.output<typeof plainTurnSchema>;
export type TurnCondition = z.output<typeof conditionSchema>;

/** Validates a scenario object; the error names the scenario and every offending field. */
export function parseScenario(value: unknown, source = "scenario"): Scenario {
  const parsed = scenarioSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
  throw new ModelError(ErrorCode.SCENARIO, `invalid ${source}: ${issues.join("; ")}`);
}

/** Reads a YAML or JSON scenario file. */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ModelError(ErrorCode.SCENARIO, `cannot read scenario ${path}: ${(error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = yamlLibrary().parse(text);
  } catch (error) {
    throw new ModelError(ErrorCode.SCENARIO, `scenario ${path} is not valid YAML/JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseScenario(data, `scenario ${path}`);
}
