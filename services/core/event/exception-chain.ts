// An event's exceptions as a tree, outermost first (get_issue_context): SDKs send the chain as
// a flat list, innermost cause first and the exception that was raised last. Newer SDKs link
// the list with mechanism.exception_id/parent_id (a cause, or the members of an exception
// group, name their parent); older ones rely on the order alone, each value the cause of the next.
import type { ExceptionValue } from './event.ts';

export interface ExceptionNode {
  exception: ExceptionValue;
  /** Its cause (one), or the members of an exception group (several). */
  children: ExceptionNode[];
}

/** The roots of the chain, outermost first; usually one. */
export function exceptionTree(values: ExceptionValue[]): ExceptionNode[] {
  const linked =
    values.length > 1 &&
    values.every((v) => v.mechanism?.exception_id !== undefined) &&
    new Set(values.map((v) => v.mechanism!.exception_id)).size === values.length;
  if (!linked) return byPosition(values);
  const nodes = new Map(values.map((v) => [v.mechanism!.exception_id!, { exception: v, children: [] } as ExceptionNode]));
  const roots: ExceptionNode[] = [];
  for (const value of values) {
    const node = nodes.get(value.mechanism!.exception_id!)!;
    const parentId = value.mechanism!.parent_id;
    const parent = parentId === undefined || parentId === value.mechanism!.exception_id ? undefined : nodes.get(parentId);
    (parent ? parent.children : roots).push(node);
  }
  // Parent ids in a cycle leave some values out of every tree: then the order the SDK sent decides.
  if (reachable(roots) !== values.length) return byPosition(values);
  // Roots and group members in ascending exception_id: the outermost (0) first.
  const byId = (a: ExceptionNode, b: ExceptionNode) =>
    a.exception.mechanism!.exception_id! - b.exception.mechanism!.exception_id!;
  for (const node of nodes.values()) node.children.sort(byId);
  return roots.sort(byId);
}

/** The last value is the outermost, each earlier one the cause of the next. */
function byPosition(values: ExceptionValue[]): ExceptionNode[] {
  let node: ExceptionNode | undefined;
  for (const exception of values) node = { exception, children: node ? [node] : [] };
  return node ? [node] : [];
}

function reachable(nodes: ExceptionNode[]): number {
  return nodes.reduce((sum, node) => sum + 1 + reachable(node.children), 0);
}
