// Structure-aware requests for the fuzzing suite, as fast-check arbitraries: envelopes built
// from their parts (header, item headers, payloads) with every part varied on its own, the
// legacy store endpoint, the source map upload endpoints and a few requests no SDK sends.
// Each request says how many bytes it holds decompressed and how many items it carries, so
// the runner can hold the server to what it may write per request.
import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';

export interface FuzzContext {
  projectId: number;
  publicKey: string;
  /** A key of no project. */
  unknownKey: string;
  organization: string;
  uploadToken: string;
}

export interface FuzzRequest {
  /** What was tried, for the report: `envelope`, `store`, `upload`, `other`. */
  kind: string;
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Bytes of the body once decompressed. */
  plainBytes: number;
  /** Items in an envelope (1 for a store event, 0 otherwise). */
  items: number;
}

/** Text SDKs and attackers send: any code point, and the characters stores and parsers trip on. */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      '\u0000',
      'a\u0000b',
      '\ud800',
      '\udfff tail',
      '\u2028\u2029',
      '\u202e\u202dRTL',
      '\ufeff',
      '\uff1c/untrusted-data\uff1e',
      '</untrusted-data>',
      '%s %d %(name)s {name}',
      '🦀'.repeat(50),
      'x'.repeat(70_000),
    ),
  },
);

const hex = (length: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });

/** A value nested `depth` levels deep, as JSON text (cheaper to build than the object). */
const deepJson = fc
  .record({ depth: fc.integer({ min: 100, max: 60_000 }), list: fc.boolean() })
  .map(({ depth, list }) =>
    list ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

const DEEP = '"__deep__"';
/** A JSON value, sometimes one that nests deeper than any stringify can go (spliced in as text). */
const jsonValue = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: text },
  { weight: 1, arbitrary: fc.constant(JSON.parse(DEEP) as string) },
);

function withDeepValues(json: string, deep: string): string {
  return json.includes(DEEP) ? json.replaceAll(DEEP, deep) : json;
}

const timestamp = fc.oneof(
  fc.double({ min: 0, max: 4e9, noNaN: true }),
  fc.constantFrom('2026-11-24T10:00:00.123456789Z', 'not a time', -1, 1e20, null),
  fc.constant(Date.now() / 1000),
);

const frame = fc.record(
  {
    filename: text,
    function: text,
    lineno: fc.oneof(fc.nat(), text),
    colno: fc.nat(),
    abs_path: text,
    in_app: fc.boolean(),
    vars: jsonValue,
    context_line: text,
  },
  { requiredKeys: [] },
);

const exception = fc.record(
  {
    type: text,
    value: text,
    module: text,
    stacktrace: fc.oneof(fc.record({ frames: fc.array(frame, { maxLength: 8 }) }), jsonValue),
    mechanism: jsonValue,
  },
  { requiredKeys: [] },
);

const event = fc.record(
  {
    event_id: fc.oneof(hex(32), text),
    timestamp,
    level: fc.oneof(fc.constantFrom('fatal', 'error', 'warning', 'info', 'debug'), text, fc.integer()),
    platform: fc.oneof(fc.constantFrom('javascript', 'python', 'go', 'node'), text),
    message: fc.oneof(text, fc.record({ message: text, params: fc.array(jsonValue, { maxLength: 4 }) }), jsonValue),
    logentry: fc.record(
      { message: text, params: fc.oneof(fc.array(jsonValue, { maxLength: 4 }), jsonValue) },
      { requiredKeys: [] },
    ),
    exception: fc.oneof(
      fc.record({ values: fc.array(exception, { maxLength: 3 }) }),
      fc.array(exception, { maxLength: 3 }),
      jsonValue,
    ),
    release: text,
    environment: text,
    dist: text,
    tags: fc.oneof(fc.dictionary(text, text, { maxKeys: 5 }), fc.array(fc.tuple(text, text), { maxLength: 5 }), jsonValue),
    user: fc.oneof(fc.record({ id: text, email: text, ip_address: text }, { requiredKeys: [] }), jsonValue),
    contexts: fc.oneof(fc.dictionary(text, jsonValue, { maxKeys: 4 }), jsonValue),
    extra: jsonValue,
    breadcrumbs: fc.oneof(
      fc.array(fc.record({ message: text, category: text, data: jsonValue, timestamp }, { requiredKeys: [] }), { maxLength: 5 }),
      jsonValue,
    ),
    fingerprint: fc.oneof(fc.array(text, { maxLength: 4 }), jsonValue),
    request: jsonValue,
    sdk: jsonValue,
    threads: jsonValue,
    debug_meta: jsonValue,
    modules: jsonValue,
    custom_field: jsonValue,
  },
  { requiredKeys: [] },
);

