// Whatever an SDK nests, and wherever, the event still goes through every step and can be
// stored: each path of every real SDK fixture in turn gets a value nested 50,000 levels deep
// (deeper than JSON.stringify can go), and the processed event must serialize.
import { describe, expect, it } from 'vitest';
import { capturedItems } from '../../../test/fixtures/sdk-fixtures.ts';
import { groupEvent, prepareEvent } from './process-event.ts';

const DEPTH = 50_000;
let deepObject: unknown = 'bottom';
for (let i = 0; i < DEPTH; i++) deepObject = { next: deepObject };
let deepList: unknown = [];
for (let i = 0; i < DEPTH; i++) deepList = [deepList];

type Path = Array<string | number>;

/** Every path into the value, to a depth of five, at most 40 entries of each list or object (the deep value is shared: inputs are cloned, never changed). */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length >= 5 || value === null || typeof value !== 'object') return out;
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  for (const [key, child] of entries.slice(0, 40)) {
    out.push([...prefix, key]);
    pathsOf(child, [...prefix, key], out);
  }
  return out;
}

function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let cursor = copy;
  for (const key of path.slice(0, -1)) {
    if (cursor[key] === null || typeof cursor[key] !== 'object') cursor[key] = {};
    cursor = cursor[key] as Record<string | number, unknown>;
  }
  cursor[path.at(-1)!] = value;
  return copy;
}

const context = { eventId: 'a'.repeat(32), receivedAt: Date.now() / 1000 };
const extraPaths: Path[] = [['logentry'], ['message'], ['sdk'], ['contexts'], ['request'], ['user'], ['tags'], ['fingerprint']];

describe('deeply nested values anywhere in an event', () => {
  it.each(capturedItems('event').map((item) => [item.request, item.payload] as const))(
    '%s: every path survives a 50,000-deep value',
    (_name, payload) => {
      const paths = [...pathsOf(payload), ...extraPaths, ['logentry', 'params']];
      let tried = 0;
      for (const path of paths) {
        for (const deep of [deepObject, deepList]) {
          const raw = withValueAt(payload, path, deep);
          let serialized = '';
          expect(() => (serialized = JSON.stringify(groupEvent(prepareEvent(raw, context)).event)), path.join('.')).not.toThrow();
          expect(serialized.length).toBeLessThan(4 * 1024 * 1024);
          tried += 1;
        }
      }
      expect(tried).toBeGreaterThan(20);
    },
  );

  it('keeps a message whose params nest 50,000 levels deep, formatted and storable', () => {
    const { event } = groupEvent(prepareEvent({ logentry: { message: 'order %s failed', params: [deepObject] } }, context));
    expect(event.logentry?.formatted).toMatch(/^order \{"next":/);
    expect(() => JSON.stringify(event)).not.toThrow();
  });
});
