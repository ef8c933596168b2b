// The address an event came from, which fills a user's "{{auto}}" address (and so counts an
// anonymous user), behind a reverse proxy: the entry of X-Forwarded-For that the outermost
// trusted proxy added (ERRATA_TRUSTED_PROXIES), not the proxy's own address, which every
// browser behind an Ingress would otherwise share.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForIssue, waitForLatestEvent } from '../support/issues.ts';
import { envelopePoster, envelopeUrlOf, eventEnvelope, newEventId } from '../support/raw-http.ts';
import { provision, startServer, stopAndRemove, type Provisioned, type StandaloneServer } from '../support/standalone-server.ts';

let server: StandaloneServer;
let p: Provisioned;

beforeAll(async () => {
  server = await startServer({ env: { ERRATA_TRUSTED_PROXIES: '1' } });
  p = await provision(server, 'Proxied');
});
afterAll(() => stopAndRemove(server));

async function addressStored(message: string, headers: Record<string, string>): Promise<unknown> {
  const post = envelopePoster(() => envelopeUrlOf(server, p));
  const event = { event_id: newEventId(), message, user: { ip_address: '{{auto}}' } };
  expect((await post(eventEnvelope(event), headers)).status).toBe(200);
  const issue = await waitForIssue(server, p, message);
  const latest = await waitForLatestEvent<{ payload: { user?: { ip_address?: string } } }>(server, p, issue.shortId);
  return latest.payload.user?.ip_address;
}

describe('behind a reverse proxy (ERRATA_TRUSTED_PROXIES=1)', () => {
  it("fills {{auto}} with the address the proxy saw, not one the client wrote or the proxy's own", async () => {
    expect(await addressStored('Proxied event one', { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' })).toBe('203.0.113.9');
  });

  it("fills the connection's address when no proxy added one", async () => {
    expect(await addressStored('Proxied event two', {})).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });
});
