import { describe, expect, it } from 'vitest';
import type { ExceptionValue } from './event.ts';
import { exceptionTree, type ExceptionNode } from './exception-chain.ts';

/** The tree as nested type names: `Outer(Cause(Root))`. */
function shape(nodes: ExceptionNode[]): string {
  return nodes.map((n) => `${n.exception.type}${n.children.length ? `(${shape(n.children)})` : ''}`).join(', ');
}
const linked = (type: string, id: number, parent?: number): ExceptionValue => ({
  type,
  mechanism: { type: id === 0 ? 'generic' : 'chained', exception_id: id, ...(parent !== undefined && { parent_id: parent }) },
});

describe('exceptionTree', () => {
  it('puts the outermost exception first and nests its causes, by the mechanism ids SDKs link them with', () => {
    // As @sentry/node sends `new Error('Checkout failed', { cause })`: the cause first.
    expect(shape(exceptionTree([linked('TypeError', 1, 0), linked('Error', 0)]))).toBe('Error(TypeError)');
    expect(shape(exceptionTree([linked('C', 2, 1), linked('B', 1, 0), linked('A', 0)]))).toBe('A(B(C))');
  });

  it('nests by position when the SDK sent no ids: each value the cause of the next', () => {
    expect(shape(exceptionTree([{ type: 'C' }, { type: 'B' }, { type: 'A' }]))).toBe('A(B(C))');
    expect(shape(exceptionTree([{ type: 'Only' }]))).toBe('Only');
    expect(exceptionTree([])).toEqual([]);
  });

  it("gives an exception group's members under the group, in id order", () => {
    const values = [linked('Second', 2, 0), linked('First', 1, 0), linked('Group', 0)];
    expect(shape(exceptionTree(values))).toBe('Group(First, Second)');
  });

  it('falls back to the order sent when the ids repeat or form a cycle, so no exception is lost', () => {
    expect(shape(exceptionTree([linked('B', 1, 2), linked('C', 2, 1), linked('A', 0)]))).toBe('A(C(B))');
    expect(shape(exceptionTree([linked('B', 0), linked('A', 0)]))).toBe('A(B)');
  });
});
