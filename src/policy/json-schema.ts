import { writeFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { PolicyFileSchema } from "./schema.js";

/** Where the published schema lives, relative to the package root. */
const POLICY_SCHEMA_PATH = "policies/policy.schema.json";

/** JSON Schema (draft 2020-12) of the policy file format, for editor completion and validation. */
function policyJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PolicyFileSchema, { io: "input", target: "draft-2020-12", unrepresentable: "any" });
  return {
    ...schema,
    $id: "https://github.com/guarded-graph/guarded-graph/policies/policy.schema.json",
    title: "guarded-graph policy",
  };
}

/** The schema file's exact text (two-space JSON plus a newline). */
export function policyJsonSchemaText(): string {
  return `${JSON.stringify(policyJsonSchema(), null, 2)}\n`;
}

// `npx tsx src/policy/json-schema.ts --write` regenerates policies/policy.schema.json.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const text = policyJsonSchemaText();
  if (process.argv.includes("--write")) {
    await writeFile(POLICY_SCHEMA_PATH, text);
    console.log(`wrote ${POLICY_SCHEMA_PATH}`);
  } else {
    process.stdout.write(text);
  }
}
