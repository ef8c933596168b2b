// CORS for the SDK endpoints, as Relay serves it: browser SDKs post cross-origin, and must be
// able to read the rate-limit headers of the answer.
import type Koa from 'koa';

const ALLOWED_HEADERS = [
  'x-sentry-auth',
  'x-requested-with',
  'x-forwarded-for',
  'origin',
  'referer',
  'accept',
  'content-type',
  'authentication',
  'authorization',
  'content-encoding',
  'transfer-encoding',
  'sentry-trace',
  'baggage',
].join(', ');

export const sdkCors: Koa.Middleware = async (ctx, next) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Expose-Headers', 'x-sentry-error, x-sentry-rate-limits, retry-after');
  if (ctx.method === 'OPTIONS') {
    ctx.state.route = 'sdk-preflight';
    ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
    ctx.set('Access-Control-Allow-Headers', ctx.get('access-control-request-headers') || ALLOWED_HEADERS);
    ctx.set('Access-Control-Max-Age', '3600');
    ctx.status = 200;
    return;
  }
  await next();
};