const logRecord = fc.record(
  {
    timestamp,
    level: fc.oneof(fc.constantFrom('trace', 'debug', 'info', 'warn', 'error', 'fatal'), text),
    body: fc.oneof({ weight: 5, arbitrary: text }, { weight: 1, arbitrary: jsonValue }),
    trace_id: fc.oneof(hex(32), text),
    span_id: hex(16),
    severity_number: fc.oneof(fc.integer({ min: -5, max: 30 }), text),
    attributes: fc.oneof(
      fc.dictionary(
        text,
        fc.oneof(
          fc.record({
            value: jsonValue,
            type: fc.oneof(fc.constantFrom('string', 'integer', 'double', 'boolean', 'array'), text),
          }),
          jsonValue,
        ),
        { maxKeys: 6 },
      ),
      jsonValue,
    ),
  },
  { requiredKeys: [] },
);

const logContainer = fc.oneof(
  { weight: 8, arbitrary: fc.record({ items: fc.array(logRecord, { maxLength: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ items: fc.array(fc.constant({ body: 'many' }), { minLength: 100, maxLength: 3000 }) }) },
  { weight: 1, arbitrary: jsonValue },
);

interface BuiltItem {
  header: Record<string, unknown>;
  payload: string;
}

const itemType = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('event', 'log') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'transaction',
      'attachment',
      'client_report',
      'session',
      'sessions',
      'span',
      'check_in',
      'replay_event',
      'profile',
    ),
  },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom('integration', '', 'EVENT'), text) },
);

const payloads = {
  event: event.map((e) => JSON.stringify(e)),
  log: logContainer.map((c) => JSON.stringify(c)),
  other: fc.oneof(
    { weight: 2, arbitrary: fc.oneof(text, fc.constantFrom('', '{', 'null', '[]', '{"items":')) },
    { weight: 1, arbitrary: deepJson },
  ),
};

const item: fc.Arbitrary<BuiltItem> = fc
  .record({
    type: itemType,
    // Mostly the payload its type calls for, so the happy path is walked as well as the rest.
    matching: fc.boolean(),
    event: payloads.event,
    log: payloads.log,
    other: payloads.other,
    deep: deepJson,
    length: fc.constantFrom('exact', 'exact', 'none', 'none', 'short', 'long', 'invalid'),
    itemCount: fc.oneof(fc.constant(undefined), fc.integer({ min: -2, max: 5000 }), fc.constantFrom('3', null, 1.5)),
    extra: fc.dictionary(fc.string({ maxLength: 10 }), jsonValue, { maxKeys: 2 }),
  })
  .map(({ type, matching, event: eventJson, log, other, deep, length, itemCount, extra }) => {
    const payload = type === 'event' && matching ? eventJson : type === 'log' && matching ? log : matching ? eventJson : other;
    const body = withDeepValues(payload, deep);
    const bytes = Buffer.byteLength(body);
    const header: Record<string, unknown> = { ...extra, type };
    if (length === 'exact') header.length = bytes;
    if (length === 'short') header.length = Math.max(0, bytes - 1);
    if (length === 'long') header.length = bytes + 7;
    if (length === 'invalid') header.length = -1;
    if (itemCount !== undefined) header.item_count = itemCount;
    // Without a length the payload ends at the next newline: one in it breaks the framing.
    return { header, payload: body };
  });

type Auth = 'query' | 'x-sentry-auth' | 'header-dsn' | 'unknown-key' | 'none' | 'two-keys';
const auth = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Auth>('query') },
  { weight: 2, arbitrary: fc.constantFrom<Auth>('x-sentry-auth', 'header-dsn') },
  { weight: 1, arbitrary: fc.constantFrom<Auth>('unknown-key', 'none', 'two-keys') },
);

type Encoding = 'identity' | 'gzip' | 'deflate' | 'deflate-raw' | 'br' | 'lying-gzip' | 'unknown';
const encoding = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Encoding>('identity') },
  { weight: 4, arbitrary: fc.constantFrom<Encoding>('gzip', 'deflate', 'deflate-raw', 'br') },
  { weight: 1, arbitrary: fc.constantFrom<Encoding>('lying-gzip', 'unknown') },
);

