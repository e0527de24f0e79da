import type { NormalisedRule } from "./normalize.js";
import { WILDCARD } from "./normalize.js";

/** One "must have run before" edge of the dependency graph, with the rule that creates it. */
interface DependencyEdge {
  before: string;
  after: string;
  ruleId: string;
}

/** Edges from MustFollow (conditions → tool) and MustPrecede (tool → conditions). Wildcard subjects are skipped. */
export function dependencyEdges(rules: readonly NormalisedRule[]): DependencyEdge[] {
  const edges: DependencyEdge[] = [];
  for (const rule of rules) {
    if (rule.tool === WILDCARD) continue;
    if (rule.type === "MustFollow") {
      for (const c of rule.conditions) edges.push({ before: c, after: rule.tool, ruleId: rule.id });
    } else if (rule.type === "MustPrecede") {
      for (const c of rule.conditions) edges.push({ before: rule.tool, after: c, ruleId: rule.id });
    }
  }
  return edges;
}

/** tool → tools that must have run before it (deduplicated, first-seen order). */
export function dependencyMap(edges: readonly DependencyEdge[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const { before, after } of edges) {
    const list = map.get(after) ?? [];
    if (!list.includes(before)) list.push(before);
    map.set(after, list);
  }
  return map;
}

/** Every cycle's tools, as a closed path (`[a, b, a]`), one per strongly connected component. */
export function findCycles(edges: readonly DependencyEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { before, after } of edges) {
    const list = next.get(before) ?? [];
    if (!list.includes(after)) list.push(after);
    next.set(before, list);
  }
  // Tarjan's strongly connected components.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component);
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);

  const cycles: string[][] = [];
  for (const component of components) {
    const start = component[component.length - 1]!;
    const selfLoop = (next.get(start) ?? []).includes(start);
    if (component.length === 1 && !selfLoop) continue;
    if (component.length === 1) {
      cycles.push([start, start]);
      continue;
    }
    cycles.push(pathBack(start, new Set(component), next));
  }
  return cycles;
}

/** A path from `start` back to itself inside one strongly connected component (breadth-first, shortest). */
function pathBack(start: string, members: ReadonlySet<string>, next: ReadonlyMap<string, string[]>): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const to of next.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = parent.get(at)) path.splice(1, 0, at);
        path.push(start);
        return path;
      }
      if (!parent.has(to) && to !== start) {
        parent.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}
