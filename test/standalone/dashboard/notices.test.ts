// The notice a page shows after a redirect (`?saved=` or `?done=` in its address): the page's
// own words for a value it knows, and nothing for any other value, including names of Object's
// members, which a plain table lookup would find (an empty banner, or a function as its text).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { waitForIssue } from '../../support/issues.ts';
import { eventEnvelope, newEventId, rawRequest } from '../../support/raw-http.ts';
import { provision, startServer, stopAndRemove, type StandaloneServer } from '../../support/standalone-server.ts';

const ORG = '/organizations/default';
const NOTICE = /<p class="notice[^"]*" role="status">/;

let server: StandaloneServer;
let owner: Awaited<ReturnType<typeof signedInPerson>>;
let issuePath: string;

beforeAll(async () => {
  server = await startServer();
  const p = await provision(server, 'Notices');
  const marker = `notice issue ${newEventId().slice(0, 8)}`;
  const sent = await rawRequest(`${server.url}/api/${p.projectId}/envelope/?sentry_key=${p.publicKey}`, {
    body: eventEnvelope({ event_id: newEventId(), message: marker }),
  });
  expect(sent.status).toBe(200);
  issuePath = `${ORG}/issues/${(await waitForIssue(server, p, marker)).shortId}`;
  owner = await signedInPerson(server, 'owner');
});
afterAll(async () => {
  if (server) await stopAndRemove(server);
});

describe('the notice named in the address', () => {
  it('is shown for a value the page knows, and for no other, Object members included', async () => {
    const pages: Array<[path: string, parameter: string, known: string]> = [
      [`${ORG}/projects/notices`, 'saved', 'created'],
      [`${ORG}/projects/notices/keys`, 'saved', 'key-added'],
      [`${ORG}/projects/notices/alert-rules`, 'saved', 'deleted'],
      [`${ORG}/projects/notices/source-maps`, 'saved', 'revoked'],
      [`${ORG}/settings/members`, 'done', 'removed'],
      [issuePath, 'done', 'resolve'],
      ['/account', 'saved', 'profile'],
    ];
    for (const [path, parameter, known] of pages) {
      const shown = await owner.client.get(`${path}?${parameter}=${known}`);
      expect([path, shown.status, NOTICE.test(shown.html)]).toEqual([path, 200, true]);
      for (const unknown of ['constructor', 'toString', '__proto__', 'nothing-of-the-kind']) {
        const page = await owner.client.get(`${path}?${parameter}=${unknown}`);
        expect([path, unknown, page.status, NOTICE.test(page.html)]).toEqual([path, unknown, 200, false]);
      }
    }
  });
});
