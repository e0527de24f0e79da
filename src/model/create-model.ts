import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { packageRoot } from "../package-root.js";
import { loadScenario, parseScenario, type Scenario } from "./scenario.js";
import { ScriptedChatModel } from "./scripted.js";
import { ErrorCode, ModelError } from "../errors/index.js";
import { importOptional } from "../optional/index.js";

const DEFAULT_SCENARIO = "devops-demo";
const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
/** Sent when `OPENAI_BASE_URL` names a server that needs no key (the OpenAI client insists on one). */
export const PLACEHOLDER_API_KEY = "not-needed";

const envSchema = z.lazy(() =>
  z.object({
    OPENAI_API_KEY: z.string().optional(),
    OPENAI_BASE_URL: z.url({ protocol: /^https?$/, message: "OPENAI_BASE_URL must be an http(s) URL" }).optional(),
    MODEL: z.string().optional(),
  }),
);

/** Blank variables count as unset. */
function nonBlank(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === "" ? undefined : value;
}

/** Options of `createModel`: the scripted scenario used when no model is configured, and the environment read. */
export interface CreateModelOptions {
  /** Scenario for the offline scripted model: a name under `scenarios/`, a file path, or a scenario object. */
  scenario?: string | Scenario;
  /** Environment to read (default `process.env`). */
  env?: Record<string, string | undefined>;
}


/** Resolves a scenario name (`devops-demo`) or path (`./my.yaml`) to its file. */
export function scenarioPath(nameOrPath: string): string {
  if (/[\\/]/.test(nameOrPath) || /\.(ya?ml|json)$/i.test(nameOrPath)) return nameOrPath;
  if (!/^[A-Za-z0-9_-]+$/.test(nameOrPath)) throw new ModelError(ErrorCode.SCENARIO, `invalid scenario name ${JSON.stringify(nameOrPath)}`);
  for (const ext of [".yaml", ".yml", ".json"]) {
    const candidate = join(packageRoot(), "scenarios", `${nameOrPath}${ext}`);
    if (existsSync(candidate)) return candidate;
  }
  throw new ModelError(ErrorCode.SCENARIO, `no scenario named "${nameOrPath}" in ${join(packageRoot(), "scenarios")}`);
}

/**
 * The chat model the graphs use: `ChatOpenAI` when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set
 * (any OpenAI-compatible server; `MODEL` names the model), else the offline scripted model
 * playing `options.scenario` (default "devops-demo").
 */
export async function createModel(options: CreateModelOptions = {}): Promise<BaseChatModel> {
  const source = options.env ?? process.env;
  const parsed = envSchema.safeParse({
    OPENAI_API_KEY: nonBlank(source, "OPENAI_API_KEY"),
    OPENAI_BASE_URL: nonBlank(source, "OPENAI_BASE_URL"),
    MODEL: nonBlank(source, "MODEL"),
  });
  if (!parsed.success) throw new ModelError(ErrorCode.MODEL_CONFIG, `invalid model configuration: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  const env = parsed.data;
  if (env.OPENAI_API_KEY !== undefined || env.OPENAI_BASE_URL !== undefined) {
    const { ChatOpenAI } = await importOptional("@langchain/openai", "an OpenAI model (OPENAI_API_KEY or OPENAI_BASE_URL)", () => import("@langchain/openai"));
    return new ChatOpenAI({
      model: env.MODEL ?? DEFAULT_OPENAI_MODEL,
      apiKey: env.OPENAI_API_KEY ?? PLACEHOLDER_API_KEY,
      // Chat Completions is what every OpenAI-compatible server speaks.
      useResponsesApi: false,
      configuration: env.OPENAI_BASE_URL === undefined ? {} : { baseURL: env.OPENAI_BASE_URL },
    });
  }
  const scenario = options.scenario ?? DEFAULT_SCENARIO;
  return new ScriptedChatModel({
    scenario: typeof scenario === "string" ? loadScenario(scenarioPath(scenario)) : parseScenario(scenario),
  });
}
