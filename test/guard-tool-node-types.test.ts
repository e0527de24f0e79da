// GuardedToolNode's build-time check: a graph whose state lacks the guard's channels fails to
// compile where `guardedToolsRoute` is added, and the error names what to add. LangGraph's addNode
// infers a node's input type from the node itself (not from the graph's state) and compile() gives a
// node no view of the graph, so the route's parameter type is where the state can be checked.
// A graph that routes another way still meets the first-run check (test/guard-tool-node.test.ts).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = process.cwd();
const dir = mkdtempSync(join(root, ".typecheck-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Type errors of one file checked with the project's compiler options, by line. */
function typeErrors(source: string): Map<number, string> {
  writeFileSync(join(dir, "fixture.ts"), source);
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../tsconfig.json", include: ["fixture.ts"] }));
  let output = "";
  try {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json"), "--noEmit", "--pretty", "false"], {
      encoding: "utf8",
    });
  } catch (error) {
    output = String((error as { stdout?: unknown }).stdout ?? "");
  }
  const errors = new Map<number, string>();
  // One diagnostic: "file(line,col): error TSnnnn: message" and its indented continuation lines.
  for (const m of output.matchAll(/^(\S+?)\((\d+),\d+\): error (TS\d+: [\s\S]*?)(?=^\S|$(?![\s\S]))/gm)) {
    const [, file, line, message] = m;
    expect(file, `errors only in the fixture, got: ${output}`).toMatch(/fixture\.ts$/);
    errors.set(Number(line), message ?? "");
  }
  return errors;
}

const fixture = `import { Annotation, END, MessagesAnnotation, MessagesValue, START, StateGraph, StateSchema } from "@langchain/langgraph";
import { GuardAnnotation, GuardedToolNode, guardedToolsRoute } from "guarded-graph";
declare const tools: GuardedToolNode;
const agent = async () => ({});
const WithGuard = Annotation.Root({ ...MessagesAnnotation.spec, ...GuardAnnotation.spec });
new StateGraph(WithGuard).addNode("agent", agent).addNode("tools", tools).addEdge(START, "agent").addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END]);
new StateGraph(MessagesAnnotation).addNode("agent", agent).addNode("tools", tools).addEdge(START, "agent").addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END]);
const Own = Annotation.Root({ ...MessagesAnnotation.spec, step: Annotation<number>() });
new StateGraph(Own).addNode("agent", agent).addNode("tools", tools).addEdge(START, "agent").addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END]);
const Schema = new StateSchema({ messages: MessagesValue });
new StateGraph(Schema).addNode("agent", agent).addNode("tools", tools).addEdge(START, "agent").addConditionalEdges("tools", guardedToolsRoute("agent"), ["agent", END]);
new StateGraph(MessagesAnnotation).addNode("agent", agent).addNode("tools", tools).addEdge(START, "agent").addEdge("tools", "agent");
`;

describe("GuardedToolNode: the state's guard channels are checked when the graph is built", () => {
  it("a state without `...GuardAnnotation.spec` fails to compile at guardedToolsRoute, naming the missing channel and what to add", () => {
    const errors = typeErrors(fixture);
    // Lines 7, 9 and 11: MessagesAnnotation, an own Annotation.Root and a StateSchema without the channels.
    expect([...errors.keys()].sort((a, b) => a - b)).toEqual([7, 9, 11]);
    for (const message of errors.values()) {
      expect(message).toMatch(/^TS2345: /);
      expect(message).toContain("Property 'guard' is missing");
      expect(message).toContain("required in type 'StateWithGuardAnnotationSpec'");
    }
  }, 120_000);

  it("the same graphs with the guard's channels compile", () => {
    const withChannels = fixture
      .replace("new StateGraph(MessagesAnnotation)", "new StateGraph(WithGuard)")
      .replace("step: Annotation<number>() }", "step: Annotation<number>(), ...GuardAnnotation.spec }");
    const errors = typeErrors(withChannels);
    expect([...errors.keys()]).toEqual([11]); // the StateSchema graph still lacks the channels
  }, 120_000);
});
