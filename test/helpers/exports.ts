// Lists the names a built entry point exports (values and types), following `export *` chains
// through the emitted .d.ts files. Usage: npx tsx test/helpers/exports.ts dist/src/index.d.ts
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";

function dtsOf(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""));
  for (const candidate of [`${base}.d.ts`, `${base}/index.d.ts`]) if (existsSync(candidate)) return candidate;
  throw new Error(`cannot resolve ${specifier} from ${from}`);
}

/** Exported names of a .d.ts file (sorted, unique). */
export function exportedNames(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const names = new Set<string>();
  for (const m of text.matchAll(/^export (?:type )?\* from "([^"]+)";/gm)) {
    for (const name of exportedNames(dtsOf(file, m[1] ?? ""), seen)) names.add(name);
  }
  for (const m of text.matchAll(/^export (?:type )?\* as (\w+) from/gm)) names.add(m[1] ?? "");
  for (const m of text.matchAll(/^export (?:type )?\{([^}]*)\}/gm)) {
    for (const part of (m[1] ?? "").split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()?.trim();
      if (name) names.add(name);
    }
  }
  for (const m of text.matchAll(/^export (?:declare )?(?:abstract )?(?:async )?(?:function|class|const|let|var|interface|type|enum|namespace) (\w+)/gm)) {
    names.add(m[1] ?? "");
  }
  return [...names].sort();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const file of process.argv.slice(2)) {
    const names = exportedNames(resolve(file));
    console.log(`${file}: ${names.length}`);
    if (process.argv.includes("--list")) console.log(names.join("\n"));
  }
}
