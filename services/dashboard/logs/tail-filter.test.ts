import { describe, expect, it } from 'vitest';
import { readTailFilter, tailParams } from './tail-filter.ts';

const read = (query: string) => readTailFilter(new URLSearchParams(query));

describe('the live tail filter', () => {
  it('reads the project, levels, text and trace id, and writes them back', () => {
    const filter = read(`project=web&level=error&level=warn&level=error&q=+timeout+&trace=${'AB'.repeat(16)}`);
    expect(filter).toEqual({ project: 'web', levels: ['error', 'warn'], text: 'timeout', traceId: 'ab'.repeat(16) });
    expect(readTailFilter(tailParams(filter))).toEqual(filter);
  });

  it('takes an empty address as every record of the first project', () => {
    expect(read('')).toEqual({ project: '', levels: [], text: '', traceId: '' });
  });

  it.each([
    ['level=loud', 'level "loud" is not one of trace, debug, info, warn, error, fatal'],
    ['trace=xyz', 'trace "xyz" is not a trace id: it is 32 hexadecimal characters'],
    [`q=${'x'.repeat(201)}`, 'the text is 201 characters long; keep it to 200'],
  ])('refuses %s, saying what to send', (query, message) => {
    expect(() => read(query)).toThrow(message);
  });
});
