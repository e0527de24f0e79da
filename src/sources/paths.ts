import { realpath } from "node:fs/promises";
import { memoryMessages } from "../messages/memory.js";
import path from "node:path";
import { MemoryError } from "../memory/errors.js";

/**
 * The normalised relative path (forward slashes) of a path the model gave, checked without touching
 * the disk: no NUL bytes, not absolute, no backslashes or drive letters, and no `..` segment at all.
 */
export function checkRelativePath(input: string, sourceId: string): string {
  const refuse = (why: string, rule: string): never => {
    throw new MemoryError(memoryMessages.badPath(input, sourceId, why), `file-source:${rule}`);
  };
  if (input.length === 0) refuse("it is empty", "empty-path");
  if (input.includes("\u0000")) refuse("it contains a NUL byte", "nul-byte");
  if (input.length > 4096) refuse("it is longer than 4096 characters", "path-too-long");
  if (input.includes("\\")) refuse("it contains a backslash", "backslash");
  if (path.posix.isAbsolute(input) || /^[A-Za-z]:/.test(input)) refuse("it is absolute", "absolute-path");
  const segments = input.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) refuse("it contains a '..' segment", "parent-segment");
  if (segments.length === 0) refuse("it names the base directory itself", "base-directory");
  return segments.join("/");
}

function isInside(realBase: string, candidate: string): boolean {
  return candidate === realBase || candidate.startsWith(realBase + path.sep);
}

async function realpathOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await realpath(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Where `relative` really is: the realpath of the target when it exists, else the realpath of its
 * deepest existing ancestor plus the rest. Refuses when a symlink leads outside `realBase`.
 */
export async function resolveInside(realBase: string, relative: string, sourceId: string): Promise<{ real: string; exists: boolean }> {
  const segments = relative.split("/");
  for (let depth = segments.length; depth >= 0; depth -= 1) {
    const candidate = path.join(realBase, ...segments.slice(0, depth));
    const real = await realpathOrUndefined(candidate);
    if (real === undefined) continue;
    if (!isInside(realBase, real)) {
      throw new MemoryError(memoryMessages.symlinkEscape(relative, sourceId), "file-source:symlink-escape");
    }
    return { real: path.join(real, ...segments.slice(depth)), exists: depth === segments.length };
  }
  throw new MemoryError(memoryMessages.baseMissing(sourceId), "file-source:base-missing");
}

/** The path of `real` relative to the base, with forward slashes. */
export function relativeToBase(realBase: string, real: string): string {
  return path.relative(realBase, real).split(path.sep).join("/");
}
