// The dashboard at the HTTP level: the exact security headers on every kind of dashboard
// response (and none on the agent surfaces), the assets' caching and compression, and how many
// bytes a first visit to /login costs.
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson } from '../../support/dashboard-people.ts';
import { startServer, stopAndRemove, type StandaloneServer } from '../../support/standalone-server.ts';

let server: StandaloneServer;
/** A member's session cookie, for the pages behind sign-in. */
let session: string;

beforeAll(async () => {
  server = await startServer();
  const member = await signedInPerson(server, 'member');
  session = Object.entries(member.client.jar)
    .map(([name, value]) => `${name}=${value}`)
    .join('; ');
});
afterAll(async () => {
  if (server) await stopAndRemove(server);
});

interface Exchange {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as sent: still gzipped when Content-Encoding says so. */
  bytes: Buffer;
}

/** node:http, not fetch: fetch decompresses, and the bytes on the wire are what is measured. */
function exchange(path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const text = (response: Exchange) =>
  (response.headers['content-encoding'] === 'gzip' ? gunzipSync(response.bytes) : response.bytes).toString('utf8');

async function assetUrls(): Promise<{ script: string; style: string }> {
  const page = text(await exchange('/login'));
  return {
    script: /<script src="(\/assets\/app\.[0-9a-f]{12}\.js)"/.exec(page)![1]!,
    style: /<link rel="stylesheet" href="(\/assets\/app\.[0-9a-f]{12}\.css)"/.exec(page)![1]!,
  };
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

describe('the security headers', () => {
  it('are on every dashboard response, exactly', async () => {
    const { script, style } = await assetUrls();
    const responses = {
      'GET /': await exchange('/'),
      'GET /login': await exchange('/login'),
      'POST /login': await exchange('/login', { method: 'POST' }),
      'GET /account': await exchange('/account'),
      'GET /setup with a wrong code': await exchange('/setup?code=wrong'),
      'GET an organization page, signed out': await exchange('/organizations/default/issues/NOPE-1'),
      'GET an unknown organization page': await exchange('/organizations/default/nothing-here', { headers: { cookie: session } }),
      'GET /organizations': await exchange('/organizations', { headers: { cookie: session } }),
      'GET the script': await exchange(script),
      'GET the stylesheet': await exchange(style),
      'GET an unknown asset': await exchange('/assets/app.000000000000.js'),
    };
    for (const [what, response] of Object.entries(responses)) {
      const headers = Object.fromEntries(Object.keys(SECURITY_HEADERS).map((name) => [name, response.headers[name]]));
      expect(headers, what).toEqual(SECURITY_HEADERS);
    }
    expect(responses['GET /'].status).toBe(302);
    expect(responses['GET /'].headers.location).toBe('/login');
    // No Origin and no Sec-Fetch-Site: refused before the form is read.
    expect(responses['POST /login'].status).toBe(403);
    expect(responses['GET /account'].status).toBe(303);
    expect(responses['GET /account'].headers.location).toBe('/login');
    expect(responses['GET /setup with a wrong code'].status).toBe(410);
    expect(responses['GET an organization page, signed out'].status).toBe(303);
    expect(responses['GET an organization page, signed out'].headers.location).toBe(
      `/login?next=${encodeURIComponent('/organizations/default/issues/NOPE-1')}`,
    );
    expect(responses['GET an unknown organization page'].status).toBe(404);
    expect(text(responses['GET an unknown organization page'])).toContain('There is no page at');
    // One organization: /organizations is its Issues page.
    expect(responses['GET /organizations'].status).toBe(303);
    expect(responses['GET /organizations'].headers.location).toBe('/organizations/default/issues');
    expect(responses['GET an unknown asset'].status).toBe(404);
  });

  it('leave /api/v1 and /mcp as they were', async () => {
    for (const path of ['/api/v1/agents', '/api/v1/organizations/default/projects', '/mcp']) {
      const response = await exchange(path);
      expect(response.headers['content-security-policy'], path).toBeUndefined();
      expect(response.headers['content-type'], path).toMatch(/json|markdown|text\/plain/);
    }
  });
});

describe('an htmx request whose session has ended', () => {
  it('sends the whole page to sign-in (HX-Redirect), coming back to the page it was made from', async () => {
    const response = await exchange('/organizations/default/projects/web/installation', {
      headers: { 'HX-Request': 'true', 'HX-Current-URL': `${server.url}/organizations/default/projects/web?platform=python` },
    });
    expect(response.status).toBe(200);
    expect(response.headers['hx-redirect']).toBe(
      `/login?next=${encodeURIComponent('/organizations/default/projects/web?platform=python')}`,
    );
    expect(response.bytes.length).toBe(0);
  });
});

describe('a form post the dashboard cannot read', () => {
  it('gets a page saying what was wrong, with the security headers', async () => {
    const response = await exchange('/login', {
      method: 'POST',
      headers: { origin: server.url, 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toBe(SECURITY_HEADERS['content-security-policy']);
    expect(text(response)).toContain('the dashboard takes form posts (application/x-www-form-urlencoded) only');
  });
});

describe('a form posted after its session ended', () => {
  it('goes to sign-in, rather than a page calling the form forged', async () => {
    for (const path of ['/logout', '/account', '/account/password', '/account/sessions/end']) {
      const response = await exchange(path, {
        method: 'POST',
        headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded', cookie: 'errata_session=ended' },
      });
      expect([path, response.status, response.headers.location]).toEqual([path, 303, '/login']);
    }
  });
});

describe('the 404 page', () => {
  it('shows the address it was asked for as text, never as markup', async () => {
    const response = await exchange('/organizations/%3Cb%3Eorg%3C%2Fb%3E/issues/%3Cscript%3Ealert(1)%3C%2Fscript%3E', {
      headers: { cookie: session },
    });
    const page = text(response);
    expect(response.status).toBe(404);
    expect(page).toContain('&lt;b>org&lt;/b>');
    expect(page).not.toContain('<b>org</b>');
    expect(page).not.toContain('<script>alert(1)');
  });
});

describe('the assets', () => {
  it('are cached for a year as immutable, and gzipped when the browser accepts it', async () => {
    const { script, style } = await assetUrls();
    for (const [path, type] of [
      [script, 'text/javascript; charset=utf-8'],
      [style, 'text/css; charset=utf-8'],
    ] as const) {
      const plain = await exchange(path);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-type']).toBe(type);
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['content-encoding']).toBeUndefined();

      const gzipped = await exchange(path, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(gunzipSync(gzipped.bytes)).toEqual(plain.bytes);
      expect(gzipped.bytes.length).toBeLessThan(plain.bytes.length);

      const again = await exchange(path, { headers: { 'if-none-match': String(plain.headers.etag) } });
      expect(again.status).toBe(304);
    }
  });
});

describe('the first load of /login', () => {
  it('is under 60 KB gzipped, HTML, CSS and JS together', async () => {
    const gzip = { headers: { 'accept-encoding': 'gzip' } };
    const page = await exchange('/login', gzip);
    expect(page.headers['content-encoding']).toBe('gzip');
    const { script, style } = await assetUrls();
    const sizes = {
      html: page.bytes.length,
      css: (await exchange(style, gzip)).bytes.length,
      js: (await exchange(script, gzip)).bytes.length,
    };
    const total = sizes.html + sizes.css + sizes.js;
    console.log(`first load of /login, gzipped: ${JSON.stringify(sizes)}, total ${total} bytes`);
    expect(total).toBeLessThan(60 * 1024);
  });
});
