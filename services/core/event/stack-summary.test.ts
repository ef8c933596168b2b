import { describe, expect, it } from 'vitest';
import type { Frame } from './event.ts';
import { isInApp, libraryOf, summarizeStack } from './stack-summary.ts';

const LIMITS = { contextLines: 3, lineLength: 200 };
const asGiven = (frame: Frame) => frame.filename ?? '';
const app = (fn: string, lineno: number, extra: Partial<Frame> = {}): Frame => ({
  filename: 'src/server.ts',
  function: fn,
  lineno,
  in_app: true,
  ...extra,
});
const lib = (filename: string, fn = 'run'): Frame => ({ filename, function: fn, lineno: 1, in_app: false });

describe('summarizeStack', () => {
  it('keeps the crash frame whole, other in-app frames as one line, and each library run as one line naming its packages', () => {
    const frames = [
      lib('/srv/node_modules/express/lib/router/index.js', 'handle'),
      lib('/srv/node_modules/express/lib/router/layer.js', 'next'),
      app('route', 10),
      app('charge', 20, {
        colno: 7,
        pre_context: ['a', 'b', 'c', 'd'],
        context_line: '  throw new Error("declined");',
        post_context: ['e', 'f', 'g', 'h'],
      }),
      ...Array.from({ length: 4 }, () => lib('/srv/node_modules/@sentry/core/build/cjs/tracing/trace.js', 'wrap')),
      ...Array.from({ length: 3 }, () => lib('node:async_hooks', 'emitInit')),
    ];
    expect(summarizeStack(frames, asGiven, LIMITS)).toEqual({
      crashFrame: {
        file: 'src/server.ts',
        line: 20,
        column: 7,
        function: 'charge',
        context: { '17': 'b', '18': 'c', '19': 'd', '20': '  throw new Error("declined");', '21': 'e', '22': 'f', '23': 'g' },
      },
      lines: [
        '2 library frames: express',
        'src/server.ts:10 in route',
        '[crash frame]',
        '7 library frames: @sentry/core, node:async_hooks',
      ],
    });
  });

  it('names three packages of a run and counts the rest', () => {
    const frames = [
      lib('node_modules/a/i.js'),
      lib('node_modules/b/i.js'),
      lib('node_modules/c/i.js'),
      lib('node_modules/d/i.js'),
      lib('node_modules/a/j.js'),
      app('main', 1),
    ];
    expect(summarizeStack(frames, asGiven, LIMITS).lines[0]).toBe('5 library frames: a, b, c and 1 more');
  });

  it('makes the newest frame the crash frame when no frame is in-app, and summarizes the others', () => {
    const frames = [lib('node:internal/timers', 'listOnTimeout'), lib('node_modules/pg/lib/client.js', 'query')];
    const summary = summarizeStack(frames, asGiven, LIMITS);
    expect(summary.crashFrame).toEqual({ file: 'node_modules/pg/lib/client.js', line: 1, function: 'query' });
    expect(summary.lines).toEqual(['1 library frame: node:internal', '[crash frame]']);
  });

  it('folds recursion into one line with a count, and gives an empty stack no crash frame', () => {
    const frames = [app('walk', 5), app('walk', 5), app('walk', 5), app('visit', 9)];
    expect(summarizeStack(frames, asGiven, LIMITS).lines).toEqual([
      'src/server.ts:5 in walk (3 times in a row)',
      '[crash frame]',
    ]);
    expect(summarizeStack([], asGiven, LIMITS)).toEqual({ crashFrame: null, lines: [] });
  });

  it('cuts long source lines, and lists the context in order when the SDK sent no line number', () => {
    const frame: Frame = { filename: 'x.py', in_app: true, pre_context: ['p'], context_line: 'y'.repeat(30), post_context: [] };
    const summary = summarizeStack([frame], asGiven, { contextLines: 3, lineLength: 10 });
    expect(summary.crashFrame).toEqual({ file: 'x.py', context: ['p', 'yyyyyyyyyy…[20 more characters]'] });
    expect(summary.lines).toEqual(['[crash frame]']);
  });
});

describe('isInApp and libraryOf', () => {
  it('follows the SDK when it says, else treats package directories and runtime builtins as libraries', () => {
    expect(isInApp({ filename: 'node_modules/x/i.js', in_app: true })).toBe(true);
    expect(isInApp({ filename: 'src/a.ts', in_app: false })).toBe(false);
    expect(isInApp({ filename: 'src/a.ts' })).toBe(true);
    expect(isInApp({ abs_path: '/srv/app/node_modules/x/i.js' })).toBe(false);
    expect(isInApp({ filename: 'node:internal/process/task_queues' })).toBe(false);
    expect(isInApp({ abs_path: '/usr/lib/python3.11/site-packages/django/core/handlers/base.py' })).toBe(false);
  });

  it('names the package of a library frame', () => {
    expect(libraryOf({ filename: '/a/node_modules/x/node_modules/@scope/pkg/dist/i.js' })).toBe('@scope/pkg');
    expect(libraryOf({ filename: 'webpack://app/./node_modules/react-dom/cjs/react-dom.js' })).toBe('react-dom');
    expect(libraryOf({ filename: 'node:internal/modules/cjs/loader' })).toBe('node:internal');
    expect(libraryOf({ filename: 'node:async_hooks' })).toBe('node:async_hooks');
    expect(
      libraryOf({ filename: 'django/core/handlers/base.py', abs_path: '/venv/lib/site-packages/django/core/handlers/base.py' }),
    ).toBe('django');
    expect(libraryOf({ abs_path: '/venv/lib/python3.11/site-packages/six.py' })).toBe('six');
    expect(libraryOf({ package: '/usr/lib/libc.so.6', filename: '' })).toBe('libc.so.6');
    expect(libraryOf({ module: 'net/http', filename: '/usr/local/go/src/net/http/server.go' })).toBe('net');
    expect(libraryOf({})).toBe('?');
  });
});
