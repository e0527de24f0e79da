import { z } from "zod";
import { defineTool } from "../../src/tools/index.js";
import type { GuardedTool } from "../../src/tools/types.js";
import type { ToolDescription } from "./data.js";

type Json = Record<string, unknown>;

/** A zod schema from the small JSON Schema subset AgentDojo's tools use (types, arrays, nullable, enums, $ref). */
function zodOf(schema: Json, defs: Record<string, Json>): z.ZodType {
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const target = defs[ref.replace("#/$defs/", "")];
    if (!target) throw new Error(`unknown $ref ${ref}`);
    return zodOf(target, defs);
  }
  if (Array.isArray(schema.anyOf)) {
    const options = (schema.anyOf as Json[]).filter((option) => option.type !== "null");
    const nullable = options.length < (schema.anyOf as Json[]).length;
    const inner = options.length === 1 ? zodOf(options[0]!, defs) : z.unknown();
    return nullable ? inner.nullable() : inner;
  }
  if (Array.isArray(schema.enum)) return z.enum(schema.enum as [string, ...string[]]);
  switch (schema.type) {
    case "string":
      return z.string();
    case "integer":
      return z.number().int();
    case "number":
      return z.number();
    case "boolean":
      return z.boolean();
    case "array":
      return z.array(schema.items ? zodOf(schema.items as Json, defs) : z.unknown());
    case "object":
      return z.record(z.string(), z.unknown());
    default:
      return z.unknown();
  }
}

/** The suite's tools as guard tools. They never run here: the replay returns the recorded output. */
export function suiteTools(descriptions: readonly ToolDescription[]): GuardedTool[] {
  return descriptions.map((description) => {
    const shape: Record<string, z.ZodType> = {};
    for (const param of description.params) {
      const schema = zodOf(param.schema, description.defs);
      shape[param.name] = param.required ? schema : schema.optional();
    }
    return defineTool({
      name: description.name,
      description: description.description || description.name,
      schema: z.object(shape),
      execute: () => {
        throw new Error(`${description.name} is replayed, never executed`);
      },
    }) as GuardedTool;
  });
}
