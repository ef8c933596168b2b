import { describe, expect, it } from 'vitest';
import { globMatches } from './glob.ts';

const path = { path: true, ignoreCase: true };
const plain = { path: false, ignoreCase: false };

describe('globMatches', () => {
  it('lets ** cross directories and **/ match none, in paths', () => {
    expect(globMatches('**/node_modules/**', '/app/node_modules/express/index.js', path)).toBe(true);
    expect(globMatches('**/node_modules/**', 'node_modules/express/index.js', path)).toBe(true);
    expect(globMatches('**/node_modules/**', '/app/src/index.js', path)).toBe(false);
  });

  it('stops * at a slash in paths but not elsewhere', () => {
    expect(globMatches('src/*.js', 'src/a/b.js', path)).toBe(false);
    expect(globMatches('src/*.js', 'src/b.js', path)).toBe(true);
    expect(globMatches('log_demo::*', 'log_demo::main::inner', plain)).toBe(true);
  });

  it('ignores case and backslashes in paths only', () => {
    expect(globMatches('**/Vendor/**', 'C:\\app\\vendor\\lib.php', path)).toBe(true);
    expect(globMatches('Database*', 'databaseUnavailable', plain)).toBe(false);
  });

  it('treats regular-expression characters literally and supports ? and classes', () => {
    expect(globMatches('a.b(c)', 'a.b(c)', plain)).toBe(true);
    expect(globMatches('a.b(c)', 'aXb(c)', plain)).toBe(false);
    expect(globMatches('Error?', 'Error5', plain)).toBe(true);
    expect(globMatches('[ab]x', 'bx', plain)).toBe(true);
    expect(globMatches('[!ab]x', 'bx', plain)).toBe(false);
  });

  it('reads a class the regular-expression engine refuses as plain characters, never throwing', () => {
    // `[z-a]` threw a SyntaxError while grouping: the batch failed, and was retried without end.
    expect(globMatches('[z-a]x', '[z-a]x', plain)).toBe(true);
    expect(globMatches('[z-a]x', 'bx', plain)).toBe(false);
    expect(globMatches('**/[z-a]*.js', 'src/[z-a]lib.js', path)).toBe(true);
    expect(globMatches(`${'*a'.repeat(8)}[z-a]`, `${'a'.repeat(40)}[z-a]`, plain)).toBe(true);
    // Its body too: no wildcard inside it.
    expect(globMatches('[*-!]x', '[*-!]x', plain)).toBe(true);
    expect(globMatches('[*-!]x', '[abc-!]x', plain)).toBe(false);
  });

  it('answers a pattern of many runs against a long path or message without backtracking for seconds', () => {
    // `*a*a*a*b` against 512 `a` backtracked for 24 s (this test timed out); the automaton reads it in linear time.
    const caseless = { path: false, ignoreCase: true };
    expect(globMatches('*a*a*a*b', 'a'.repeat(512), path)).toBe(false);
    expect(globMatches('*A*a*A*B', `${'a'.repeat(512)}b`, path)).toBe(true);
    expect(globMatches('*error*error*error*timeout', 'ERROR '.repeat(1300), caseless)).toBe(false);
    expect(globMatches('*error*error*error*timeout', `${'ERROR '.repeat(1300)}Timeout`, caseless)).toBe(true);
    // Many runs against a short text (a first bound on the text's length let these through).
    expect(globMatches(`${'**/'.repeat(20)}x`, '/'.repeat(13), path)).toBe(false);
    expect(globMatches(`${'*a'.repeat(169)}*b`, 'a'.repeat(400), path)).toBe(false);
  });
});
