// Alerts end to end on a real standalone server: channels and rules through the management API
// and the CLI, events from the real @sentry/node, and deliveries to a real HTTPS receiver on
// loopback (self-signed, trusted through ERRATA_WEBHOOK_CA_FILE), each verified with the shipped
// verifier and, independently, with node:crypto.
import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyErrataWebhook } from '../../examples/webhook-receiver/verify-errata-webhook.ts';
import { startHttpsReceiver, type HttpsReceiver, type ReceivedRequest } from '../support/https-receiver.ts';
import { connectAgent } from '../support/mcp-client.ts';
import { PRIVATE_LITERAL_HOSTS } from '../support/private-receivers.ts';
import {
  apiRequest,
  eventually,
  provision,
  REPO_ROOT,
  runCli,
  runCliJson,
  runProcess,
  startServer,
  stopAndRemove,
  initializedDataDir,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

const CLIENT_DIR = join(REPO_ROOT, 'test', 'clients', 'node');
const ISSUE_ALERT_FIELDS = [
  'kind',
  'title',
  'body',
  'url',
  'level',
  'environment',
  'projectName',
  'issueShortId',
  'timesSeen',
  'location',
  'ruleName',
];

/** Every field SPEC §6 lists: a payload has no other. */
const SPEC_FIELDS = [...ISSUE_ALERT_FIELDS, 'digest'];

let receiver: HttpsReceiver;
let server: StandaloneServer;
let p: Provisioned;
let env: Record<string, string>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  const dataDir = await initializedDataDir();
  const caFile = join(dataDir, 'receiver-ca.pem');
  await writeFile(caFile, receiver.caPem);
  env = {
    // 127.0.0.2: a private IP literal allowed, which channels may then name.
    ERRATA_WEBHOOK_ALLOW_HOSTS: 'localhost,127.0.0.2',
    ERRATA_WEBHOOK_CA_FILE: caFile,
    ERRATA_WEBHOOK_RETRY_BASE_MS: '1000',
  };
  server = await startServer({ dataDir, env });
  p = await provision(server, 'Shop');
}, 120_000);
afterAll(async () => {
  await stopAndRemove(server);
  await receiver.close();
});

const call = (method: string, path: string, body?: unknown, token = p.token) => apiRequest(server, method, path, token, body);

const channels = () => `/api/v1/organizations/${p.organization}/alert-channels`;
const rules = (project = p.projectSlug) => `/api/v1/organizations/${p.organization}/projects/${project}/alert-rules`;

async function createChannel(name: string, url = receiver.url): Promise<{ id: number; secret: string }> {
  const created = await call('POST', channels(), { name, type: 'webhook', url });
  expect(created.status).toBe(201);
  return { id: created.body.channel.id, secret: created.body.signingSecret };
}

/** Verifies a request both ways; returns its parsed payload. */
function verified(request: ReceivedRequest, secret: string): Record<string, any> {
  const header = String(request.headers['x-errata-signature']);
  expect(verifyErrataWebhook({ secret, header, rawBody: request.rawBody })).toMatchObject({ ok: true });
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)!;
  const recomputed = createHmac('sha256', secret).update(`${t}.`).update(request.rawBody).digest('hex');
  expect(v1).toBe(recomputed);
  expect(Math.abs(Number(t) - Date.now() / 1000)).toBeLessThan(60);
  expect(request.headers['content-type']).toBe('application/json');
  expect(request.headers['user-agent']).toMatch(/^errata\/\d+\.\d+\.\d+/);
  const text = request.rawBody.toString('utf8');
  expect(text).not.toContain('\n');
  expect(text).not.toMatch(/[<>&]/);
  const payload = JSON.parse(text) as Record<string, any>;
  for (const field of Object.keys(payload)) expect(SPEC_FIELDS).toContain(field);
  return payload;
}

/** The requests that arrived since `from`, once there are `count` of them. */
async function received(from: number, count: number): Promise<ReceivedRequest[]> {
  return eventually(
    async () => (receiver.received.length - from >= count ? receiver.received.slice(from) : undefined),
    `${count} webhook request(s)`,
    30_000,
  );
}

