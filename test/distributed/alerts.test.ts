// Alerts in the distributed mode: channels and rules through the mcp role's management API
// (stored in Postgres, secrets sealed with the shared ERRATA_SECRETS_KEY), events from the real
// @sentry/node through ingest and Kafka, alerts evaluated and sent by the dispatchers to a real
// HTTPS receiver on loopback, and the CLI against Postgres revealing the same secret.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyErrataWebhook } from '../../examples/webhook-receiver/verify-errata-webhook.ts';
import { startFullCluster, type Cluster } from '../support/distributed-cluster.ts';
import { startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.ts';
import { infraEnv } from '../support/infra-env.ts';
import type { RoleProcess } from '../support/role-process.ts';
import { apiRequest, eventually, REPO_ROOT, runCliJson, runProcess, type Provisioned } from '../support/standalone-server.ts';

let cluster: Cluster;
let mcp: RoleProcess;
let p: Provisioned;
let receiver: HttpsReceiver;
let caDir: string;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  caDir = await mkdtemp(join(tmpdir(), 'errata-ca-'));
  await writeFile(join(caDir, 'ca.pem'), receiver.caPem);
  ({ cluster, mcp, p } = await startFullCluster(infraEnv(), 'Alerted', {
    ERRATA_SECRETS_KEY: randomBytes(32).toString('hex'),
    ERRATA_WEBHOOK_ALLOW_HOSTS: 'localhost',
    ERRATA_WEBHOOK_CA_FILE: join(caDir, 'ca.pem'),
  }));
}, 180_000);
afterAll(async () => {
  const { exitCodes } = await cluster.destroy();
  await receiver.close();
  await rm(caDir, { recursive: true, force: true });
  expect(exitCodes).toEqual(exitCodes.map(() => 0));
});

const call = (method: string, path: string, body?: unknown) =>
  apiRequest(mcp, method, `/api/v1/organizations/${p.organization}${path}`, p.token, body);

describe('alerts, distributed', () => {
  it('a new issue reaches the receiver, signed with the channel secret every role and the CLI agree on', async () => {
    const created = await call('POST', '/alert-channels', { name: 'Ops', type: 'webhook', url: receiver.url });
    expect(created.status).toBe(201);
    const { channel, signingSecret } = created.body;
    const rule = await call('POST', `/projects/${p.projectSlug}/alert-rules`, {
      name: 'New issues',
      trigger: 'new_issue',
      channelIds: [channel.id],
    });
    expect(rule.status).toBe(201);
    const revealed = await runCliJson<{ signingSecret: string }>(['revealchannelsecret', String(channel.id)], cluster.env);
    expect(revealed.signingSecret).toBe(signingSecret);

    const sent = await runProcess(
      process.execPath,
      [
        'alert-events.cjs',
        p.dsn,
        'dist@1',
        'production',
        JSON.stringify([{ group: 'checkout', message: 'Checkout <failed> & retried' }]),
      ],
      { cwd: join(REPO_ROOT, 'test', 'clients', 'node') },
    );
    expect(sent.code, sent.stderr).toBe(0);
    const request = await eventually(async () => receiver.received[0], 'the new_issue alert', 60_000);
    const header = String(request.headers['x-errata-signature']);
    expect(verifyErrataWebhook({ secret: signingSecret, header, rawBody: request.rawBody })).toMatchObject({ ok: true });
    const payload = JSON.parse(request.rawBody.toString('utf8'));
    expect(payload).toMatchObject({
      kind: 'new_issue',
      title: 'Error: Checkout <failed> & retried',
      projectName: 'Alerted',
      ruleName: 'New issues',
      timesSeen: 1,
    });
    expect(request.rawBody.toString('utf8')).toContain('\\u003cfailed\\u003e \\u0026 retried');

    const deliveries = await eventually(async () => {
      const listed = await call('GET', `/alert-channels/${channel.id}/deliveries`);
      return listed.body.deliveries[0]?.status === 'delivered' ? listed.body.deliveries : undefined;
    }, 'the delivery recorded');
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0].attemptLog).toEqual([expect.objectContaining({ statusCode: 200, verdict: 'delivered' })]);
  });
});
