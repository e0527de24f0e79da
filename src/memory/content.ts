import { applyPatch, parsePatch } from "diff";
import { MemoryError } from "./errors.js";
import type { Block, BlockContent, BlockEdit, BlockSchema, CompositeField, JsonValue } from "./types.js";

/** The content a fresh block of `schema` starts with. */
export function emptyContent(schema: BlockSchema): BlockContent {
  switch (schema.kind) {
    case "text":
      return "";
    case "list":
      return [];
    case "map":
      return {};
    case "composite":
      return Object.fromEntries(schema.fields.map((f) => [f.name, emptyFieldValue(f)]));
  }
}

function emptyFieldValue(field: CompositeField): JsonValue {
  return field.kind === "text" ? "" : field.kind === "list" ? [] : {};
}

function fieldValueMatches(field: CompositeField, value: JsonValue): boolean {
  if (field.kind === "text") return typeof value === "string";
  if (field.kind === "list") return Array.isArray(value) && value.every((v) => typeof v === "string");
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Throws unless `content` has the shape `schema` declares. */
export function assertContentMatches(label: string, schema: BlockSchema, content: BlockContent): void {
  const fail = (expected: string) => {
    throw new MemoryError(`block "${label}" is ${schema.kind}: its content must be ${expected}`, `schema:${schema.kind}`);
  };
  switch (schema.kind) {
    case "text":
      if (typeof content !== "string") fail("a string");
      return;
    case "list":
      if (!Array.isArray(content)) fail("a list of strings");
      return;
    case "map":
    case "composite":
      if (typeof content !== "object" || Array.isArray(content)) fail("an object");
      if (schema.kind === "composite") {
        for (const field of schema.fields) {
          const value = (content as Record<string, JsonValue>)[field.name];
          if (value !== undefined && !fieldValueMatches(field, value)) fail(`an object whose field "${field.name}" is ${field.kind}`);
        }
      }
  }
}

const SCHEMAS_FOR: Record<BlockEdit["kind"], readonly BlockSchema["kind"][]> = {
  append: ["text", "list"],
  replace: ["text"],
  patch: ["text"],
  set_field: ["map", "composite"],
};

/** Which edit operations a schema accepts (seed 002's compatibility table). */
function editsFor(schema: BlockSchema): BlockEdit["kind"][] {
  return (Object.keys(SCHEMAS_FOR) as BlockEdit["kind"][]).filter((k) => SCHEMAS_FOR[k].includes(schema.kind));
}

/** Whether `field` of the block is read-only. */
function isReadOnlyField(schema: BlockSchema, field: string): boolean {
  if (schema.kind === "map") return schema.readOnlyKeys?.includes(field) ?? false;
  if (schema.kind === "composite") return schema.fields.find((f) => f.name === field)?.readOnly ?? false;
  return false;
}

/** Exactly one occurrence, so a replace never changes more than the model saw. */
export function replaceOnce(where: string, text: string, old: string, replacement: string): string {
  if (old.length === 0) throw new MemoryError(`replace refused on ${where}: "old" is empty`, "replace:empty");
  const first = text.indexOf(old);
  if (first < 0) throw new MemoryError(`replace refused on ${where}: the text to replace was not found`, "replace:not-found");
  if (text.indexOf(old, first + 1) >= 0) {
    throw new MemoryError(
      `replace refused on ${where}: the text to replace occurs more than once; include more context so it is unique`,
      "replace:ambiguous",
    );
  }
  return text.slice(0, first) + replacement + text.slice(first + old.length);
}

/** Applies a unified diff; throws naming the problem when it does not apply. */
function applyUnifiedDiff(where: string, text: string, patch: string): string {
  let result: string | false;
  try {
    const files = parsePatch(patch);
    if (files.length !== 1) throw new Error(`it describes ${files.length} files; give a diff of this block only`);
    const hunks = files[0]?.hunks ?? [];
    if (hunks.length === 0) throw new Error("it has no @@ hunks");
    if (hunks.some((h) => typeof h.oldStart !== "number" || Number.isNaN(h.oldStart) || h.lines.length === 0)) {
      throw new Error('a hunk header is malformed; use "@@ -start,count +start,count @@" followed by its lines');
    }
    result = applyPatch(text, patch);
  } catch (error) {
    throw new MemoryError(`patch refused on ${where}: not a valid unified diff (${(error as Error).message})`, "patch:invalid");
  }
  if (result === false) {
    throw new MemoryError(
      `patch refused on ${where}: its context lines do not match the current content; load the block again and rebuild the diff`,
      "patch:does-not-apply",
    );
  }
  return result;
}

/**
 * The content after `edit`, checked against the schema and read-only fields (admins may set read-only
 * fields). Permission levels are checked by the caller.
 */
export function applyEdit(block: Block, edit: BlockEdit): BlockContent {
  const where = `block "${block.label}"`;
  if (!SCHEMAS_FOR[edit.kind].includes(block.schema.kind)) {
    throw new MemoryError(
      `${edit.kind} refused on ${where}: its schema is ${block.schema.kind}, which accepts ${editsFor(block.schema).join(", ")}`,
      `schema:${block.schema.kind}`,
    );
  }
  const content = block.content;
  switch (edit.kind) {
    case "append":
      if (Array.isArray(content)) return [...content, edit.content];
      return typeof content === "string" && content.length > 0 ? `${content}\n${edit.content}` : edit.content;
    case "replace":
      return replaceOnce(where, content as string, edit.old, edit.new);
    case "patch":
      return applyUnifiedDiff(where, content as string, edit.patch);
    case "set_field":
      return setField(block, edit.field, edit.value);
  }
}

function setField(block: Block, field: string, value: JsonValue): BlockContent {
  const where = `block "${block.label}"`;
  if (isReadOnlyField(block.schema, field) && block.permission !== "admin") {
    throw new MemoryError(
      `set_field refused on ${where}: field "${field}" is read_only (only admin permission may change it)`,
      "schema:read-only-field",
    );
  }
  if (block.schema.kind === "composite") {
    const declared = block.schema.fields.find((f) => f.name === field);
    if (!declared) {
      throw new MemoryError(
        `set_field refused on ${where}: no field "${field}"; its fields are ${block.schema.fields.map((f) => f.name).join(", ")}`,
        "schema:unknown-field",
      );
    }
    if (!fieldValueMatches(declared, value)) {
      throw new MemoryError(`set_field refused on ${where}: field "${field}" is ${declared.kind}`, "schema:field-kind");
    }
  }
  return { ...(block.content as Record<string, JsonValue>), [field]: value };
}

/** Size in characters of the rendered content. */
export function renderContent(content: BlockContent): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((item) => `- ${item}`).join("\n");
  return JSON.stringify(content, null, 2);
}
