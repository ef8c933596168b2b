import { describe, expect, it } from 'vitest';
import { EnvelopeFramingError, parseEnvelope, TooManyItemsError } from './parse-envelope.ts';

const env = (text: string) => parseEnvelope(Buffer.from(text, 'utf8'));

describe('parseEnvelope', () => {
  it('reads items with explicit lengths, including newlines inside the payload', () => {
    const attachment = 'line one\nline two\r\n';
    const envelope = env(
      `{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}\n` +
        `{"type":"attachment","length":${Buffer.byteLength(attachment)},"filename":"a.txt"}\n${attachment}\n` +
        `{"type":"event","length":2}\n{}\n`,
    );
    expect(envelope.headers.event_id).toBe('9ec79c33ec9942ab8353589fcb2e04dc');
    expect(envelope.items.map((i) => i.headers.type)).toEqual(['attachment', 'event']);
    expect(envelope.items[0]!.payload.toString()).toBe(attachment);
    expect(envelope.items[0]!.headers.filename).toBe('a.txt');
    expect(envelope.items[1]!.payload.toString()).toBe('{}');
  });

  it('reads items without length up to the next newline, with or without a trailing newline', () => {
    const withNewline = env('{}\n{"type":"event"}\n{"message":"a"}\n{"type":"log"}\n{"items":[]}\n');
    const withoutNewline = env('{}\n{"type":"event"}\n{"message":"a"}\n{"type":"log"}\n{"items":[]}');
    for (const envelope of [withNewline, withoutNewline]) {
      expect(envelope.items.map((i) => [i.headers.type, i.payload.toString()])).toEqual([
        ['event', '{"message":"a"}'],
        ['log', '{"items":[]}'],
      ]);
    }
  });

  it('keeps a carriage return before the newline as payload when no length is given', () => {
    const envelope = env('{}\n{"type":"event"}\n{}\r\n');
    expect(envelope.items[0]!.payload.toString()).toBe('{}\r');
  });

  it('accepts an envelope with no items, and an empty item at the end', () => {
    expect(env('{}').items).toEqual([]);
    expect(env('{}\n').items).toEqual([]);
    const trailingEmpty = env('{}\n{"type":"attachment"}\n');
    expect(trailingEmpty.items).toHaveLength(1);
    expect(trailingEmpty.items[0]!.payload.length).toBe(0);
    const emptyAtEof = env('{}\n{"type":"attachment","length":0}');
    expect(emptyAtEof.items[0]!.payload.length).toBe(0);
  });

  it('treats payloads as bytes, so multi-byte characters count by their UTF-8 length', () => {
    const payload = '{"message":"héllo ✓"}';
    const envelope = env(`{}\n{"type":"event","length":${Buffer.byteLength(payload)}}\n${payload}`);
    expect(envelope.items[0]!.payload.toString()).toBe(payload);
  });

  it.each([
    ['an empty body', '', /empty request body/],
    ['a header that is not JSON', 'nope\n', /envelope header is not valid JSON/],
    ['a header that is an array', '[]\n', /envelope header must be a JSON object/],
    ['an item header that is not JSON', '{}\n{type:event}\n{}', /item 1 header is not valid JSON/],
    ['an item header without type', '{}\n{"length":2}\n{}', /item 1 header has no "type"/],
    ['a negative length', '{}\n{"type":"event","length":-1}\n{}', /invalid "length"/],
    ['a fractional length', '{}\n{"type":"event","length":1.5}\n{}', /invalid "length"/],
    ['a length as text', '{}\n{"type":"event","length":"2"}\n{}', /invalid "length"/],
    ['a length longer than the body', '{}\n{"type":"event","length":50}\n{}', /declares length 50 but only 2 bytes follow/],
    ['a length shorter than the payload', '{}\n{"type":"event","length":1}\n{}\n', /expected a newline after its 1-byte payload/],
    ['a second item whose header is broken', '{}\n{"type":"event"}\n{}\n{"type":\n', /item 2 header is not valid JSON/],
  ])('rejects %s with a message saying what is wrong', (_name, text, message) => {
    expect(() => env(text)).toThrow(EnvelopeFramingError);
    expect(() => env(text)).toThrow(message);
  });

  it('refuses a long header that is not an object without parsing it', () => {
    // 5 million "[" took JSON.parse seconds and a gigabyte outside the heap before it failed.
    const started = performance.now();
    expect(() => env(`{}\n${'['.repeat(5_000_000)}`)).toThrow(/item 1 header must be a JSON object/);
    expect(() => env('['.repeat(5_000_000))).toThrow(/envelope header must be a JSON object/);
    console.log(`two 5 MB headers of "[" refused in ${(performance.now() - started).toFixed(0)} ms`);
  });

  it('refuses more items than the limit, without framing the rest', () => {
    const items = (n: number) => `{}\n${'{"type":"log"}\n{}\n'.repeat(n)}`;
    expect(parseEnvelope(Buffer.from(items(3)), { maxItems: 3 }).items).toHaveLength(3);
    // The item after the limit is never read: a broken header there does not matter.
    const over = Buffer.from(`${items(3)}{"type":"log"}\n{}\nnot json\n`);
    expect(() => parseEnvelope(over, { maxItems: 3 })).toThrow(TooManyItemsError);
    expect(() => parseEnvelope(over, { maxItems: 3 })).toThrow(
      'the envelope has more than 3 items (ERRATA_MAX_ENVELOPE_ITEMS): send fewer items per request',
    );
  });

  it('refuses a header nested deeper than 128 levels before parsing it, and counts brackets in strings as text', () => {
    const deep = (depth: number) => `{"sdk":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    expect(env(`${deep(126)}\n`).headers.sdk).toBeDefined();
    expect(() => env(`${deep(200_000)}\n`)).toThrow('envelope header nests deeper than 128 levels');
    expect(() => env(`{}\n{"type":"event","x":${'['.repeat(129)}${']'.repeat(129)}}\n{}`)).toThrow(
      'envelope item 1 header nests deeper than 128 levels',
    );
    const brackets = `{"sdk":{"name":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}}`;
    expect(env(`${brackets}\n`).headers.sdk).toEqual({ name: `${'['.repeat(500)}"${'{'.repeat(500)}` });
  });

  it('refuses a header of more than 10,000 values before parsing it, and reads one long string', () => {
    // Objects in an array: parsed, each 3 bytes would take some 50 times that in memory.
    const wide = (objects: number) => `{"x":[${'{},'.repeat(objects - 1)}{}]}`;
    expect(env(`${wide(4_000)}\n`).headers.x).toHaveLength(4_000);
    expect(() => env(`${wide(300_000)}\n`)).toThrow('envelope header holds more than 10000 values');
    expect(() => env(`{}\n{"type":"attachment","x":${wide(6_000)}}\n{}`)).toThrow(
      'envelope item 1 header holds more than 10000 values',
    );
    const long = `{"sdk":{"name":"x","settings":"${'y'.repeat(512 * 1024)}"}}`;
    expect(env(`${long}\n`).headers.sdk).toMatchObject({ name: 'x' });
  });

  it('refuses headers longer than 1 MiB together, before scanning the rest of them', () => {
    const header = (bytes: number) => `{"sdk":{"name":"x","settings":"${'y'.repeat(bytes)}"}}`;
    expect(() => env(`${header(1024 * 1024)}\n`)).toThrow(
      "envelope header takes the envelope's headers past 1048576 bytes together: headers hold a few fields",
    );
    // Item headers count toward the same total: three of 400 KiB pass one by one, not together.
    const item = `{"type":"x","note":"${'n'.repeat(400 * 1024)}"}\n{}\n`;
    expect(env(`{}\n${item.repeat(2)}`).items).toHaveLength(2);
    expect(() => env(`{}\n${item.repeat(3)}`)).toThrow("envelope item 3 header takes the envelope's headers past");
    // The refusal reads no further than the budget: a header that never closes is not scanned to its end.
    expect(() => env(`{"sdk":"${'z'.repeat(50 * 1024 * 1024)}`)).toThrow('past 1048576 bytes');
  });

  it('shares one allowance of 10,000 values among all the headers of an envelope, beyond a few each', () => {
    // 1,000 item headers of 9,000 values each passed one by one: 9 million values, some 5
    // million objects, from a body that compresses to a few KB.
    const item = (objects: number) => `{"type":"x","a":[${'{},'.repeat(objects - 1)}{}]}\n{}\n`;
    expect(() => env(`{}\n${item(4_500).repeat(1_000)}`)).toThrow(
      /envelope item 2 header holds more than \d+ values \(a header may hold 10000, all the envelope's headers 10000 beyond 16 each\)/,
    );
    expect(env(`{}\n${item(2_000).repeat(2)}`).items).toHaveLength(2);
    // The headers SDKs write stay far inside: 1,000 items of a few fields each.
    const items = '{"type":"attachment","length":0,"filename":"a.txt","content_type":"text/plain"}\n\n'.repeat(1_000);
    expect(env(`{"event_id":"${'a'.repeat(32)}","sdk":{"name":"s","version":"1"}}\n${items}`).items).toHaveLength(1_000);
  });
});
