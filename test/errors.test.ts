import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openAuditSink, MemoryAuditSink, auditId } from "../src/audit/index.js";
import { CliError } from "../src/cli/errors.js";
import {
  AuditError,
  ErrorCode,
  GuardedGraphError,
  MissingDependencyError,
  GuardConfigError,
  ModelError,
  RulesError,
  StorageError,
  ToolDefinitionError,
} from "../src/errors/index.js";
import { importOptional, loadBetterSqlite3, loadPg } from "../src/optional/index.js";
import { MemoryError } from "../src/memory/errors.js";
import { scenarioPath } from "../src/model/create-model.js";
import { parseScenario } from "../src/model/scenario.js";
import { parsePolicy } from "../src/policy/index.js";
import { PolicyError } from "../src/policy/errors.js";
import { parseStorageSpec } from "../src/storage/spec.js";
import { ToolRegistry } from "../src/tools/registry.js";
import { defineTool } from "../src/tools/index.js";
import { z } from "zod";
import { fakeModel } from "@langchain/core/testing";
import { createGuardedAgent } from "../src/guard/agent.js";
import { SqliteStore } from "../src/memory/sqlite-store.js";
import { parseToolRules } from "../src/rules/schema.js";

async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("one error family with stable codes", () => {
  it("docs/errors.md lists exactly the codes of ErrorCode", () => {
    const doc = readFileSync(join(import.meta.dirname, "../docs/errors.md"), "utf8");
    const documented = [...doc.matchAll(/^\| `(GG_ERR_[A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.values(ErrorCode).sort());
  });

  it("codes are unique and follow GG_ERR_<KEY>", () => {
    for (const [key, code] of Object.entries(ErrorCode)) expect(code).toBe(`GG_ERR_${key}`);
  });

  it("storage, audit, model, tool, policy, memory and CLI errors carry their code", async () => {
    const cases: [unknown, ErrorCode, new (...args: never[]) => GuardedGraphError][] = [
      [await thrown(() => parseStorageSpec("mysql://x")), ErrorCode.STORAGE_SPEC, StorageError],
      [await thrown(() => parseStorageSpec("postgres://")), ErrorCode.STORAGE_SPEC, StorageError],
      [await thrown(() => openAuditSink("csv:/tmp/x")), ErrorCode.AUDIT_CONFIG, AuditError],
      [await thrown(() => openAuditSink({ sink: "sqlite", path: "x", table: "1bad" } as never)), ErrorCode.AUDIT_CONFIG, AuditError],
      [await thrown(() => auditId([])), ErrorCode.AUDIT_INVALID, AuditError],
      [
        await thrown(async () => {
          const sink = new MemoryAuditSink();
          await sink.close();
          await sink.write([]);
        }),
        ErrorCode.AUDIT_WRITE,
        AuditError,
      ],
      [await thrown(() => scenarioPath("no such")), ErrorCode.SCENARIO, ModelError],
      [await thrown(() => scenarioPath("no-such-scenario")), ErrorCode.SCENARIO, ModelError],
      [await thrown(() => parseScenario({ turns: 3 }, "test")), ErrorCode.SCENARIO, ModelError],
      [
        await thrown(() => {
          const tool = defineTool({ name: "t", description: "t", schema: z.object({}), execute: () => "ok" });
          new ToolRegistry().register(tool).register(tool);
        }),
        ErrorCode.TOOL_DEFINITION,
        ToolDefinitionError,
      ],
      [await thrown(() => parsePolicy("permissions: 3", "yaml", "p.yaml")), ErrorCode.POLICY, PolicyError],
      [new MemoryError("refused", "permission:read-only"), ErrorCode.MEMORY_REFUSED, MemoryError],
      [await thrown(() => parseToolRules([{ type: "MaxCalls", tool: "x" }])), ErrorCode.RULES, RulesError],
      [await thrown(() => new SqliteStore(":memory:", { table: "1 bad" })), ErrorCode.MEMORY_CONFIG, GuardedGraphError],
      [await thrown(() => createGuardedAgent({ model: fakeModel() } as never)), ErrorCode.GUARD_CONFIG, GuardConfigError],
      [new CliError("bad flag", 2), ErrorCode.CLI_USAGE, CliError],
      [new CliError("refused"), ErrorCode.CLI_FAILED, CliError],
    ];
    for (const [error, code, cls] of cases) {
      expect(error).toBeInstanceOf(GuardedGraphError);
      expect(error).toBeInstanceOf(cls);
      expect((error as GuardedGraphError).code).toBe(code);
      expect((error as Error).name).toBe(cls.name);
    }
  });

  it("the converted areas throw no plain Error or TypeError", () => {
    const root = join(import.meta.dirname, "../src");
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".ts")) {
          readFileSync(path, "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (/throw new (Type|Range)?Error\(/.test(line)) offenders.push(`${path.slice(root.length + 1)}:${i + 1}`);
            });
        }
      }
    };
    for (const area of ["storage", "audit", "model", "tools", "cli", "killswitch", "errors", "rules"]) walk(join(root, area));
    expect(offenders).toEqual([]);
  });
});

describe("optional peer dependencies", () => {
  it("a missing optional package becomes GG_ERR_MISSING_DEPENDENCY naming the package and the feature", async () => {
    const name = "guarded-graph-no-such-package";
    const error = await thrown(() => importOptional(name, "the test feature", () => import(name)));
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect((error as MissingDependencyError).code).toBe(ErrorCode.MISSING_DEPENDENCY);
    expect((error as MissingDependencyError).packageName).toBe(name);
    expect((error as Error).message).toBe(`the test feature needs the optional package "${name}": run npm install ${name}`);
  });

  it("a package that is present but misses one of its own dependencies keeps the original error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gg-optional-"));
    mkdirSync(join(dir, "node_modules", "present"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "present", "package.json"), JSON.stringify({ name: "present", type: "module", main: "index.js" }));
    writeFileSync(join(dir, "node_modules", "present", "index.js"), 'import "absent-dependency";\n');
    const entry = pathToFileURL(join(dir, "node_modules", "present", "index.js")).href;
    const error = await thrown(() => importOptional("present", "the test feature", () => import(entry)));
    expect(error).not.toBeInstanceOf(GuardedGraphError);
    expect((error as Error).message).toMatch(/absent-dependency/);
  });

  it("the installed optional packages load", () => {
    expect(typeof loadBetterSqlite3("x")).toBe("function");
    expect(typeof loadPg("x").Pool).toBe("function");
  });
});