describe('alert channels and rules through the management API', () => {
  it('refuses a URL that is not https://, and names what is wrong', async () => {
    for (const [url, message] of [
      ['http://hooks.example.com/x', /url must start with https:\/\//],
      ['https://user:pw@hooks.example.com/x', /must not carry a user or password/],
      ['not a url', /absolute URL/],
    ] as const) {
      const refused = await call('POST', channels(), { name: 'bad', type: 'webhook', url });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(message);
    }
    const noType = await call('POST', channels(), { name: 'bad', type: 'email', url: receiver.url });
    expect(noType.status).toBe(400);
    expect(noType.body.error.message).toMatch(/type/);
  });

  it('creates a channel with a 64-hex secret shown again by Reveal, never in listings; Send test carries only kind, title, body, url', async () => {
    const { id, secret } = await createChannel('Ops hook');
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const revealed = await call('GET', `${channels()}/${id}/secret`);
    expect(revealed.body.signingSecret).toBe(secret);
    const listed = await call('GET', channels());
    expect(listed.body.channels).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, name: 'Ops hook', type: 'webhook', url: receiver.url })]),
    );
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    const from = receiver.received.length;
    const test = await call('POST', `${channels()}/${id}/test`);
    expect(test.status).toBe(202);
    const [request] = await received(from, 1);
    const payload = verified(request!, secret);
    expect(Object.keys(payload).sort()).toEqual(['body', 'kind', 'title', 'url']);
    expect(payload.kind).toBe('test');

    const deliveries = await eventually(async () => {
      const listedDeliveries = await call('GET', `${channels()}/${id}/deliveries`);
      const [first] = listedDeliveries.body.deliveries as Array<Record<string, any>>;
      return first?.status === 'delivered' ? listedDeliveries.body.deliveries : undefined;
    }, 'the test delivery recorded as delivered');
    expect(deliveries[0]).toMatchObject({ kind: 'test', status: 'delivered', attempts: 1 });
    expect(deliveries[0].attemptLog).toEqual([expect.objectContaining({ statusCode: 200, verdict: 'delivered', error: null })]);
  });

  it('refuses a channel whose URL is a private, loopback or link-local address, unless its host is allowed', async () => {
    const problem = /url: its host .* is a private, loopback or link-local address.*ERRATA_WEBHOOK_ALLOW_HOSTS/;
    for (const host of PRIVATE_LITERAL_HOSTS) {
      const refused = await call('POST', channels(), { name: 'private', type: 'webhook', url: `https://${host}:8443/hooks` });
      expect([host, refused.status]).toEqual([host, 400]);
      expect(refused.body.error.message).toMatch(problem);
    }
    const { id } = await createChannel('Moved', `${receiver.url}?channel=moved`);
    const moved = await call('PATCH', `${channels()}/${id}`, { url: 'https://169.254.169.254/latest/meta-data' });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toMatch(problem);
    expect((await call('GET', `${channels()}/${id}`)).body.channel.url).toBe(`${receiver.url}?channel=moved`);
    const viaCli = await runCli(['createchannel', '--name', 'private', '--url', 'https://[::ffff:10.0.0.1]/hooks'], server.env);
    expect(viaCli.code).toBe(1);
    expect(viaCli.stderr).toMatch(problem);

    // An allowed host may be a private IP literal; a name is judged when it is sent to.
    const allowed = await call('POST', channels(), { name: 'allowed', type: 'webhook', url: 'https://127.0.0.2:8443/hooks' });
    expect(allowed.status).toBe(201);
    const named = await call('PATCH', `${channels()}/${id}`, { url: 'https://hooks.example.com/errata' });
    expect(named.status).toBe(200);
    await call('DELETE', `${channels()}/${allowed.body.channel.id}`);
    await call('DELETE', `${channels()}/${id}`);
  });

  it('Rotate signs the very next delivery with the new secret', async () => {
    const { id, secret: old } = await createChannel('Rotating');
    const rotated = await call('POST', `${channels()}/${id}/rotate`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.signingSecret as string;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh).not.toBe(old);
    expect((await call('GET', `${channels()}/${id}/secret`)).body.signingSecret).toBe(fresh);
    const from = receiver.received.length;
    await call('POST', `${channels()}/${id}/test`);
    const [request] = await received(from, 1);
    verified(request!, fresh);
    const header = String(request!.headers['x-errata-signature']);
    expect(verifyErrataWebhook({ secret: old, header, rawBody: request!.rawBody })).toMatchObject({ ok: false });
  });

  it("a rule's Send test is an issue alert for the sample issue TEST-1, to each of its channels", async () => {
    const { id, secret } = await createChannel('Rule test', `${receiver.url}?channel=rule-test`);
    const rule = await call('POST', rules(), { name: 'Checkout errors', trigger: 'new_issue', channelIds: [id] });
    const from = receiver.received.length;
    const tested = await call('POST', `${rules()}/${rule.body.rule.id}/test`);
    expect(tested.status).toBe(202);
    expect(tested.body.deliveries).toHaveLength(1);
    const [request] = await received(from, 1);
    const payload = verified(request!, secret);
    expect(Object.keys(payload).sort()).toEqual([...ISSUE_ALERT_FIELDS].sort());
    expect(payload).toMatchObject({ kind: 'test', issueShortId: 'TEST-1', ruleName: 'Checkout errors', projectName: 'Shop' });
    await call('DELETE', `${rules()}/${rule.body.rule.id}`);
  });

  it('validates rules: the settings each trigger needs, and channels of the organization only', async () => {
    const { id } = await createChannel('Rules check');
    const missing = await call('POST', rules(), { name: 'spike', trigger: 'frequent', channelIds: [id], threshold: 10 });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/windowMinutes: frequent needs windowMinutes/);
    const unknown = await call('POST', rules(), { name: 'x', trigger: 'new_issue', channelIds: [999_999] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/no alert channel 999999/);
    const extra = await call('POST', rules(), { name: 'x', trigger: 'new_issue', channelIds: [id], threshold: 3 });
    expect(extra.body.error.message).toMatch(/new_issue takes no threshold/);

    const created = await call('POST', rules(), {
      name: 'Spike',
      trigger: 'frequent',
      channelIds: [id],
      threshold: 10,
      windowMinutes: 5,
    });
    expect(created.status).toBe(201);
    const ruleId = created.body.rule.id as number;
    const patched = await call('PATCH', `${rules()}/${ruleId}`, { threshold: 50, environment: 'production' });
    expect(patched.body.rule).toMatchObject({ threshold: 50, windowMinutes: 5, environment: 'production', trigger: 'frequent' });
    const badPatch = await call('PATCH', `${rules()}/${ruleId}`, { windowMinutes: null });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.message).toMatch(/frequent needs windowMinutes/);
    expect((await call('GET', `${rules()}/${ruleId}`)).body.rule.windowMinutes).toBe(5);
    // A new trigger starts from its own settings; the old trigger's do not carry over.
    const retriggered = await call('PATCH', `${rules()}/${ruleId}`, { trigger: 'new_issue' });
    expect(retriggered.body.rule).toMatchObject({
      trigger: 'new_issue',
      threshold: null,
      windowMinutes: null,
      environment: 'production',
    });
    const refused = await call('PATCH', `${rules()}/${ruleId}`, { threshold: 3 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/threshold: new_issue takes no threshold \(leave it out, or send null\)/);
    expect((await call('DELETE', `${rules()}/${ruleId}`)).status).toBe(200);
    expect((await call('GET', `${rules()}/${ruleId}`)).status).toBe(404);
    expect((await call('GET', `${rules()}/abc`)).status).toBe(400);
  });

  it('refuses a key it does not know in any body by name, listing the accepted ones, and changes nothing', async () => {
    const { id } = await createChannel('Strict bodies');
    const refusals: Array<[string, string, Record<string, unknown>, string, string]> = [
      ['POST', channels(), { name: 'x', type: 'webhook', url: receiver.url, secret: 's' }, 'secret', 'name, type, url'],
      ['PATCH', `${channels()}/${id}`, { name: 'renamed', enabled: false }, 'enabled', 'name, url, digest'],
      ['PATCH', `${channels()}/${id}`, { digest: { hour: 9, timeZone: 'UTC', day: 'monday' } }, 'day', 'hour, timeZone'],
      ['POST', `${channels()}/${id}/rotate`, { keepOld: true }, 'keepOld', 'takes no keys'],
      ['POST', `${channels()}/${id}/test`, { kind: 'issue' }, 'kind', 'takes no keys'],
      [
        'POST',
        rules(),
        { name: 'r', trigger: 'new_issue', channelIds: [id], environments: ['production'] },
        'environments',
        'name, trigger, channelIds, environment, minLevel',
      ],
    ];
    for (const [method, path, body, key, accepted] of refusals) {
      const refused = await call(method, path, body);
      expect(refused.status, `${method} ${path} ${key}`).toBe(400);
      expect(refused.body.error.message).toContain(`unknown key "${key}"`);
      expect(refused.body.error.message).toContain(accepted);
    }
    const rule = await call('POST', rules(), { name: 'Strict rule', trigger: 'new_issue', channelIds: [id] });
    const patched = await call('PATCH', `${rules()}/${rule.body.rule.id}`, { name: 'renamed', muted: true });
    expect(patched.status).toBe(400);
    expect(patched.body.error.message).toContain('unknown key "muted"');
    const ruleTest = await call('POST', `${rules()}/${rule.body.rule.id}/test`, { channelIds: [id] });
    expect(ruleTest.status).toBe(400);
    expect(ruleTest.body.error.message).toContain('unknown key "channelIds"');
    expect((await call('GET', `${rules()}/${rule.body.rule.id}`)).body.rule.name).toBe('Strict rule');
    expect((await call('GET', `${channels()}/${id}`)).body.channel).toMatchObject({ name: 'Strict bodies', digest: null });
    expect((await call('GET', channels())).body.channels.map((c: { name: string }) => c.name)).not.toContain('x');
    // An empty body, or {}, is still fine where none is taken (Send test is left out: its
    // delivery would reach the receiver the other tests count).
    expect((await call('POST', `${channels()}/${id}/rotate`, {})).status).toBe(200);
    expect((await call('POST', `${channels()}/${id}/rotate`)).status).toBe(200);
    await call('DELETE', `${rules()}/${rule.body.rule.id}`);
    await call('DELETE', `${channels()}/${id}`);
  });

  it('stores a NUL or a lone surrogate in a name as U+FFFD (a NUL answered 500), and refuses unknown query parameters', async () => {
    const channel = await call('POST', channels(), { name: 'Odd \u0000 \ud800', type: 'webhook', url: receiver.url });
    expect(channel.status).toBe(201);
    expect(channel.body.channel.name).toBe('Odd \ufffd \ufffd');
    const id = channel.body.channel.id as number;
    const rule = await call('POST', rules(), { name: 'Rule \u0000', trigger: 'new_issue', channelIds: [id] });
    expect(rule.status).toBe(201);
    expect(rule.body.rule.name).toBe('Rule \ufffd');
    const renamed = await call('PATCH', `${channels()}/${id}`, { name: '\u0000' });
    expect(renamed.body.channel.name).toBe('\ufffd');

    const deliveries = await call('GET', `${channels()}/${id}/deliveries?limit=5&status=failed`);
    expect(deliveries.status).toBe(400);
    expect(deliveries.body.error.message).toBe('unknown query parameter "status"; the accepted query parameters are limit');
    for (const path of [channels(), `${channels()}/${id}`, rules(), `${rules()}/${rule.body.rule.id}`]) {
      const refused = await call('GET', `${path}?project=elsewhere`);
      expect([path, refused.status]).toEqual([path, 400]);
      expect(refused.body.error.message).toBe('unknown query parameter "project"; this takes no query parameters');
    }
    // Refused before anything is done: the channel is still there.
    expect((await call('DELETE', `${channels()}/${id}?force=true`)).status).toBe(400);
    expect((await call('GET', `${channels()}/${id}`)).status).toBe(200);
    await call('DELETE', `${rules()}/${rule.body.rule.id}`);
    await call('DELETE', `${channels()}/${id}`);
  });

  it('is for admin tokens; channels for organization-wide ones; other organizations see nothing', async () => {
    const mint = async (args: string[]) =>
      (await runCliJson<{ plaintext: string }>(['createtoken', ...args], server.env)).plaintext;
    const triage = await mint(['--role', 'triage', '--name', 'alerts-triage']);
    const projectAdmin = await mint(['--role', 'admin', '--project', p.projectSlug, '--name', 'alerts-project-admin']);
    const { id } = await createChannel('Scoped');
    expect((await call('GET', channels(), undefined, triage)).status).toBe(403);
    expect((await call('GET', rules(), undefined, triage)).status).toBe(403);
    expect((await call('GET', channels(), undefined, projectAdmin)).status).toBe(200);
    const refused = await call('GET', `${channels()}/${id}/secret`, undefined, projectAdmin);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/organization-wide admin token/);
    expect((await call('POST', rules(), { name: 'ok', trigger: 'new_issue', channelIds: [id] }, projectAdmin)).status).toBe(201);
    expect((await call('GET', `/api/v1/organizations/elsewhere/alert-channels`)).status).toBe(404);
    expect((await call('GET', channels(), undefined, 'errata_agent_nope')).status).toBe(401);
  });

  it('the CLI manages the same channels and rules', async () => {
    const created = await runCliJson<{ channel: { id: number }; signingSecret: string }>(
      ['createchannel', '--name', 'From CLI', '--url', receiver.url],
      server.env,
    );
    const listed = await call('GET', `${channels()}/${created.channel.id}`);
    expect(listed.body.channel.name).toBe('From CLI');
    const revealed = await runCliJson<{ signingSecret: string }>(['revealchannelsecret', String(created.channel.id)], server.env);
    expect(revealed.signingSecret).toBe(created.signingSecret);
    const rule = await runCliJson<{ rule: { id: number; trigger: string; milestones: number[] } }>(
      [
        'createrule',
        '--project',
        p.projectSlug,
        '--name',
        'Milestones',
        '--trigger',
        'milestone',
        '--channel',
        String(created.channel.id),
        '--milestones',
        '100,5',
      ],
      server.env,
    );
    expect(rule.rule).toMatchObject({ trigger: 'milestone', milestones: [5, 100] });
    const viaApi = await call('GET', rules());
    expect(viaApi.body.rules.map((r: { id: number }) => r.id)).toContain(rule.rule.id);
    const filtered = await runCliJson<{ rule: { environment: string | null } }>(
      ['updaterule', String(rule.rule.id), '--project', p.projectSlug, '--environment', 'production'],
      server.env,
    );
    expect(filtered.rule.environment).toBe('production');
    const unfiltered = await runCliJson<{ rule: { environment: string | null; milestones: number[] } }>(
      ['updaterule', String(rule.rule.id), '--project', p.projectSlug, '--no-environment'],
      server.env,
    );
    expect(unfiltered.rule).toMatchObject({ environment: null, milestones: [5, 100] });
    await runCliJson(['deleterule', String(rule.rule.id), '--project', p.projectSlug], server.env);
    const conflicting = await runCli(
      ['updatechannel', String(created.channel.id), '--digest-time-zone', 'Asia/Tokyo'],
      server.env,
    );
    expect(conflicting.code).toBe(1);
    expect(conflicting.stderr).toContain('--digest-time-zone needs --digest-hour');
    const digest = await runCliJson<{ channel: { digest: unknown } }>(
      ['updatechannel', String(created.channel.id), '--digest-hour', '9', '--digest-time-zone', 'Europe/Berlin'],
      server.env,
    );
    expect(digest.channel.digest).toEqual({ hour: 9, timeZone: 'Europe/Berlin' });
    // The hour alone keeps the channel's zone (it became UTC before).
    const earlier = await runCliJson<{ channel: { digest: unknown } }>(
      ['updatechannel', String(created.channel.id), '--digest-hour', '8'],
      server.env,
    );
    expect(earlier.channel.digest).toEqual({ hour: 8, timeZone: 'Europe/Berlin' });
    await runCliJson(['deletechannel', String(created.channel.id)], server.env);
    expect((await call('GET', `${channels()}/${created.channel.id}`)).status).toBe(404);
  });
});

