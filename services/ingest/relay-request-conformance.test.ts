// The envelope header against the request, behaviour by behaviour, against Sentry's Relay
// (getsentry/relay): whose key authenticates, which project id is stated and whether it is the
// key's, and what Origin/Referer do. relay-server/src/envelope/mod.rs `EnvelopeHeaders::complete`
// compares the header's dsn (project id, then public key) and `origin` with the request's (400
// "invalid event envelope"); endpoints/envelope.rs `EnvelopeParams` authenticates by the first
// line when the request carries no key (its errors are request_meta.rs `BadEventMeta`, 401); then
// services/projects/project/info.rs `check_envelope` refuses a stated project id that is not the
// key's project, or an origin outside the project's Allowed Domains (endpoints/common.rs
// `EventRejected`, 403). Each row goes through the real ingest endpoints (real stores).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../test/support/embedded-stores.ts';
import { startIngestEndpoint, type IngestEndpoint } from '../../test/support/ingest-endpoint.ts';

const KEY = 'a'.repeat(32);
const OTHER_KEY = 'b'.repeat(32);
let stores: EmbeddedStores;
let dir: string;
let ingest: IngestEndpoint;
/** The project of KEY, and the project of OTHER_KEY. */
let project: number;
let other: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'errata-relay-request-'));
  stores = await openEmbeddedStores();
  const org = await stores.metadata.ensureOrganization('default', 'Default');
  const create = async (slug: string, publicKey: string) =>
    (await stores.metadata.createProject({ organizationId: org.id, slug, name: slug }, { publicKey, label: 'Default' })).project
      .id;
  project = await create('shop', KEY);
  other = await create('blog', OTHER_KEY);
  ingest = await startIngestEndpoint(stores.metadata, dir);
});
afterAll(async () => {
  await ingest.close();
  await stores.close();
  await rm(dir, { recursive: true, force: true });
});

/** Ids are resolved when a row runs, once the projects exist. */
type Ids = { project: number; other: number };

interface Request {
  /** The project id in the URL: `/api/<id>/envelope/`. */
  path: (ids: Ids) => number | '';
  endpoint?: 'envelope' | 'store';
  /** The whole body as sent, instead of one built from `header`. */
  body?: (ids: Ids) => string;
  /** An envelope sent to /store/ (Content-Type application/x-sentry-envelope). */
  envelopeToStore?: boolean;
  /** Where the request carries a key, if anywhere. */
  auth: 'x-sentry-auth' | 'sentry_key' | 'none';
  authKey?: string;
  /** The envelope header (beside an event_id), or the /store/ body. */
  header: (ids: Ids) => Record<string, unknown>;
  origin?: string;
  referer?: string;
}

interface Row {
  behaviour: string;
  request: Request;
  relay: { verdict: 'accepts' | 'refuses'; status: number };
  /** The Relay code or test that gives the verdict. */
  source: string;
  /** What Errata answers, and for a refusal what its message says. */
  errata: { status: number; message?: RegExp };
  deviation?: string;
}

const dsn = (key: string, projectId: number | string) => `http://${key}@errata.example/${projectId}`;
const mine = (ids: Ids) => ids.project;
const EVENT = '{"type":"event"}\n{"message":"m"}\n';

