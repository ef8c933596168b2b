import { describe, expect, it } from 'vitest';
import type { Frame } from './event.ts';
import { repositoryPaths, withoutServingPrefix } from './repository-paths.ts';

const inApp = (frame: Frame) => frame.in_app === true;
const paths = (frames: Frame[]) => frames.map(repositoryPaths(frames, inApp));

describe('repositoryPaths', () => {
  it('drops the directory every in-app frame shares, the deploy root, from every frame under it', () => {
    const frames: Frame[] = [
      { abs_path: '/srv/app/node_modules/express/index.js', in_app: false },
      { filename: '/srv/app/src/routes/cart.ts', in_app: true },
      { filename: '/srv/app/lib/db.ts', in_app: true },
      { filename: 'node:internal/timers', in_app: false },
    ];
    expect(paths(frames)).toEqual(['node_modules/express/index.js', 'src/routes/cart.ts', 'lib/db.ts', 'node:internal/timers']);
  });

  it('leaves the file name when every in-app frame is in one directory', () => {
    expect(paths([{ filename: '/tmp/build/apps/node/app.cjs', in_app: true }])).toEqual(['app.cjs']);
  });

  it('keeps paths that share only the filesystem root, and paths that are relative already', () => {
    expect(
      paths([
        { filename: '/a/x.ts', in_app: true },
        { filename: '/b/y.ts', in_app: true },
      ]),
    ).toEqual(['/a/x.ts', '/b/y.ts']);
    expect(paths([{ filename: 'app/checkout.js', in_app: true }])).toEqual(['app/checkout.js']);
  });

  it('reads Windows paths and file URLs', () => {
    expect(
      paths([
        { filename: 'C:\\app\\src\\a.ts', in_app: true },
        { filename: 'file:///C:/app/lib/b.ts', in_app: true },
      ]),
    ).toEqual(['src/a.ts', 'lib/b.ts']);
  });
});

describe('withoutServingPrefix', () => {
  it('drops schemes and authorities that name where the code was served from, and leading relative steps', () => {
    expect(withoutServingPrefix('webpack://shop/./src/cart.ts')).toBe('src/cart.ts');
    expect(withoutServingPrefix('webpack:///../src/cart.ts')).toBe('src/cart.ts');
    expect(withoutServingPrefix('app:///src/cart.js')).toBe('src/cart.js');
    expect(withoutServingPrefix('https://cdn.example.test/static/js/main.js')).toBe('static/js/main.js');
    expect(withoutServingPrefix('file:///home/me/app/a.ts')).toBe('/home/me/app/a.ts');
    expect(withoutServingPrefix('../../src/a.ts')).toBe('src/a.ts');
    expect(withoutServingPrefix('node:internal/timers')).toBe('node:internal/timers');
  });
});
