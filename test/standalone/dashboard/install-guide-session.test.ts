// SPEC's install guide is for "any organization member": besides an agent token, a person signed
// in to the dashboard may fetch it with their session cookie. The DSN is in it for roles that
// may read one (admin, owner); a member gets the placeholder and where to find it. The rest of
// /api/v1 still gives a cookie nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { provision, startServer, stopAndRemove, type Provisioned, type StandaloneServer } from '../../support/standalone-server.ts';

let server: StandaloneServer;
let provisioned: Provisioned;

beforeAll(async () => {
  server = await startServer();
  provisioned = await provision(server, 'Guide App');
});
afterAll(async () => {
  if (server) await stopAndRemove(server);
});

const cookieOf = (jar: Record<string, string>) =>
  Object.entries(jar)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');

async function guide(headers: Record<string, string>, project = provisioned.projectSlug) {
  const response = await fetch(`${server.url}/api/v1/organizations/default/projects/${project}/install/node.md`, { headers });
  return { status: response.status, text: await response.text() };
}

describe('the install guide for a signed-in person', () => {
  it('carries the DSN for an admin and a placeholder with where to find it for a member', async () => {
    const admin = await signedInPerson(server, 'admin');
    const forAdmin = await guide({ cookie: cookieOf(admin.client.jar) });
    expect(forAdmin.status).toBe(200);
    expect(forAdmin.text).toContain(provisioned.dsn);

    const member = await signedInPerson(server, 'member');
    const forMember = await guide({ cookie: cookieOf(member.client.jar) });
    expect(forMember.status).toBe(200);
    expect(forMember.text).not.toContain(provisioned.dsn);
    expect(forMember.text).toContain('The DSN is not shown: you are signed in as member, and reading a DSN needs the admin or owner role.');
    expect(forMember.text).toContain("an admin sees it on the project's page in the dashboard");
  });

  it('says which project is missing, and without a session or token answers 401', async () => {
    const member = await signedInPerson(server, 'member');
    const missing = await guide({ cookie: cookieOf(member.client.jar) }, 'no-such-project');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('no project \\"no-such-project\\" in organization \\"default\\"');
    expect((await guide({})).status).toBe(401);
    expect((await guide({ cookie: 'errata_session=not-a-session' })).status).toBe(401);
  });

  it('lets a bearer token decide alone when one is given, and opens no other /api/v1 route to the cookie', async () => {
    const admin = await signedInPerson(server, 'admin');
    const cookie = cookieOf(admin.client.jar);
    expect((await guide({ cookie, authorization: 'Bearer errata_agent_wrong' })).status).toBe(401);
    const projects = await fetch(`${server.url}/api/v1/organizations/default/projects`, { headers: { cookie } });
    expect(projects.status).toBe(401);
  });
});
