import { z } from "zod";
import type { FilePermission } from "./file-rules.js";
import { defineTool } from "../tools/define-tool.js";

const filePath = z.string().min(1).describe("Path relative to the source's base directory");

const fileInputSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("load"), path: filePath }).describe("Read a file into a Working block"),
  z
    .object({
      op: z.literal("save"),
      path: filePath.optional(),
      label: z.string().min(1).optional().describe("Block label (file:{hash8}:{path}) instead of path"),
    })
    .describe("Write the block back to disk; refuses if the file changed since load"),
  z.object({ op: z.literal("create"), path: filePath, content: z.string().optional() }).describe("Create a new file and its block"),
  z.object({ op: z.literal("delete"), path: filePath }).describe("Delete a file and its block"),
  z.object({ op: z.literal("append"), path: filePath, content: z.string().min(1) }).describe("Append to a loaded file's block"),
  z
    .object({ op: z.literal("replace"), path: filePath, old: z.string().min(1), new: z.string() })
    .describe("Replace unique text in a loaded file's block"),
]);
type FileInput = z.infer<typeof fileInputSchema>;

/** An operation of the `file` tool. */
export type FileOperation = "load" | "save" | "create" | "delete" | "append" | "replace";

/** What a file operation returns to the model. */
export interface FileResult {
  path: string;
  label: string;
  permission: FilePermission;
  message: string;
  content?: string;
}

/** What the `file` tool calls on its source (a FileSource is one). */
export interface FileToolSource {
  readonly id: string;
  pathOfLabel(label: string): string | undefined;
  consentFor(operation: FileOperation, inputPath: string): string | undefined;
  load(inputPath: string): Promise<FileResult>;
  save(reference: { path?: string | undefined; label?: string | undefined }): Promise<FileResult>;
  create(inputPath: string, content?: string): Promise<FileResult>;
  delete(inputPath: string): Promise<FileResult>;
  append(inputPath: string, content: string): Promise<FileResult>;
  replace(inputPath: string, old: string, replacement: string): Promise<FileResult>;
}

const FILE_USAGE_RULE =
  "file works on files of a FileSource: load a file into a block, edit it (append, replace), then save to write it to disk. save refuses when the file changed on disk since load: load it again. create makes a new file; delete removes one and usually asks a human first. The conversation continues after it.";

function pathOf(input: FileInput): string | undefined {
  return input.op === "save" ? (input.path ?? undefined) : input.path;
}

/** The `file` tool of one FileSource. */
export function createFileTool(options: { source: FileToolSource; name?: string }) {
  const { source } = options;
  return defineTool({
    name: options.name ?? "file",
    description: `Files under ${source.id}: load, save, create, delete, append, replace.`,
    schema: fileInputSchema,
    usageRule: FILE_USAGE_RULE,
    risk: "medium",
    operationRisk: { load: "low", append: "low", replace: "low", delete: "high" },
    requiresApproval: (input) => {
      const target = input.op === "save" && input.path === undefined && input.label ? source.pathOfLabel(input.label) : pathOf(input);
      return target === undefined ? undefined : source.consentFor(input.op, target);
    },
    execute: async (input) => {
      switch (input.op) {
        case "load":
          return source.load(input.path);
        case "save":
          return source.save({ path: input.path, label: input.label });
        case "create":
          return source.create(input.path, input.content ?? "");
        case "delete":
          return source.delete(input.path);
        case "append":
          return source.append(input.path, input.content);
        case "replace":
          return source.replace(input.path, input.old, input.new);
      }
    },
  });
}