describe('triggers', () => {
  let shop: Provisioned;
  let secret: string;
  const hook = () => `${receiver.url}?channel=triggers`;
  const alerts = () => receiver.received.filter((r) => r.url.endsWith('?channel=triggers'));

  /** Waits for `count` more alerts, then a while longer so that one too many would show. */
  async function nextAlerts(from: number, count: number): Promise<Array<Record<string, any>>> {
    const arrived = () =>
      alerts()
        .slice(from)
        .map((r) => JSON.parse(r.rawBody.toString('utf8')).kind as string);
    await eventually(async () => (arrived().length >= count ? true : undefined), `${count} alert(s)`).catch((error: Error) => {
      throw new Error(`${error.message}; arrived: ${arrived().join(', ') || 'none'}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return alerts()
      .slice(from)
      .map((request) => ({ ...verified(request, secret), raw: request.rawBody.toString('utf8') }));
  }
  const fired = (payloads: Array<Record<string, any>>) => payloads.map((a) => `${a.kind}/${a.ruleName}`).sort();

  async function send(release: string, environment: string, events: Array<Record<string, string>>): Promise<void> {
    const result = await runProcess(
      process.execPath,
      ['alert-events.cjs', shop.dsn, release, environment, JSON.stringify(events)],
      { cwd: CLIENT_DIR },
    );
    expect(result.code, result.stderr).toBe(0);
  }

  beforeAll(async () => {
    shop = await provision(server, 'Triggers');
    const created = await call('POST', channels(), { name: 'Triggers', type: 'webhook', url: hook() });
    secret = created.body.signingSecret;
    const channelIds = [created.body.channel.id];
    for (const rule of [
      { name: 'New', trigger: 'new_issue' },
      { name: 'Fatal only', trigger: 'new_issue', minLevel: 'fatal' },
      { name: 'Back', trigger: 'regression' },
      { name: 'Spike', trigger: 'frequent', threshold: 2, windowMinutes: 10_080 },
      { name: 'People', trigger: 'many_users', threshold: 1 },
      { name: 'Three', trigger: 'milestone', milestones: [3] },
      { name: 'Canary every time', trigger: 'every_occurrence', environment: 'canary' },
      { name: 'Releases', trigger: 'new_release' },
    ]) {
      const response = await call('POST', rules(shop.projectSlug), { ...rule, channelIds });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    }
  });

  it('each trigger fires on its own event, once, with the fields SPEC lists', async () => {
    const message = '<script>alert(1)</script> & checkout failed';
    let from = alerts().length;
    await send('shop@1', 'production', [{ group: 'checkout', message, user: 'u1' }]);
    const first = await nextAlerts(from, 2);
    expect(fired(first)).toEqual(['new_issue/New', 'new_release/Releases']);
    const newIssue = first.find((a) => a.kind === 'new_issue')!;
    expect(
      Object.keys(newIssue)
        .filter((k) => k !== 'raw')
        .sort(),
    ).toEqual([...ISSUE_ALERT_FIELDS].sort());
    expect(newIssue).toMatchObject({
      title: `Error: ${message}`,
      level: 'error',
      environment: 'production',
      projectName: 'Triggers',
      issueShortId: expect.stringMatching(/^[A-Z0-9]+-\d+$/),
      timesSeen: 1,
      location: expect.any(String),
      body: 'A new issue was seen for the first time.',
    });
    expect(newIssue.url).toBe(`${server.url}/organizations/${p.organization}/issues/${newIssue.issueShortId}`);
    // The encoder escapes markup: the event's text arrives as \u003cscript\u003e ... \u0026.
    expect(newIssue.raw).toContain('\\u003cscript\\u003ealert(1)\\u003c/script\\u003e \\u0026 checkout failed');
    const release = first.find((a) => a.kind === 'new_release')!;
    expect(
      Object.keys(release)
        .filter((k) => k !== 'raw')
        .sort(),
    ).toEqual(['body', 'kind', 'projectName', 'ruleName', 'title', 'url']);
    expect(release.title).toBe('New release shop@1 in Triggers');

    from = alerts().length;
    // Two different messages: the SDK's Dedupe integration drops an exact repeat.
    await send('shop@1', 'production', [
      { group: 'checkout', message: `${message} (2)`, user: 'u2' },
      { group: 'checkout', message: `${message} (3)`, user: 'u2' },
    ]);
    const second = await nextAlerts(from, 3);
    expect(fired(second)).toEqual(['frequent/Spike', 'many_users/People', 'milestone/Three']);
    expect(second.find((a) => a.kind === 'milestone')).toMatchObject({ timesSeen: 3, body: 'The issue reached 3 events.' });
    expect(second.find((a) => a.kind === 'frequent')!.body).toBe('More than 2 events in 10080 minutes.');

    from = alerts().length;
    await send('shop@1', 'canary', [{ group: 'checkout', message, user: 'u1' }]);
    const third = await nextAlerts(from, 1);
    expect(fired(third)).toEqual(['every_occurrence/Canary every time']);
    expect(third[0]).toMatchObject({ environment: 'canary', timesSeen: 4 });

    const agent = await connectAgent(server.url, shop.token);
    try {
      const resolved = await agent.call('update_issue', { shortId: newIssue.issueShortId, action: 'resolve' });
      expect(resolved.isError, resolved.text).toBe(false);
    } finally {
      await agent.close();
    }
    from = alerts().length;
    await send('shop@2', 'production', [{ group: 'checkout', message, user: 'u1' }]);
    const fourth = await nextAlerts(from, 2);
    expect(fired(fourth)).toEqual(['new_release/Releases', 'regression/Back']);
    expect(fourth.find((a) => a.kind === 'regression')).toMatchObject({
      issueShortId: newIssue.issueShortId,
      timesSeen: 5,
      body: 'A resolved issue came back in release shop@2.',
    });
  });
});

describe('delivery', () => {
  it('a restart in the middle of a retry schedule loses nothing', async () => {
    // A real alert: a test is tried once, never retried.
    const flaky = await provision(server, 'Flaky');
    const { id, secret } = await createChannel('Flaky', `${receiver.url}?channel=flaky`);
    const rule = await call('POST', rules(flaky.projectSlug), { name: 'Flaky new', trigger: 'new_issue', channelIds: [id] });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    receiver.script.push(503);
    const sent = await runProcess(
      process.execPath,
      [
        'alert-events.cjs',
        flaky.dsn,
        'flaky@1',
        'production',
        JSON.stringify([{ group: 'flaky', message: 'flaky failed', user: 'u1' }]),
      ],
      { cwd: CLIENT_DIR },
    );
    expect(sent.code, sent.stderr).toBe(0);
    await eventually(async () => {
      const listed = await call('GET', `${channels()}/${id}/deliveries`);
      return listed.body.deliveries[0]?.attempts === 1 ? true : undefined;
    }, 'the first, refused attempt');
    // Killed outright, with the retry due in about a second: it must come back from the disk.
    await server.kill();
    server = await startServer({ dataDir: server.dataDir, port: server.port, env });
    const delivery = await eventually(async () => {
      const listed = await call('GET', `${channels()}/${id}/deliveries`);
      const [first] = listed.body.deliveries as Array<Record<string, any>>;
      return first?.status === 'delivered' ? first : undefined;
    }, 'the delivery after the restart');
    expect(delivery.attemptLog.map((a: { statusCode: number; verdict: string }) => [a.statusCode, a.verdict])).toEqual([
      [503, 'retry'],
      [200, 'delivered'],
    ]);
    const requests = receiver.received.filter((r) => r.url.endsWith('channel=flaky'));
    expect(requests).toHaveLength(2);
    expect(requests[1]!.rawBody.equals(requests[0]!.rawBody)).toBe(true);
    verified(requests[1]!, secret);
  });
});
