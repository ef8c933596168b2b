// Source maps with @sentry/browser in headless Chromium: a minified, Debug-ID-injected bundle
// (esbuild, then the real `sentry-cli sourcemaps inject` and `upload`) is served to a page that
// runs it; the error it throws reaches Errata with the minified frames and comes out of the
// dispatcher with the original files, lines and source.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  eventually,
  freePort,
  REPO_ROOT,
  runCliJson,
  runProcess,
  startServer,
  stopAndRemove,
  type StandaloneServer,
} from '../support/standalone-server.ts';

let server: StandaloneServer;
let pages: Server;
let pagesUrl: string;
let browser: Browser;
let work: string;
let dsn: string;
let reader: string;

const PAGE = (dsn: string) => `<!doctype html>
<html><head>
<script src="/sentry.js"></script>
<script>Sentry.init({ dsn: ${JSON.stringify(dsn)}, release: 'shop@1.0.0' });</script>
<script src="/app.js"></script>
</head><body></body></html>`;

beforeAll(async () => {
  server = await startServer();
  const project = await runCliJson<{ dsn: string }>(['createproject', '--name', 'shop'], server.env);
  dsn = project.dsn;
  reader = (await runCliJson<{ plaintext: string }>(['createtoken', '--role', 'read', '--project', 'shop'], server.env))
    .plaintext;
  const uploadToken = (await runCliJson<{ plaintext: string }>(['createuploadtoken', '--project', 'shop'], server.env)).plaintext;

  work = await mkdtemp(join(tmpdir(), 'errata-browser-maps-'));
  await mkdir(join(work, 'src'));
  await writeFile(
    join(work, 'src', 'price.js'),
    'export function priceOf(item) {\n  return item.price.amount * item.quantity;\n}\n',
  );
  await writeFile(
    join(work, 'src', 'main.js'),
    "import { priceOf } from './price.js';\nwindow.buy = function buy(items) {\n  return items.map(priceOf);\n};\n",
  );
  await build({
    entryPoints: [join(work, 'src', 'main.js')],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'iife',
    outfile: join(work, 'dist', 'app.js'),
    logLevel: 'silent',
  });
  const cli = join(REPO_ROOT, 'node_modules', '.bin', 'sentry-cli');
  const env = {
    ...process.env,
    SENTRY_URL: server.url,
    SENTRY_AUTH_TOKEN: uploadToken,
    SENTRY_ORG: 'any',
    SENTRY_PROJECT: 'shop',
    SENTRY_DISABLE_UPDATE_CHECK: '1',
  };
  for (const args of [
    ['sourcemaps', 'inject', join(work, 'dist')],
    ['sourcemaps', 'upload', '--wait', join(work, 'dist')],
  ]) {
    const result = await runProcess(cli, args, { env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
  }

  const sentryJs = (
    await build({
      stdin: { contents: "import * as Sentry from '@sentry/browser'; window.Sentry = Sentry;", resolveDir: REPO_ROOT },
      bundle: true,
      format: 'iife',
      write: false,
      logLevel: 'silent',
    })
  ).outputFiles[0]!.text;
  const appJs = await readFile(join(work, 'dist', 'app.js'), 'utf8');
  const port = await freePort();
  pages = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/sentry.js' || path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(path === '/app.js' ? appJs : sentryJs);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE(dsn));
  });
  await new Promise<void>((resolve) => pages.listen(port, '127.0.0.1', resolve));
  pagesUrl = `http://127.0.0.1:${port}`;
  browser = await chromium.launch({ executablePath: inject('chromium'), args: ['--no-sandbox', '--disable-gpu'] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => pages?.close(() => resolve()));
  await stopAndRemove(server);
  await rm(work, { recursive: true, force: true });
});

describe('@sentry/browser with an uploaded source map', () => {
  it('the error of the minified bundle is shown in original source', async () => {
    const page = await browser.newPage();
    await page.goto(pagesUrl);
    await page.evaluate(`(async () => {
      try { window.buy([{ quantity: 2 }]); } catch (error) { Sentry.captureException(error); }
      return Sentry.flush(10000);
    })()`);
    await page.close();
    const issue = await eventually(async () => {
      const response = await fetch(`${server.url}/api/v1/organizations/default/projects/shop/issues?status=all`, {
        headers: { authorization: `Bearer ${reader}` },
      });
      return ((await response.json()) as { issues: Array<{ shortId: string; culprit: string }> }).issues[0];
    }, 'the issue of the browser error');
    // The issue is recorded before its event is stored: wait for the event too.
    const latestEvent = await eventually(async () => {
      const detail = await fetch(`${server.url}/api/v1/organizations/default/issues/${issue.shortId}`, {
        headers: { authorization: `Bearer ${reader}` },
      });
      return ((await detail.json()) as { latestEvent: { payload: any } | null }).latestEvent ?? undefined;
    }, 'the stored event');
    const exception = latestEvent.payload.exception.values[0];
    const frames = exception.stacktrace.frames as Array<Record<string, any>>;
    const crash = frames.at(-1)!;
    expect(crash.filename).toMatch(/src\/price\.js$/);
    expect(crash).toMatchObject({ lineno: 2, context_line: '  return item.price.amount * item.quantity;' });
    expect(exception.raw_stacktrace.frames.at(-1).abs_path).toBe(`${pagesUrl}/app.js`);
    expect(issue.culprit).toContain('price');
  });
});