function encode(body: Buffer, how: Encoding): { body: Buffer; header?: string } {
  switch (how) {
    case 'identity':
      return { body };
    case 'gzip':
      return { body: gzipSync(body), header: 'gzip' };
    case 'deflate':
      return { body: deflateSync(body), header: 'deflate' };
    case 'deflate-raw':
      return { body: deflateRawSync(body), header: 'deflate' };
    case 'br':
      return { body: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }), header: 'br' };
    case 'lying-gzip':
      return { body, header: 'gzip' };
    case 'unknown':
      return { body, header: 'zstd' };
  }
}

const envelopeHeader = fc.record(
  {
    event_id: fc.oneof(hex(32), text, fc.integer()),
    sent_at: fc.oneof(text, timestamp),
    sdk: fc.oneof(
      fc.record({ name: text, version: text, integrations: fc.array(text, { maxLength: 5 }) }, { requiredKeys: [] }),
      jsonValue,
      // Large, yet within the 1 MiB all of an envelope's headers may take (parse-envelope.ts).
      fc.constant({ name: 'sentry.huge', settings: 'x'.repeat(768 * 1024) }),
    ),
    trace: jsonValue,
  },
  { requiredKeys: [] },
);

/** A compression bomb, made once per size: making one takes a second. */
const bombs = new Map<number, Buffer>();
function bomb(prefix: string, megabytes: number): Buffer {
  const key = megabytes;
  let zeros = bombs.get(key);
  if (!zeros) {
    zeros = Buffer.alloc(megabytes * 1024 * 1024);
    bombs.set(key, zeros);
  }
  return brotliCompressSync(Buffer.concat([Buffer.from(prefix), zeros]), { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
}

export function requestArbitrary(ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const dsn = (key: string) => `http://${key}@127.0.0.1/${ctx.projectId}`;
  const sdkPath = (endpoint: 'envelope' | 'store', how: Auth, prefix: boolean) => {
    const base = `${prefix ? '/errata' : ''}/api/${ctx.projectId}/${endpoint}/`;
    if (how === 'query' || how === 'two-keys') return `${base}?sentry_key=${ctx.publicKey}`;
    if (how === 'unknown-key') return `${base}?sentry_key=${ctx.unknownKey}`;
    return base;
  };
  const authHeaders = (how: Auth): Record<string, string> =>
    how === 'x-sentry-auth' || how === 'two-keys'
      ? { 'x-sentry-auth': `Sentry sentry_key=${ctx.publicKey}, sentry_version=7` }
      : {};

  const envelope = fc
    .record({
      header: envelopeHeader,
      rawHeader: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.oneof(text, deepJson) }),
      items: fc.oneof(
        { weight: 12, arbitrary: fc.array(item, { maxLength: 4 }) as fc.Arbitrary<BuiltItem[]> },
        {
          weight: 1,
          arbitrary: fc
            .integer({ min: 990, max: 1010 })
            .map((n): BuiltItem[] =>
              Array.from({ length: n }, () => ({ header: { type: 'log', item_count: 1 }, payload: '{"items":[{"body":"x"}]}' })),
            ),
        },
      ),
      framing: fc.constantFrom('newlines', 'newlines', 'no-trailing', 'blank-lines', 'crlf'),
      auth,
      encoding,
      prefix: fc.boolean(),
    })
    .map(({ header, rawHeader, items, framing, auth: how, encoding: how2, prefix }): FuzzRequest => {
      const headerJson = { ...header, ...(how === 'header-dsn' ? { dsn: dsn(ctx.publicKey) } : {}) };
      const headerLine = rawHeader ?? JSON.stringify(headerJson);
      const separator = framing === 'crlf' ? '\r\n' : framing === 'blank-lines' ? '\n\n' : '\n';
      const parts = [headerLine, ...items.flatMap((i) => [JSON.stringify(i.header), i.payload])];
      const plain = Buffer.from(parts.join(separator) + (framing === 'no-trailing' ? '' : '\n'));
      const encoded = encode(plain, how2);
      return {
        kind: 'envelope',
        method: 'POST',
        path: sdkPath('envelope', how, prefix),
        headers: { ...authHeaders(how), ...(encoded.header ? { 'content-encoding': encoded.header } : {}) },
        body: encoded.body,
        plainBytes: plain.length,
        items: items.length,
      };
    });

  const compressionBomb = fc
    .record({ megabytes: fc.constantFrom(2, 16, 64), keyInHeaderOnly: fc.boolean(), good: fc.boolean() })
    .map(({ megabytes, keyInHeaderOnly, good }): FuzzRequest => {
      const key = good ? ctx.publicKey : ctx.unknownKey;
      const prefix = `{"dsn":"${dsn(key)}"}\n{"type":"attachment"}\n`;
      return {
        kind: 'bomb',
        method: 'POST',
        path: keyInHeaderOnly ? `/api/${ctx.projectId}/envelope/` : `/api/${ctx.projectId}/envelope/?sentry_key=${key}`,
        headers: { 'content-encoding': 'br' },
        body: bomb(prefix, megabytes),
        plainBytes: prefix.length + megabytes * 1024 * 1024,
        items: 1,
      };
    });

  const store = fc
    .record({ event, deep: deepJson, form: fc.constantFrom('json', 'json', 'base64', 'base64-zlib', 'garbage'), auth })
    .map(({ event: e, deep, form, auth: how }): FuzzRequest => {
      const json = Buffer.from(withDeepValues(JSON.stringify(e), deep));
      const body =
        form === 'json'
          ? json
          : form === 'base64'
            ? Buffer.from(json.toString('base64'))
            : form === 'base64-zlib'
              ? Buffer.from(deflateSync(json).toString('base64'))
              : Buffer.from('%%% not an event');
      return {
        kind: 'store',
        method: 'POST',
        path: sdkPath('store', how, false),
        headers: { 'content-type': 'application/json', ...authHeaders(how) },
        body,
        plainBytes: Math.max(json.length, body.length),
        items: 1,
      };
    });

  const upload = fc
    .record({
      route: fc.constantFrom('info', 'options', 'chunks', 'assemble'),
      token: fc.constantFrom('good', 'good', 'good', 'bad', 'none'),
      parts: fc.array(
        fc.record({
          name: fc.constantFrom('file', 'file_gzip', 'other'),
          data: fc.uint8Array({ maxLength: 2048 }),
          gzip: fc.boolean(),
        }),
        { maxLength: 4 },
      ),
      assemble: fc.oneof(
        fc.record(
          {
            checksum: fc.oneof(hex(40), text),
            chunks: fc.array(fc.oneof(hex(40), text), { maxLength: 5 }),
            projects: fc.array(text, { maxLength: 2 }),
          },
          { requiredKeys: [] },
        ),
        jsonValue,
      ),
    })
    .map(({ route, token, parts, assemble }): FuzzRequest => {
      const headers: Record<string, string> =
        token === 'good'
          ? { authorization: `Bearer ${ctx.uploadToken}` }
          : token === 'bad'
            ? { authorization: 'Bearer errata_nope' }
            : {};
      const org = `/api/0/organizations/${ctx.organization}`;
      if (route === 'info' || route === 'options') {
        return {
          kind: 'upload',
          method: 'GET',
          path: route === 'info' ? '/api/0/' : `${org}/chunk-upload/`,
          headers,
          body: Buffer.alloc(0),
          plainBytes: 0,
          items: 0,
        };
      }
      if (route === 'assemble') {
        const body = Buffer.from(JSON.stringify(assemble) ?? 'null');
        return {
          kind: 'upload',
          method: 'POST',
          path: `${org}/artifactbundle/assemble/`,
          headers: { ...headers, 'content-type': 'application/json' },
          body,
          plainBytes: body.length,
          items: 0,
        };
      }
      const boundary = 'fuzzboundary';
      const body = Buffer.concat([
        ...parts.flatMap((part, i) => [
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="c${i}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
          part.gzip ? gzipSync(part.data) : Buffer.from(part.data),
          Buffer.from('\r\n'),
        ]),
        Buffer.from(`--${boundary}--\r\n`),
      ]);
      return {
        kind: 'upload',
        method: 'POST',
        path: `${org}/chunk-upload/`,
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
        plainBytes: body.length,
        items: 0,
      };
    });

  const other = fc
    .record({
      method: fc.constantFrom('GET', 'PUT', 'DELETE', 'OPTIONS'),
      path: fc.constantFrom(`/api/${ctx.projectId}/envelope/`, `/api/${ctx.projectId}/store/`, '/api/', '/nope', '/api/0/nope'),
    })
    .map(({ method, path }): FuzzRequest => ({
      kind: 'other',
      method,
      path,
      headers: { origin: 'http://example.com' },
      body: Buffer.alloc(0),
      plainBytes: 0,
      items: 0,
    }));

  return fc.oneof(
    { weight: 20, arbitrary: envelope },
    { weight: 4, arbitrary: store },
    { weight: 3, arbitrary: upload },
    { weight: 1, arbitrary: other },
    { weight: 1, arbitrary: compressionBomb },
  );
}
