// Who is uploading: `Authorization: Bearer errata_...`, a project-scoped upload token looked up
// by its SHA-256 on every request (revocation applies at once). Errors on the upload paths are
// answered as sentry-cli prints them: `{"detail": "..."}`.
import type Koa from 'koa';
import { hashSecret, UPLOAD_TOKEN_PREFIX } from '../../core/auth/secrets.ts';
import { ErrataError, isBusy, RateLimitedError, UnauthorizedError } from '../../core/errors.ts';
import type { MetadataStore, UploadToken } from '../../core/ports/metadata-store.ts';
import { ERROR_STATUS } from '../../runtime/http.ts';

const HOW =
  'send the upload token as the auth token (SENTRY_AUTH_TOKEN or --auth-token); an administrator creates one with `errata createuploadtoken --project <slug>`';

export function requireUploadToken(metadata: MetadataStore): Koa.Middleware {
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    if (!match) throw new UnauthorizedError(`missing auth token: ${HOW}`);
    const plaintext = match[1]!;
    const token = plaintext.startsWith(UPLOAD_TOKEN_PREFIX) ? await metadata.findUploadToken(hashSecret(plaintext)) : undefined;
    if (!token) throw new UnauthorizedError(`unknown or revoked upload token: ${HOW}`);
    ctx.state.uploadToken = token;
    await next();
  };
}

export function uploadTokenOf(ctx: Koa.Context): UploadToken {
  return ctx.state.uploadToken as UploadToken;
}

/** Our errors as `{"detail"}`, the field sentry-cli shows; anything else goes on to the shared mapping. */
export function sentryStyleErrors(): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof ErrataError)) throw error;
      ctx.status = ERROR_STATUS[error.code];
      if (error.code === 'unauthorized') ctx.set('WWW-Authenticate', 'Bearer realm="errata"');
      if (error instanceof RateLimitedError || isBusy(error)) ctx.set('Retry-After', String(error.retryAfterSeconds));
      ctx.body = { detail: error.message };
    }
  };
}
