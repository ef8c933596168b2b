import { describe, expect, it } from 'vitest';
import type { Frame } from '../event/event.ts';
import { frameValues } from './frame-values.ts';

// Python frames: no module, so the file name, function and context line contribute as they are.
const python = (frame: Frame) => frameValues({ function: 'handler', ...frame }, 'python');

describe('the file name a frame contributes', () => {
  it.each([
    ['app/views.py', 'views.py'],
    ['C:\\app\\Views.py', 'views.py'],
    ['C:\\app/mixed\\deep/Views.py', 'views.py'],
    ['views.py', 'views.py'],
  ])('%s gives %s', (filename, basename) => {
    expect(python({ filename })?.[0]).toBe(basename);
  });

  it('a file name ending in a separator contributes nothing', () => {
    expect(python({ filename: 'app/' })).toEqual(['handler']);
  });
});

describe('the context line a frame contributes', () => {
  it.each([
    ['  return order.items[0]  ', 'return order.items[0]'],
    ['return\torder.items[0]', 'return order.items[0]'],
    ['return   order. \t items[0]', 'return order. items[0]'],
    ['return order.items[0]\u00a0+\u00a01', 'return order.items[0] + 1'],
    ['return order.items[0]', 'return order.items[0]'],
  ])('%j is collapsed to %j', (context_line, collapsed) => {
    expect(python({ context_line })).toEqual(['handler', collapsed]);
  });

  it('a line of more than 120 characters contributes nothing, counted before trimming', () => {
    expect(python({ context_line: `${' '.repeat(100)}x = 1${' '.repeat(16)}` })).toEqual(['handler']);
    expect(python({ context_line: `${' '.repeat(100)}x = 1${' '.repeat(15)}` })).toEqual(['handler', 'x = 1']);
  });

  it('a line of whitespace only contributes nothing', () => {
    expect(python({ context_line: ' \t ' })).toEqual(['handler']);
  });
});
