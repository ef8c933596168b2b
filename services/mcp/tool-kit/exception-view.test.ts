import { describe, expect, it } from 'vitest';
import type { ExceptionValue, Frame, NormalizedEvent } from '../../core/event/event.ts';
import { eventStackView, exceptionsView, withoutTitleValue } from './exception-view.ts';

const LIMITS = { stackLines: 4, contextLines: 1, lineLength: 20, nesting: 2 };
const frame = (fn: string, lineno: number): Frame => ({ filename: `/srv/app/src/${fn}.ts`, function: fn, lineno, in_app: true });
const event = (values: ExceptionValue[], extra: Partial<NormalizedEvent> = {}) =>
  ({ exception: { values }, ...extra }) as NormalizedEvent;
const chained = (type: string, id: number, parent?: number): ExceptionValue => ({
  type,
  value: `${type} happened`,
  mechanism: {
    type: id === 0 ? 'onunhandledrejection' : 'chained',
    handled: false,
    exception_id: id,
    ...(parent !== undefined && { parent_id: parent }),
  },
  stacktrace: { frames: [frame(type.toLowerCase(), id + 1)] },
});

describe('exceptionsView', () => {
  it('nests causes under the outermost exception, says how many were cut past the nesting limit, and names the mechanism once', () => {
    const values = [chained('E', 4, 3), chained('D', 3, 2), chained('C', 2, 1), chained('B', 1, 0), chained('A', 0)];
    const [a] = exceptionsView(event(values), LIMITS);
    expect(a).toMatchObject({ type: 'A', mechanism: { type: 'onunhandledrejection', handled: false } });
    expect(a!.cause).toMatchObject({ type: 'B', cause: { type: 'C', cause: '[truncated 2 more nested exceptions]' } });
    expect(a!.cause).not.toHaveProperty('mechanism');
    // Paths are relative to the directory every in-app frame of the event shares.
    expect(a!.crashFrame).toEqual({ file: 'a.ts', line: 1, function: 'a' });
  });

  it("lists an exception group's members under it", () => {
    const [group] = exceptionsView(event([chained('Second', 2, 0), chained('First', 1, 0), chained('Group', 0)]), LIMITS);
    expect(group!.group!.map((member) => (typeof member === 'string' ? member : member.type))).toEqual(['First', 'Second']);
  });

  it('keeps the newest stack lines with a note, and cuts a long exception value', () => {
    const frames = Array.from({ length: 6 }, (_, i) => frame(`f${i}`, i + 1));
    const [only] = exceptionsView(event([{ type: 'Error', value: 'x'.repeat(30), stacktrace: { frames } }]), LIMITS);
    expect(only!.value).toBe(`${'x'.repeat(20)}…[truncated 10 characters]`);
    expect(only!.stack).toEqual(['[truncated 3 older stack lines]', 'f3.ts:4 in f3', 'f4.ts:5 in f4', '[crash frame]']);
  });
});

describe('eventStackView', () => {
  it('summarizes a stack trace sent without an exception, and is null without one', () => {
    expect(eventStackView(event([], { stacktrace: { frames: [frame('log', 3)] } }), LIMITS)).toEqual({
      crashFrame: { file: 'log.ts', line: 3, function: 'log' },
      stack: ['[crash frame]'],
    });
    expect(eventStackView(event([]), LIMITS)).toBeNull();
  });
});

describe('withoutTitleValue', () => {
  const outer = { type: 'TypeError', value: 'cart 204 has no total' };
  const cause = { type: 'Error', value: 'TypeError: cart 204 has no total' };

  it("leaves out the outermost exception's value when the title reads type: value, and only that one", () => {
    expect(withoutTitleValue([outer, cause], 'TypeError: cart 204 has no total')).toEqual([{ type: 'TypeError' }, cause]);
  });

  it('keeps the value when it says something the title does not: a later event with another message', () => {
    expect(withoutTitleValue([outer], 'TypeError: cart 17 has no total')).toEqual([outer]);
    expect(withoutTitleValue([{ value: 'no type' }], 'undefined: no type')).toEqual([{ value: 'no type' }]);
  });

  it("leaves out an untyped exception's value (a message sent with a stack trace) when it is the title", () => {
    expect(withoutTitleValue([{ value: 'slow response: 311 ms' }], 'slow response: 311 ms')).toEqual([{}]);
  });
});
