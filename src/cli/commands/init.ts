import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, extname, isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { CliError } from "../errors.js";
import { parseFlags } from "../flags.js";
import type { Output } from "../render.js";

export const INIT_USAGE = "init [--tools MODULE] [--policy FILE] [--name NAME] [--dir DIR] [--force]";

const initFlags = z.object({
  tools: z.string().min(1).optional(),
  policy: z.string().min(1).optional(),
  name: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "a graph name is a letter, then letters, digits, '_' or '-'")
    .optional(),
  dir: z.string().min(1).optional(),
  force: z.boolean().optional(),
});

const STARTER_TOOLS = `// Your agent's tools (written by \`guarded-graph init\` as a starting point: replace them with yours).
import { defineTool } from "guarded-graph";
import { z } from "zod";

export const tools = [
  defineTool({
    name: "lookup_order",
    description: "Read an order by id",
    schema: z.object({ id: z.string() }),
    risk: "low",
    execute: ({ id }) => \`order \${id}: shipped\`,
  }),
  defineTool({
    name: "refund_order",
    description: "Refund an order",
    schema: z.object({ id: z.string(), amount: z.number().positive() }),
    risk: "high",
    execute: ({ id, amount }) => \`refunded \${amount} on order \${id}\`,
  }),
];
`;

const STARTER_POLICY = `# yaml-language-server: $schema=./node_modules/guarded-graph/policies/policy.schema.json
# Your agent's policy (written by \`guarded-graph init\`): check it with \`npx guarded-graph policy check FILE\`.
version: 1
permissions:
  - id: refunds
    tool: refund_order
    mode: ask
    reason: refunds need a human
  - id: reads
    tool: lookup_order
    mode: allow
`;

/** An import specifier for \`target\` from a module in \`fromDir\` (NodeNext: a .ts file is imported as .js). */
function importSpecifier(fromDir: string, target: string): string {
  let path = relative(fromDir, target).split("\\").join("/");
  if (!path.startsWith(".")) path = `./${path}`;
  const ext = extname(path);
  if (ext === ".ts" || ext === ".mts") path = `${path.slice(0, -ext.length)}${ext === ".ts" ? ".js" : ".mjs"}`;
  return path;
}

function graphModule(name: string, toolsSpecifier: string, policyFromGraph: string): string {
  return `// Written by \`guarded-graph init\`: serves your tools under your policy file (langgraph.json names this module).
// The audit log is on: the sink your policy names, else GUARDED_GRAPH_AUDIT, else .guarded-graph/audit.jsonl.
// The model: ChatOpenAI from OPENAI_API_KEY / OPENAI_BASE_URL / MODEL, or pass \`model\` (any LangChain chat model).
import { fileURLToPath } from "node:url";
import { servedGraph } from "guarded-graph/platform";
import { tools } from ${JSON.stringify(toolsSpecifier)};

export const graph = servedGraph({
  name: ${JSON.stringify(name)},
  tools,
  policy: fileURLToPath(new URL(${JSON.stringify(policyFromGraph)}, import.meta.url)),
});
`;
}

const AUTH_MODULE = `// Written by \`guarded-graph init\`: every request needs one of GUARDED_GRAPH_API_KEYS (user:key,…) in
// x-api-key or Authorization: Bearer; the health probe GET /ok needs none.
export { auth } from "guarded-graph/auth";
`;

/**
 * \`guarded-graph init\`: a langgraph.json, a graph module serving the user's tools under their policy
 * file, and an auth module, in the project directory. A tools module or policy file that does not
 * exist yet is written as a small starter. Existing files are kept unless --force.
 */
export async function initCommand(argv: string[], output: Output): Promise<number> {
  const { flags, positionals } = parseFlags("init", argv, { tools: { type: "string" }, policy: { type: "string" }, name: { type: "string" }, dir: { type: "string" }, force: { type: "boolean" } }, initFlags);
  if (positionals.length > 0) throw new CliError(`init takes no arguments: ${positionals.join(" ")}\nUsage: guarded-graph ${INIT_USAGE}`, 2);
  const dir = resolve(flags.dir ?? ".");
  const inDir = (file: string): string => (isAbsolute(file) ? file : join(dir, file));
  const toolsFile = inDir(flags.tools ?? "tools.ts");
  const policyFile = inDir(flags.policy ?? "policy.yaml");
  const name = flags.name ?? "agent";
  const graphFile = join(dir, "graph.ts");
  const authFile = join(dir, "auth.ts");
  const configFile = join(dir, "langgraph.json");

  const generated = [configFile, graphFile, authFile];
  const existing = generated.filter((file) => existsSync(file));
  if (existing.length > 0 && flags.force !== true) {
    throw new CliError(`init: ${existing.map((f) => relative(process.cwd(), f) || f).join(", ")} already exist; pass --force to overwrite them`, 1);
  }
  const config = {
    node_version: "20",
    graphs: { [name]: "./graph.ts:graph" },
    auth: { path: "./auth.ts:auth", disable_studio_auth: true },
    dependencies: ["."],
  };
  const written: string[] = [];
  const write = (file: string, text: string): void => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    written.push(relative(process.cwd(), file) || file);
  };
  if (!existsSync(toolsFile)) write(toolsFile, STARTER_TOOLS);
  if (!existsSync(policyFile)) write(policyFile, STARTER_POLICY);
  write(configFile, `${JSON.stringify(config, null, 2)}\n`);
  write(graphFile, graphModule(name, importSpecifier(dir, toolsFile), importSpecifier(dir, policyFile)));
  write(authFile, AUTH_MODULE);

  output.out(`wrote ${written.join(", ")}`);
  output.out(`graph "${name}": the tools exported as \`tools\` from ${relative(dir, toolsFile)}, under ${relative(dir, policyFile)}`);
  output.out("next:");
  output.out(`  npx guarded-graph policy check ${relative(process.cwd(), policyFile) || policyFile}`);
  output.out("  GUARDED_GRAPH_API_KEYS=you:<a key of 16+ characters> npx @langchain/langgraph-cli dev");
  output.out("  npx guarded-graph threads --url http://localhost:2024 --api-key <that key>");
  return 0;
}
