// Renaming and deleting a project through the management API and the CLI, on a running standalone
// server: an admin token of the organization (or of the project) renames it (the slug stays) or
// deletes it, the server's ingest refuses its DSN at once, its tokens stop working, the API and
// the CLI ask for the slug twice, the server's log names who deleted it, and the projects left
// are untouched. (The dashboard's form: dashboard/projects-page.test.ts; the purge of the stored
// data: services/dispatcher/project-purge.test.ts.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dsnStatus } from '../support/dsn-status.ts';
import { logLines } from '../support/log-lines.ts';
import {
  apiRequest,
  provision,
  runCli,
  runCliJson,
  startServer,
  stopAndRemove,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
beforeAll(async () => {
  // At info, where the server logs who deleted a project (the suites' servers log warnings only).
  server = await startServer({ env: { ERRATA_LOG_LEVEL: 'info' } });
});
afterAll(() => stopAndRemove(server));

const base = '/api/v1/organizations/default/projects';

/** The status ingest answers an event sent with the DSN. */
const ingestStatus = (dsn: string) => dsnStatus(server.url, dsn);

async function token(role: string, project?: string): Promise<string> {
  const args = ['createtoken', '--role', role, '--name', `${role}-${randomUUID().slice(0, 8)}`];
  return (await runCliJson<{ plaintext: string }>([...args, ...(project ? ['--project', project] : [])], server.env)).plaintext;
}

const projectSlugs = async () =>
  (await runCliJson<{ projects: Array<{ slug: string }> }>(['listprojects'], server.env)).projects.map((p) => p.slug);

describe('renaming a project', () => {
  it('renames it through the API and the CLI, keeping its slug; a blank name or another field is refused', async () => {
    const project = await provision(server, 'Rename Me');
    const path = `${base}/rename-me`;
    const names = async () =>
      (await runCliJson<{ projects: Array<{ slug: string; name: string }> }>(['listprojects'], server.env)).projects.find(
        (p) => p.slug === 'rename-me',
      )?.name;
    expect((await apiRequest(server, 'PUT', path, await token('triage'), { name: 'No' })).status).toBe(403);
    const renamed = await apiRequest(server, 'PUT', path, project.token, { name: '  Storefront  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ project: { slug: 'rename-me', name: 'Storefront' } });
    expect(await names()).toBe('Storefront');
    const blank = await apiRequest(server, 'PUT', path, project.token, { name: '   ' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.message).toContain('a project needs a name of 1 to 100 characters');
    const other = await apiRequest(server, 'PUT', path, project.token, { name: 'X', slug: 'x' });
    expect(other.status).toBe(400);
    expect(await names()).toBe('Storefront');

    const cli = await runCli(['renameproject', '--project', 'rename-me', '--name', 'Web Shop'], server.env);
    expect(cli.stderr).toBe('');
    expect(cli.stdout.trim()).toBe('Project "rename-me" is now named "Web Shop".');
    expect(await names()).toBe('Web Shop');
  });
});

describe('deleting a project through the API', () => {
  it('needs an admin token that sees the project, then deletes it: DSN refused at once, its tokens gone', async () => {
    const doomed = await provision(server, 'Api Doomed');
    const kept = await provision(server, 'Api Kept');
    const scoped = await token('read', 'api-doomed');
    const keptAdmin = await token('admin', 'api-kept');
    expect(await ingestStatus(doomed.dsn)).toBe(200);

    expect((await apiRequest(server, 'DELETE', `${base}/api-doomed`, undefined)).status).toBe(401);
    const triage = await apiRequest(server, 'DELETE', `${base}/api-doomed`, await token('triage'));
    expect(triage.status).toBe(403);
    expect(triage.body.error.message).toContain('role admin');
    // A token limited to another project sees no such project.
    expect((await apiRequest(server, 'DELETE', `${base}/api-doomed`, keptAdmin)).status).toBe(404);
    expect((await apiRequest(server, 'DELETE', `${base}/api-doomed?force=1`, doomed.token)).status).toBe(400);
    // The slug again, as the dashboard and the CLI ask for it: nothing of the project comes back.
    const unconfirmed = await apiRequest(server, 'DELETE', `${base}/api-doomed`, doomed.token);
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body.error.message).toBe(
      'no ?confirm: add ?confirm=api-doomed to delete the project with everything in it; nothing was deleted',
    );
    const mistyped = await apiRequest(server, 'DELETE', `${base}/api-doomed?confirm=api-kept`, doomed.token);
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.error.message).toMatch(/^\?confirm=api-kept, not the project's slug: add \?confirm=api-doomed /);
    expect(await ingestStatus(doomed.dsn)).toBe(200);
    expect(server.output()).not.toContain('project deleted');

    const deleted = await apiRequest(server, 'DELETE', `${base}/api-doomed?confirm=api-doomed`, doomed.token);
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted).toEqual({ organization: 'default', project: 'api-doomed' });
    expect(deleted.body.effects).toContain('its stored events, logs and source maps are erased within 15 minutes');
    expect(await ingestStatus(doomed.dsn)).toBe(403);
    // The server's log says which token deleted it.
    const logged = logLines(server.output(), 'project deleted');
    expect(logged).toEqual([
      expect.objectContaining({
        organization: 'default',
        project: 'api-doomed',
        projectId: doomed.projectId,
        byToken: 'admin-api-doomed',
      }),
    ]);
    expect((await apiRequest(server, 'DELETE', `${base}/api-doomed?confirm=api-doomed`, doomed.token)).status).toBe(404);
    expect((await apiRequest(server, 'GET', `${base}/api-doomed/issues`, scoped)).status).toBe(401);
    expect(await projectSlugs()).not.toContain('api-doomed');

    expect(await ingestStatus(kept.dsn)).toBe(200);
    expect((await apiRequest(server, 'GET', `${base}/api-kept/issues`, keptAdmin)).status).toBe(200);
  });
});

describe('errata deleteproject', () => {
  it('deletes the project only when --confirm repeats its slug, and the running server refuses its DSN at once', async () => {
    const doomed = await provision(server, 'Cli Doomed');
    expect(await ingestStatus(doomed.dsn)).toBe(200);
    const mistyped = await runCli(['deleteproject', '--project', 'cli-doomed', '--confirm', 'cli-doom'], server.env);
    expect(mistyped.code).not.toBe(0);
    expect(mistyped.stderr).toContain("--confirm must repeat the project's slug");
    expect(await projectSlugs()).toContain('cli-doomed');

    const deleted = await runCli(['deleteproject', '--project', 'cli-doomed', '--confirm', 'cli-doomed'], server.env);
    expect(deleted.stderr).toBe('');
    expect(deleted.stdout).toMatch(/^Deleted project "cli-doomed" of organization "default": its issues, DSN keys/);
    expect(await projectSlugs()).not.toContain('cli-doomed');
    expect(await ingestStatus(doomed.dsn)).toBe(403);

    const again = await runCli(['deleteproject', '--project', 'cli-doomed', '--confirm', 'cli-doomed'], server.env);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('cli-doomed');
  });
});
