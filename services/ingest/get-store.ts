// The GET variant of the legacy store endpoint (ingest role): old browser clients (raven-js
// and its react-native plugin) sent an event as an image request, `GET /api/{id}/store/
// ?sentry_key=...&sentry_data=...`, with the event in `sentry_data` as JSON, or base64 of it,
// or base64 of zlib-compressed JSON (the same decoding as a POSTed store body), and the answer
// is a transparent 1x1 GIF, as Relay's store endpoint answers it.
import { dropping, UserInputError } from '../core/errors.ts';
import { outcome } from '../core/outcomes.ts';

/** A 1x1 transparent GIF (43 bytes): the body of every accepted GET store request. */
export const TRANSPARENT_PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** The event a GET store request carries, still encoded as the client sent it. */
export function storeDataFromQuery(query: URLSearchParams): Buffer {
  const data = query.get('sentry_data');
  if (data === null || data === '') {
    throw dropping(
      new UserInputError(
        'missing sentry_data query parameter: a GET to the store endpoint carries the event in sentry_data ' +
          '(JSON, or base64 of zlib-compressed JSON); or POST the event instead',
      ),
      outcome('invalid_json', 'error'),
    );
  }
  return Buffer.from(data, 'utf8');
}
