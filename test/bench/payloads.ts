// Realistic error envelopes for the ingest benchmark: a Python-style exception with a stack
// trace and breadcrumbs, ~2 KB ("small") or ~20 KB ("medium"), spread over many fingerprints.
// Extra data is varied text (ids, words), not one repeated character: it should compress about
// as well as real payloads do, since storage cost depends on it.
import { randomBytes, randomUUID } from 'node:crypto';

const WORDS = [
  'order',
  'cart',
  'user',
  'session',
  'payment',
  'retry',
  'timeout',
  'region',
  'shipping',
  'invoice',
  'token',
  'cache',
];

/** Roughly `length` characters of log-like text with ids in it. */
function variedText(length: number): string {
  let text = '';
  while (text.length < length) {
    text += `${WORDS[Math.floor(Math.random() * WORDS.length)]}=${randomBytes(6).toString('hex')} `;
  }
  return text.slice(0, length);
}

const FUNCTIONS = [
  'load_cart',
  'charge_card',
  'render_page',
  'send_email',
  'resize_image',
  'parse_feed',
  'sync_users',
  'export_csv',
];
const TYPES = ['ValueError', 'KeyError', 'TimeoutError', 'RuntimeError', 'ConnectionError'];

function frames(variant: number, count: number) {
  return Array.from({ length: count }, (_, i) => ({
    filename: `app/${FUNCTIONS[(variant + i) % FUNCTIONS.length]}.py`,
    abs_path: `/srv/app/${FUNCTIONS[(variant + i) % FUNCTIONS.length]}.py`,
    module: `app.${FUNCTIONS[(variant + i) % FUNCTIONS.length]}`,
    function: `${FUNCTIONS[(variant * 7 + i) % FUNCTIONS.length]}_${variant % 13}`,
    lineno: 10 + i * 3,
    context_line: `    result = step_${i}(payload, retries=${i})`,
    pre_context: ['    # fetch', '    payload = fetch()'],
    post_context: ['    return result'],
    in_app: i > 2,
  }));
}

/** Stands for the event id in a pre-built body; withEventId() puts a fresh one in. */
export const EVENT_ID_PLACEHOLDER = '0123456789abcdef0123456789abcdef';

/** Every request a new event: the same body with a fresh id (envelope header and payload). */
export function withEventId(body: string): string {
  return body.replaceAll(EVENT_ID_PLACEHOLDER, randomUUID().replace(/-/g, ''));
}

/** One envelope body (with EVENT_ID_PLACEHOLDER as its id); `variant` picks the fingerprint (100 distinct ones). */
export function errorEnvelope(size: 'small' | 'medium', variant: number): string {
  const eventId = EVENT_ID_PLACEHOLDER;
  const v = variant % 100;
  const event = {
    event_id: eventId,
    timestamp: Date.now() / 1000,
    platform: 'python',
    level: 'error',
    release: `bench@1.${v % 5}.0`,
    environment: v % 2 ? 'production' : 'staging',
    server_name: 'bench-host',
    user: { id: `user-${Math.floor(Math.random() * 500)}` },
    tags: { region: v % 3 ? 'eu' : 'us', component: 'checkout' },
    exception: {
      values: [
        {
          type: TYPES[v % TYPES.length],
          value: `Order ${Math.floor(Math.random() * 1e6)} failed at step ${v}`,
          stacktrace: { frames: frames(v, size === 'small' ? 6 : 25) },
        },
      ],
    },
    breadcrumbs: {
      values: Array.from({ length: size === 'small' ? 3 : 60 }, (_, i) => ({
        timestamp: Date.now() / 1000 - i,
        category: 'http',
        message: `GET /api/items/${i}?page=${i % 7}`,
        data: { status_code: 200, duration_ms: i * 3 },
      })),
    },
    extra: size === 'small' ? { note: variedText(200) } : { payload: variedText(8000) },
    sdk: { name: 'sentry.python', version: '2.75.0' },
  };
  const payload = JSON.stringify(event);
  return `${JSON.stringify({ event_id: eventId, sent_at: new Date().toISOString() })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) })}\n${payload}\n`;
}

/** 70% small, 30% medium. */
export function mixedEnvelope(n: number): string {
  return errorEnvelope(n % 10 < 7 ? 'small' : 'medium', n * 31);
}
