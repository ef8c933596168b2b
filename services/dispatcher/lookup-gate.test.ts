import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { gatedLookup } from './lookup-gate.ts';

describe('gatedLookup', () => {
  it('keeps at most `max` lookups unanswered, and starts the next as one is answered', () => {
    const pending: Array<{ hostname: string; answer: () => void }> = [];
    const lookup = gatedLookup((hostname, _options, callback) => {
      pending.push({ hostname, answer: () => callback(null, [{ address: '203.0.113.7', family: 4 }]) });
    }, 2);
    const answered: Array<[string, LookupAddress[]]> = [];
    for (const host of ['a.example', 'b.example', 'c.example', 'd.example']) {
      lookup(host, { all: true }, (_error, addresses) => answered.push([host, addresses]));
    }
    // A name server that never answers holds two of the pool's threads, not four.
    expect(pending.map((p) => p.hostname)).toEqual(['a.example', 'b.example']);
    pending[0]!.answer();
    expect(answered.map(([host]) => host)).toEqual(['a.example']);
    expect(pending.map((p) => p.hostname)).toEqual(['a.example', 'b.example', 'c.example']);
    pending[1]!.answer();
    pending[2]!.answer();
    expect(pending.map((p) => p.hostname)).toEqual(['a.example', 'b.example', 'c.example', 'd.example']);
    pending[3]!.answer();
    expect(answered.map(([host]) => host)).toEqual(['a.example', 'b.example', 'c.example', 'd.example']);
  });
});