const rows: Row[] = [
  {
    behaviour: 'the header dsn agrees with X-Sentry-Auth and the URL (Python, Go)',
    request: { path: mine, auth: 'x-sentry-auth', header: (ids) => ({ dsn: dsn(KEY, ids.project) }) },
    relay: { verdict: 'accepts', status: 200 },
    source: 'envelope/mod.rs test_parse_request_no_origin: a header dsn equal to the request meta passes complete()',
    errata: { status: 200 },
  },
  {
    behaviour: 'the header dsn agrees with sentry_key and the URL (browser JavaScript)',
    request: { path: mine, auth: 'sentry_key', header: (ids) => ({ dsn: dsn(KEY, ids.project) }) },
    relay: { verdict: 'accepts', status: 200 },
    source: 'envelope/mod.rs EnvelopeHeaders::complete',
    errata: { status: 200 },
  },
  {
    behaviour: 'no dsn in the header, the key in X-Sentry-Auth',
    request: { path: mine, auth: 'x-sentry-auth', header: () => ({}) },
    relay: { verdict: 'accepts', status: 200 },
    source: 'envelope/mod.rs test_parse_request_no_dsn: the DSN is taken from the request',
    errata: { status: 200 },
  },
  {
    behaviour: '"dsn": null in the header, the key in X-Sentry-Auth',
    request: { path: mine, auth: 'x-sentry-auth', header: () => ({ dsn: null }) },
    relay: { verdict: 'accepts', status: 200 },
    source: 'request_meta.rs PartialMeta: dsn is Option<PartialDsn>, and serde reads null as None',
    errata: { status: 200 },
  },
  {
    behaviour: 'the header dsn names another key than X-Sentry-Auth',
    request: { path: mine, auth: 'x-sentry-auth', header: (ids) => ({ dsn: dsn(OTHER_KEY, ids.project) }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'envelope/mod.rs test_parse_request_validate_key: HeaderMismatch("public key") -> InvalidEnvelope, 400',
    errata: { status: 400, message: /public key header mismatch between envelope and request/ },
  },
  {
    behaviour: 'the header dsn names another key than sentry_key',
    request: { path: mine, auth: 'sentry_key', header: (ids) => ({ dsn: dsn(OTHER_KEY, ids.project) }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'envelope/mod.rs test_parse_request_validate_key',
    errata: { status: 400, message: /public key header mismatch between envelope and request/ },
  },
  {
    behaviour: "the header dsn's project id differs from the URL's",
    request: { path: mine, auth: 'x-sentry-auth', header: (ids) => ({ dsn: dsn(KEY, ids.other) }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'envelope/mod.rs test_parse_request_validate_project: HeaderMismatch("project id") -> 400',
    errata: { status: 400, message: /project id header mismatch between envelope and request/ },
  },
  {
    behaviour: "the URL's project id is not the key's project (no dsn in the header)",
    request: { path: (ids) => ids.other, auth: 'x-sentry-auth', header: () => ({}) },
    relay: { verdict: 'refuses', status: 403 },
    source: 'project/info.rs check_envelope: is_valid_project_id -> DiscardReason::ProjectId; common.rs EventRejected -> 403',
    errata: { status: 403, message: /project id \d+ is not the project of this DSN key/ },
  },
  {
    behaviour: "the URL's project id and the header dsn's agree, but are not the key's project",
    request: { path: (ids) => ids.other, auth: 'sentry_key', header: (ids) => ({ dsn: dsn(KEY, ids.other) }) },
    relay: { verdict: 'refuses', status: 403 },
    source: 'project/info.rs check_envelope: is_valid_project_id -> DiscardReason::ProjectId',
    errata: { status: 403, message: /project id \d+ is not the project of this DSN key/ },
  },
  {
    behaviour: 'the header dsn is the only credential',
    request: { path: mine, auth: 'none', header: (ids) => ({ dsn: dsn(KEY, ids.project) }) },
    relay: { verdict: 'accepts', status: 200 },
    source: 'endpoints/envelope.rs EnvelopeParams::from_request: on MissingAuth the first line is the RequestMeta',
    errata: { status: 200 },
  },
  {
    behaviour: "the header dsn is the only credential, its project id the key's but not the URL's",
    request: { path: (ids) => ids.other, auth: 'none', header: (ids) => ({ dsn: dsn(KEY, ids.project) }) },
    relay: { verdict: 'accepts', status: 200 },
    source: "endpoints/envelope.rs EnvelopeParams::from_request: the header's RequestMeta, not the path, states the project",
    errata: { status: 200 },
  },
  {
    behaviour: "the header dsn is the only credential, its project id not the key's project",
    request: { path: mine, auth: 'none', header: (ids) => ({ dsn: dsn(KEY, ids.other) }) },
    relay: { verdict: 'refuses', status: 403 },
    source: 'project/info.rs check_envelope: is_valid_project_id -> DiscardReason::ProjectId',
    errata: { status: 403, message: /project id \d+ is not the project of this DSN key/ },
  },
  {
    behaviour: 'the header dsn is the only credential, and is not a URL',
    request: { path: mine, auth: 'none', header: () => ({ dsn: 'not a dsn' }) },
    relay: { verdict: 'refuses', status: 401 },
    source: 'endpoints/envelope.rs: the first line does not deserialize -> BadEventMeta::BadEnvelopeAuth, 401',
    errata: { status: 401, message: /bad envelope authentication header/ },
  },
  {
    behaviour: 'the header dsn is the only credential, and has no project id',
    request: { path: mine, auth: 'none', header: () => ({ dsn: `http://${KEY}@errata.example/` }) },
    relay: { verdict: 'refuses', status: 401 },
    source: 'request_meta.rs PartialDsn::from_dsn: ParseDsnError::NoProjectId -> BadEnvelopeAuth, 401',
    errata: { status: 401, message: /bad envelope authentication header/ },
  },
  {
    behaviour: 'the header dsn is the only credential, after an empty line',
    request: { path: mine, auth: 'none', header: () => ({}), body: (ids) => `\n{"dsn":"${dsn(KEY, ids.project)}"}\n${EVENT}` },
    relay: { verdict: 'refuses', status: 401 },
    source:
      'endpoints/envelope.rs EnvelopeParams::from_request: the body split at its first "\\n" is an empty line, ' +
      'which does not deserialize -> BadEnvelopeAuth, 401',
    errata: { status: 401, message: /bad envelope authentication header: the body's first line/ },
  },
  {
    behaviour: 'the header dsn is the only credential, its header spread over several lines',
    request: { path: mine, auth: 'none', header: () => ({}), body: (ids) => `{\n"dsn":"${dsn(KEY, ids.project)}"}\n${EVENT}` },
    relay: { verdict: 'refuses', status: 401 },
    source: 'endpoints/envelope.rs EnvelopeParams::from_request: the first line, "{", does not deserialize -> 401',
    errata: { status: 401, message: /bad envelope authentication header: the body's first line/ },
  },
  {
    behaviour: 'the header dsn is the only credential, spaces before it on its line',
    request: { path: mine, auth: 'none', header: () => ({}), body: (ids) => ` \t{"dsn":"${dsn(KEY, ids.project)}"}\n${EVENT}` },
    relay: { verdict: 'accepts', status: 200 },
    source: 'endpoints/envelope.rs: serde_json::from_slice skips whitespace around the value on the first line',
    errata: { status: 200 },
  },
  {
    behaviour: 'an empty line before the header, the key in sentry_key',
    request: {
      path: mine,
      auth: 'sentry_key',
      header: () => ({}),
      body: (ids) => `\n{"dsn":"${dsn(KEY, ids.project)}"}\n${EVENT}`,
    },
    relay: { verdict: 'accepts', status: 200 },
    source: 'envelope/mod.rs parse_headers: the stream reader skips whitespace before the header (relay-conformance.test.ts)',
    errata: { status: 200 },
  },
  {
    behaviour: 'an empty body and no key in the request',
    request: { path: mine, auth: 'none', header: () => ({}), body: () => '' },
    relay: { verdict: 'refuses', status: 401 },
    source: 'endpoints/envelope.rs: the first line is read for the dsn before the body is found empty -> BadEnvelopeAuth, 401',
    errata: { status: 401, message: /bad envelope authentication header/ },
  },
  {
    behaviour: 'no key in the request and no dsn in the header',
    request: { path: mine, auth: 'none', header: () => ({}) },
    relay: { verdict: 'refuses', status: 401 },
    source: 'endpoints/envelope.rs: RequestMeta requires dsn -> BadEventMeta::BadEnvelopeAuth, 401',
    errata: { status: 401, message: /missing authorization information/ },
  },
  {
    behaviour: 'a malformed header dsn beside a key in X-Sentry-Auth',
    request: { path: mine, auth: 'x-sentry-auth', header: () => ({ dsn: 'not a dsn' }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'envelope/mod.rs parse_headers::<PartialMeta>: the dsn does not deserialize -> InvalidHeader, 400',
    errata: { status: 400, message: /"dsn" is not a DSN/ },
  },
  {
    behaviour: 'a header dsn without a project id beside a key in sentry_key',
    request: { path: mine, auth: 'sentry_key', header: () => ({ dsn: `http://${KEY}@errata.example/` }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'request_meta.rs PartialDsn::from_dsn: NoProjectId -> InvalidHeader, 400',
    errata: { status: 400, message: /"dsn" is not a DSN/ },
  },
  {
    behaviour: 'a header dsn that is not a string beside a key in X-Sentry-Auth',
    request: { path: mine, auth: 'x-sentry-auth', header: () => ({ dsn: 42 }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'envelope/mod.rs parse_headers::<PartialMeta>: InvalidHeader, 400',
    errata: { status: 400, message: /"dsn" is not a DSN/ },
  },
  {
    behaviour: 'an Origin header (a browser), no origin in the envelope header',
    request: { path: mine, auth: 'sentry_key', header: () => ({}), origin: 'https://shop.example' },
    relay: { verdict: 'accepts', status: 200 },
    source: 'project/info.rs is_valid_origin: allowed_domains defaults to ["*"] (docs/project-config.md)',
    errata: { status: 200 },
  },
  {
    behaviour: 'Origin: null (a sandboxed page), no origin in the envelope header',
    request: { path: mine, auth: 'sentry_key', header: () => ({}), origin: 'null' },
    relay: { verdict: 'accepts', status: 200 },
    source: 'request_meta.rs parse_header_url: "null" is no http(s) URL, so the request has no origin to check',
    errata: { status: 200 },
  },
  {
    behaviour: 'a Referer header and no Origin',
    request: { path: mine, auth: 'sentry_key', header: () => ({}), referer: 'https://shop.example/cart?id=1' },
    relay: { verdict: 'accepts', status: 200 },
    source: 'request_meta.rs PartialMeta: origin is Origin, else Referer; info.rs is_valid_origin with ["*"]',
    errata: { status: 200 },
  },
  {
    behaviour: 'an envelope header origin equal to the Origin header',
    request: {
      path: mine,
      auth: 'sentry_key',
      header: () => ({ origin: 'https://shop.example/' }),
      origin: 'https://shop.example',
    },
    relay: { verdict: 'accepts', status: 200 },
    source: 'envelope/mod.rs EnvelopeHeaders::complete: origins compared as parsed URLs',
    errata: { status: 200 },
  },
  {
    behaviour: 'an envelope header origin equal to the Referer, no Origin',
    request: {
      path: mine,
      auth: 'sentry_key',
      header: () => ({ origin: 'https://shop.example/cart' }),
      referer: 'https://shop.example/cart',
    },
    relay: { verdict: 'accepts', status: 200 },
    source: 'request_meta.rs PartialMeta: the Referer stands for a missing Origin',
    errata: { status: 200 },
  },
  {
    behaviour: 'an envelope header origin that differs from the Origin header',
    request: {
      path: mine,
      auth: 'sentry_key',
      header: () => ({ origin: 'http://localhost/' }),
      origin: 'https://shop.example',
    },
    relay: { verdict: 'refuses', status: 400 },
    source: 'envelope/mod.rs test_parse_request_validate_origin: HeaderMismatch("origin") -> 400',
    errata: { status: 400, message: /origin header mismatch between envelope and request/ },
  },
  {
    behaviour: 'an envelope header origin, and neither Origin nor Referer in the request',
    request: { path: mine, auth: 'x-sentry-auth', header: () => ({ origin: 'http://localhost/' }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'envelope/mod.rs EnvelopeHeaders::complete: Some(origin) != None -> HeaderMismatch("origin")',
    errata: { status: 400, message: /origin header mismatch between envelope and request/ },
  },
  {
    behaviour: 'an envelope header origin beside only a header dsn, and no Origin in the request',
    request: {
      path: mine,
      auth: 'none',
      header: (ids) => ({ dsn: dsn(KEY, ids.project), origin: 'http://localhost/' }),
    },
    relay: { verdict: 'accepts', status: 200 },
    source: "endpoints/envelope.rs: the header's own origin is the request's when the request has none",
    errata: { status: 200 },
  },
  {
    behaviour: 'an envelope header origin that is not a URL',
    request: { path: mine, auth: 'x-sentry-auth', header: () => ({ origin: 'shop' }) },
    relay: { verdict: 'refuses', status: 400 },
    source: 'request_meta.rs RequestMeta.origin is Option<Url>: it does not deserialize -> InvalidHeader, 400',
    errata: { status: 400, message: /"origin" is not a URL/ },
  },
  {
    behaviour: "/store/: the URL's project id is not the key's project",
    request: { path: (ids) => ids.other, endpoint: 'store', auth: 'x-sentry-auth', header: () => ({ message: 'm' }) },
    relay: { verdict: 'refuses', status: 403 },
    source: 'endpoints/store.rs -> common.rs handle_envelope -> project/info.rs check_envelope: DiscardReason::ProjectId',
    errata: { status: 403, message: /project id \d+ is not the project of this DSN key/ },
  },
  {
    behaviour: '/store/: the URL carries no project id',
    request: { path: () => '', endpoint: 'store', auth: 'x-sentry-auth', header: () => ({ message: 'm' }) },
    relay: { verdict: 'accepts', status: 200 },
    source: 'request_meta.rs StorePath: the legacy /api/store/ has no project id, and its validation is skipped',
    errata: { status: 200 },
  },
  {
    behaviour: "an envelope to the legacy /api/store/ (no project id in the URL), its header dsn the key's and project",
    request: {
      path: () => '',
      endpoint: 'store',
      envelopeToStore: true,
      auth: 'x-sentry-auth',
      header: (ids) => ({ dsn: dsn(KEY, ids.project) }),
    },
    relay: { verdict: 'refuses', status: 400 },
    source:
      "endpoints/store.rs parses an envelope body with Envelope::parse_request; complete() compares the dsn's " +
      'Some(project id) with the path\'s None -> HeaderMismatch("project id")',
    errata: { status: 200 },
    deviation:
      'Relay refuses a correct dsn only because this legacy path has no id to compare it with (its own StorePath says ' +
      "the check is skipped there); Errata holds the dsn's project id against the key's project instead, which still " +
      'refuses every wrong one (403)',
  },
];

async function send(request: Request): Promise<{ status: number; message: string }> {
  const ids = { project, other };
  const key = request.authKey ?? KEY;
  const headers: Record<string, string> = {};
  if (request.auth === 'x-sentry-auth') headers['x-sentry-auth'] = `Sentry sentry_key=${key}, sentry_version=7`;
  if (request.origin) headers.origin = request.origin;
  if (request.referer) headers.referer = request.referer;
  const query = request.auth === 'sentry_key' ? `?sentry_key=${key}&sentry_version=7` : '';
  const endpoint = request.endpoint ?? 'envelope';
  const id = request.path(ids);
  const header = request.header(ids);
  if (request.envelopeToStore) headers['content-type'] = 'application/x-sentry-envelope';
  const body = request.body
    ? request.body(ids)
    : endpoint === 'store' && !request.envelopeToStore
      ? JSON.stringify(header)
      : `${JSON.stringify({ event_id: '9ec79c33ec9942ab8353589fcb2e04dc', ...header })}\n{"type":"event"}\n{"message":"m"}\n`;
  const response = await fetch(`${ingest.url}/api/${id === '' ? '' : `${id}/`}${endpoint}/${query}`, {
    method: 'POST',
    headers,
    body,
  });
  const text = await response.text();
  const message = response.ok ? '' : ((JSON.parse(text) as { error: { message: string } }).error.message ?? '');
  return { status: response.status, message };
}

describe('the envelope header against the request conforms to Relay', () => {
  it.each(rows)('$behaviour: Relay $relay.verdict ($source)', async (row) => {
    const result = await send(row.request);
    expect(result.status).toBe(row.errata.status);
    if (row.errata.message) expect(result.message).toMatch(row.errata.message);
    const errataVerdict = result.status === 200 ? 'accepts' : 'refuses';
    if (row.deviation) expect(errataVerdict).not.toBe(row.relay.verdict);
    else {
      expect(errataVerdict).toBe(row.relay.verdict);
      expect(result.status).toBe(row.relay.status);
    }
  });
});
