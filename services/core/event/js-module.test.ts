import { describe, expect, it } from 'vitest';
import { addJavaScriptModules, generateModule } from './js-module.ts';
import { normalizeEvent } from './normalize-event.ts';

describe('generateModule', () => {
  it.each([
    ['http://google.com/js/v1.0/foo/bar/baz.js', 'foo/bar/baz'],
    ['https://x.com/static/js/main.abc12345.js', 'main'],
    ['http://127.0.0.1:9312/app.js', 'app'],
    ['http://example.com/vendor.min.js', 'vendor'],
    ['http://example.com/assets/2fd4e1c67a2d28fced849ee1bb76e7391b93eb12/app/core.js', 'app/core'],
    ['http://example.com/_next/static/chunks/pages/index.js', 'chunks/pages/index'],
    ['http://127.0.0.1:33623/?marker=x', '<unknown module>'],
    ['webpack:///./src/App.tsx', 'src/App'],
    ['', '<unknown module>'],
  ])('%s -> %s', (url, module) => {
    expect(generateModule(url)).toBe(module);
  });
});

describe('addJavaScriptModules', () => {
  it('names URL frames of JavaScript events and leaves others alone', () => {
    const event = normalizeEvent(
      {
        platform: 'javascript',
        exception: [
          {
            type: 'Error',
            stacktrace: {
              frames: [
                { filename: 'https://cdn.x/static/js/app.1a2b3c4d.js', function: 'a' },
                { filename: 'https://cdn.x/lib.js', module: 'given', function: 'b' },
                { filename: '/local/file.js', function: 'c' },
              ],
            },
          },
        ],
      },
      { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 },
    );
    addJavaScriptModules(event);
    expect(event.exception!.values[0]!.stacktrace!.frames.map((f) => f.module)).toEqual(['app', 'given', undefined]);
  });

  it("names them only in JavaScript and Node events, as Sentry's JavaScript preprocessing does", () => {
    const frames = [{ abs_path: 'https://cdn.x/static/js/app.js', function: 'a', platform: 'javascript' }];
    const event = normalizeEvent(
      { platform: 'python', stacktrace: { frames } },
      { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 },
    );
    addJavaScriptModules(event);
    expect(event.stacktrace!.frames[0]!.module).toBeUndefined();
  });
});
