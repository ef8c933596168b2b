// @sentry/browser, unmodified, in a page in headless Chromium, posting cross-origin to a real
// standalone server with query-string authentication: plain CORS requests, and requests that
// need a preflight (a custom transport header forces one).
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { listIssues, waitForIssue, waitForLatestEvent, waitForLogs } from '../support/issues.ts';
import { metricTotal } from '../support/metrics.ts';
import {
  freePort,
  provision,
  REPO_ROOT,
  startServer,
  stopAndRemove,
  type Provisioned,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
let p: Provisioned;
let pages: Server;
let pagesUrl: string;
let browser: Browser;

// The page sets its parameters inline; the application code comes from /app.js, as in a real app.
const PAGE = (dsn: string, marker: string, preflight: boolean, noUserInfo: boolean) => `<!doctype html>
<html><head>
<script>window.TEST = ${JSON.stringify({ dsn, marker, preflight, noUserInfo })};</script>
<script src="/sentry.js"></script>
<script src="/app.js"></script>
</head><body></body></html>`;

const APP_JS = `
Sentry.init({
  dsn: TEST.dsn,
  release: 'browser-client@' + TEST.marker,
  environment: 'e2e',
  enableLogs: true,
  dataCollection: TEST.noUserInfo ? { userInfo: false } : undefined,
  transportOptions: TEST.preflight ? { headers: { 'x-errata-test': '1' } } : undefined,
});
Sentry.setUser({ id: 'browser-user-' + TEST.marker });
function parseTodo(todo) {
  if (!todo.title) throw new TypeError('Todo ' + todo.id + ' of ' + TEST.marker + ' has no title');
  return todo;
}
function loadTodo(id) { return parseTodo({ id: id }); }
window.run = async function () {
  for (var i = 0; i < 3; i++) {
    try { loadTodo(4000 + i); } catch (e) { Sentry.captureException(e); }
  }
  Sentry.captureMessage('Browser message ' + TEST.marker, 'warning');
  Sentry.logger.info('Browser log ' + TEST.marker, { page: 'todos', visits: 3 });
  setTimeout(function () { throw new RangeError('Uncaught in browser ' + TEST.marker); });
  await new Promise(function (resolve) { setTimeout(resolve, 200); });
  return Sentry.flush(10000);
};
`;

/** How many CORS preflights the server answered, from its own metrics. */
async function preflightsAnswered(): Promise<number> {
  return metricTotal(server, 'errata_http_requests_total', { method: 'OPTIONS', status: '200' });
}

beforeAll(async () => {
  server = await startServer();
  p = await provision(server, 'Browser App');
  const bundle = await build({
    stdin: { contents: "import * as Sentry from '@sentry/browser'; window.Sentry = Sentry;", resolveDir: REPO_ROOT },
    bundle: true,
    format: 'iife',
    write: false,
    logLevel: 'silent',
  });
  const sentryJs = bundle.outputFiles[0]!.text;
  // The page comes from another origin than Errata, so every SDK request is cross-origin.
  const port = await freePort();
  pages = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/sentry.js' || url.pathname === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(url.pathname === '/app.js' ? APP_JS : sentryJs);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    const has = (name: string) => url.searchParams.has(name);
    res.end(PAGE(p.dsn, url.searchParams.get('marker') ?? 'none', has('preflight'), has('noUserInfo')));
  });
  await new Promise<void>((resolve) => pages.listen(port, '127.0.0.1', resolve));
  pagesUrl = `http://127.0.0.1:${port}`;
  browser = await chromium.launch({
    executablePath: inject('chromium'),
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => pages?.close(() => resolve()));
  await stopAndRemove(server);
});

async function runPage(marker: string, preflight: boolean, noUserInfo = false) {
  const page = await browser.newPage();
  const failed: string[] = [];
  const answered: number[] = [];
  page.on('requestfailed', (request) => {
    if (request.url().startsWith(server.url)) failed.push(`${request.method()} ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on('request', (request) => {
    if (request.url().startsWith(server.url)) expect(new URL(request.url()).searchParams.get('sentry_key')).toBe(p.publicKey);
  });
  page.on('response', (response) => {
    if (!response.url().startsWith(server.url)) return;
    answered.push(response.status());
  });
  await page.goto(`${pagesUrl}/?marker=${marker}${preflight ? '&preflight=1' : ''}${noUserInfo ? '&noUserInfo=1' : ''}`);
  expect(await page.evaluate('window.run()')).toBe(true);
  await page.close();
  return { failed, answered };
}

describe('@sentry/browser in Chromium', () => {
  it('sends exceptions, messages, uncaught errors and logs cross-origin with query-string auth', async () => {
    const m = `m${randomUUID().slice(0, 8)}`;
    const result = await runPage(m, false);
    expect(result.failed).toEqual([]);
    expect(result.answered.length).toBeGreaterThan(0);
    expect(result.answered.every((status) => status === 200)).toBe(true);

    const issue = await waitForIssue(server, p, `of ${m} has no title`, 3);
    expect(issue).toMatchObject({
      title: `TypeError: Todo 4002 of ${m} has no title`,
      culprit: 'parseTodo(app)',
      count: 3,
      userCount: 1,
      environments: ['e2e'],
      lastRelease: `browser-client@${m}`,
    });
    const message = await waitForIssue(server, p, `Browser message ${m}`);
    expect(message).toMatchObject({ level: 'warning' });
    // By default the SDK (v11) asks for the address the event came from (sdk.settings.infer_ip "auto").
    const { payload } = await waitForLatestEvent<{ payload: { user: unknown } }>(server, p, message.shortId);
    expect(payload.user).toEqual({ id: `browser-user-${m}`, ip_address: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/) });
    expect(await waitForIssue(server, p, `Uncaught in browser ${m}`)).toMatchObject({
      title: `RangeError: Uncaught in browser ${m}`,
    });
    const [log] = await waitForLogs(server, p, `query=Browser log ${m}`, 1);
    expect(log).toMatchObject({ level: 'info', body: `Browser log ${m}` });
    expect(log!.attributes.visits).toEqual({ type: 'integer', value: 3 });
  });

  it('keeps no address when the app collects no user info (sdk.settings.infer_ip "never")', async () => {
    const m = `m${randomUUID().slice(0, 8)}`;
    expect((await runPage(m, false, true)).failed).toEqual([]);
    const message = await waitForIssue(server, p, `Browser message ${m}`);
    const { payload } = await waitForLatestEvent<{ payload: { user: unknown } }>(server, p, message.shortId);
    expect(payload.user).toEqual({ id: `browser-user-${m}` });
  });

  it('answers the CORS preflight a custom transport header causes', async () => {
    const m = `m${randomUUID().slice(0, 8)}`;
    const before = await preflightsAnswered();
    // Same code, same stack: these events join the issue of the first test.
    const earlier = (await listIssues(server, p)).find((i) => i.title.startsWith('TypeError: Todo'))?.count ?? 0;
    const result = await runPage(m, true);
    expect(result.failed).toEqual([]);
    expect(await preflightsAnswered()).toBeGreaterThan(before);
    expect((await waitForIssue(server, p, `of ${m} has no title`, earlier + 3)).count).toBe(earlier + 3);
  });
});
