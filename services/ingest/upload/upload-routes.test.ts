import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import { eventually } from '../../../test/support/standalone-server.ts';
import { makeBundle, pair } from '../../../test/support/zip-writer.ts';
import { openFsBlobStore } from '../../adapters/fs-blobs/fs-blob-store.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import { createUploadToken } from '../../core/provisioning/upload-tokens.ts';
import { createLogger } from '../../runtime/logger.ts';
import { MAX_WAITING_ASSEMBLIES_PER_PROJECT } from './assembly-queue.ts';
import { chunkKey } from './blob-keys.ts';
import { BodyBudget } from '../read-body.ts';
import { uploadRoutes } from './upload-routes.ts';

const sha1 = (data: Uint8Array) => createHash('sha1').update(data).digest('hex');

/**
 * The real blob store, except that reading a chunk waits until the test opens the gate: an
 * assembly that has started is seen (its first read, recorded) and held there.
 */
class GatedBlobs implements BlobStore {
  readonly reads: string[] = [];
  private releases: Array<() => void> = [];
  private open = false;
  constructor(private readonly inner: BlobStore) {}
  async get(key: string) {
    if (key.startsWith('chunks/')) {
      this.reads.push(key);
      if (!this.open) await new Promise<void>((resolve) => this.releases.push(resolve));
    }
    return this.inner.get(key);
  }
  openGate() {
    this.open = true;
    for (const release of this.releases.splice(0)) release();
  }
  /** How many of the next puts fail, as a blob store's outage would. */
  failPuts = 0;
  put: BlobStore['put'] = (...args) => {
    if (this.failPuts > 0) {
      this.failPuts--;
      return Promise.reject(new Error('the blob store is down'));
    }
    return this.inner.put(...args);
  };
  head: BlobStore['head'] = (...args) => this.inner.head(...args);
  delete: BlobStore['delete'] = (...args) => this.inner.delete(...args);
  deleteMany: BlobStore['deleteMany'] = (...args) => this.inner.deleteMany(...args);
  list: BlobStore['list'] = (...args) => this.inner.list(...args);
  ping: BlobStore['ping'] = () => this.inner.ping();
  close: BlobStore['close'] = () => this.inner.close();
}

let stores: EmbeddedStores;
let dir: string;
const cleanup: Array<() => Promise<unknown>> = [];
const bundle = Buffer.from(makeBundle(pair()));
const checksum = sha1(bundle);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'errata-upload-routes-'));
  stores = await openEmbeddedStores();
  await stores.metadata.ensureOrganization('default', 'Default');
});
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
  await stores.close();
  await rm(dir, { recursive: true, force: true });
});

/** An upload app on its own blob directory, with projects (each with the bundle's one chunk stored) and their tokens. */
async function uploadApp(
  projects: string[],
  maxAssemblies: number,
  assemblyMarkMs?: number,
  bodyBudget = new BodyBudget(64 * 1024 * 1024),
) {
  const inner = await openFsBlobStore(await mkdtemp(join(dir, 'blobs-')));
  const blobs = new GatedBlobs(inner);
  const organization = (await stores.metadata.ensureOrganization('default', 'Default'))!;
  const tokens: Record<string, { token: string; projectId: number }> = {};
  for (const slug of projects) {
    const { project } = await stores.metadata.createProject(
      { organizationId: organization.id, slug, name: slug },
      { publicKey: createHash('md5').update(slug).digest('hex'), label: 'Default' },
    );
    await inner.put(chunkKey(project.id, checksum), bundle);
    tokens[slug] = { token: (await createUploadToken(stores.metadata, { project: slug })).plaintext, projectId: project.id };
  }
  // While claims.hold is set, each claim of an assembly waits until the test releases it.
  const claims = { hold: false, held: [] as Array<() => void> };
  const metadata = new Proxy(stores.metadata, {
    get(target, property) {
      if (property === 'claimAssembly') {
        return async (...args: Parameters<MetadataStore['claimAssembly']>) => {
          if (claims.hold) await new Promise<void>((release) => claims.held.push(release));
          return target.claimAssembly(...args);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const app = new Koa();
  app.use(
    uploadRoutes({
      metadata,
      blobs,
      logger: createLogger('silent'),
      baseUrl: 'http://localhost',
      uploadLimits: { maxAssemblies, chunkBytesPerProject: 64 * 1024 * 1024 },
      bodyBudget,
      ...(assemblyMarkMs !== undefined && { assemblyMarkMs }),
    }),
  );
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const assemble = async (slug: string, bundleChecksum: string, chunks = [checksum]) => {
    const response = await fetch(`${url}/api/0/organizations/any/artifactbundle/assemble/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[slug]!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ checksum: bundleChecksum, chunks }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  };
  const finished = (slug: string, bundleChecksum: string) =>
    eventually(async () => {
      const { body } = await assemble(slug, bundleChecksum);
      return body.state === 'ok' || body.state === 'error' ? body : undefined;
    }, `the assembly of ${bundleChecksum} in ${slug}`);
  const readsOf = () => blobs.reads.map((key) => Number(key.split('/')[1]));
  const postChunk = async (slug: string, chunk: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(chunk)]), sha1(chunk));
    const response = await fetch(`${url}/api/0/organizations/any/chunk-upload/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens[slug]!.token}` },
      body: form,
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      detail: text && (JSON.parse(text) as { detail: string }).detail,
    };
  };
  return { blobs, tokens, assemble, finished, readsOf, claims, postChunk, url };
}

describe('assemblies', () => {
  it('run one at a time per project and at most maxAssemblies in all; the others wait, answered "created", and run after', async () => {
    const { blobs, tokens, assemble, finished, readsOf } = await uploadApp(['a1', 'b1', 'c1'], 2);
    const invented = 'f'.repeat(40);
    expect((await assemble('a1', checksum)).body).toEqual({ state: 'created', missingChunks: [], detail: null });
    expect(readsOf()).toEqual([tokens.a1!.projectId]);
    // The same project again (another bundle): it waits for the first.
    expect((await assemble('a1', invented)).body.state).toBe('created');
    expect(readsOf()).toEqual([tokens.a1!.projectId]);
    // Another project runs beside it; a third waits for one of the two.
    expect((await assemble('b1', checksum)).body.state).toBe('created');
    expect((await assemble('c1', checksum)).body.state).toBe('created');
    expect(readsOf()).toEqual([tokens.a1!.projectId, tokens.b1!.projectId]);
    // A waiting assembly's polls answer "created" too (never not_found: the CLI would give up).
    expect((await assemble('c1', checksum)).body.state).toBe('created');

    blobs.openGate();
    expect(await finished('a1', checksum)).toMatchObject({ state: 'ok' });
    expect(await finished('a1', invented)).toMatchObject({ state: 'error', detail: expect.stringContaining(invented) });
    expect(await finished('b1', checksum)).toMatchObject({ state: 'ok' });
    expect(await finished('c1', checksum)).toMatchObject({ state: 'ok' });
    expect(new Set(readsOf())).toEqual(new Set([tokens.a1!.projectId, tokens.b1!.projectId, tokens.c1!.projectId]));
  });

  it('are marked running from their claim, waiting in the queue too, so that no other process takes them for dead', async () => {
    const { blobs, tokens, assemble, finished } = await uploadApp(['m1'], 2, 10);
    const waiting = 'e'.repeat(40);
    const projectId = tokens.m1!.projectId;
    expect((await assemble('m1', checksum)).body.state).toBe('created');
    // Behind the first (one a project at a time), whose reads are held.
    expect((await assemble('m1', waiting)).body.state).toBe('created');
    const claimedAt = (await stores.metadata.getAssembly(projectId, waiting))!.updatedAt;
    await eventually(async () => {
      const now = (await stores.metadata.getAssembly(projectId, waiting))!;
      return now.state === 'assembling' && now.updatedAt > claimedAt ? now : undefined;
    }, 'the waiting assembly marked running');
    const markedAt = new Date();
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Another process asking for what has not been marked since `markedAt` does not get it.
    expect(await stores.metadata.claimAssembly(projectId, waiting, markedAt, new Date(0))).toBe(false);
    blobs.openGate();
    expect(await finished('m1', checksum)).toMatchObject({ state: 'ok' });
    expect(await finished('m1', waiting)).toMatchObject({ state: 'error' });
  });

  it('answer a failed assembly as failed for a minute, for the polling CLI; the bundle uploaded again later is assembled again', async () => {
    const { blobs, tokens, assemble, finished } = await uploadApp(['r1'], 2);
    blobs.openGate();
    blobs.failPuts = 1;
    expect((await assemble('r1', checksum)).body.state).toBe('created');
    expect(await finished('r1', checksum)).toEqual({
      state: 'error',
      missingChunks: [],
      detail: 'the bundle could not be stored; upload it again later',
    });
    expect((await assemble('r1', checksum)).body.state).toBe('error');
    // A minute on (the outage over), sentry-cli run again sends the same bundle, same checksum:
    // before, the error was answered for good and that release never got its source maps.
    await stores.client.query(
      `UPDATE bundle_assemblies SET updated_at = updated_at - interval '2 minutes' WHERE project_id = $1 AND checksum = $2`,
      [tokens.r1!.projectId, checksum],
    );
    expect((await assemble('r1', checksum)).body.state).toBe('created');
    expect((await finished('r1', checksum)).state).toBe('ok');
  });

  it(`keep at most ${MAX_WAITING_ASSEMBLIES_PER_PROJECT} waiting per project; more get 429 saying to retry`, async () => {
    const { blobs, assemble, finished } = await uploadApp(['a2'], 2);
    expect((await assemble('a2', checksum)).body.state).toBe('created');
    const waiting = Array.from({ length: MAX_WAITING_ASSEMBLIES_PER_PROJECT }, (_, i) => sha1(Buffer.from(String(i))));
    for (const other of waiting) expect((await assemble('a2', other)).body.state).toBe('created');
    const refused = await assemble('a2', 'e'.repeat(40));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.detail).toContain(
      `${MAX_WAITING_ASSEMBLIES_PER_PROJECT} bundles of project "a2" are waiting to be assembled`,
    );
    blobs.openGate();
    for (const other of waiting) expect((await finished('a2', other)).state).toBe('error');
  });

  it('count a place as taken from the moment a request is accepted, so that concurrent requests cannot all get one', async () => {
    const { blobs, assemble, finished, claims } = await uploadApp(['a3'], 2);
    claims.hold = true;
    // 30 bundles at once from one token, each claim held until every request is either
    // claiming or answered: the cap must hold whatever the requests do in between.
    const bundles = Array.from({ length: 30 }, (_, i) => sha1(Buffer.from(`concurrent ${i}`)));
    let answered = 0;
    const requests = bundles.map((other) => assemble('a3', other).finally(() => answered++));
    await eventually(
      async () => (claims.held.length + answered === bundles.length ? true : undefined),
      'every request to claim or be answered',
    );
    for (const release of claims.held.splice(0)) release();
    const answers = await Promise.all(requests);
    const accepted = bundles.filter((_, i) => answers[i]!.status === 200);
    const waitingDetail = `${MAX_WAITING_ASSEMBLIES_PER_PROJECT} bundles of project "a3" are waiting`;
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.body.state).toBe('created');
      else expect(answer).toMatchObject({ status: 429, body: { detail: expect.stringContaining(waitingDetail) } });
    }
    // One may have started already (the first claimed); the others wait, and no more than the
    // cap: taking more one by one gets to one running and the cap waiting, then 429.
    claims.hold = false;
    for (let i = 0; ; i++) {
      const other = sha1(Buffer.from(`then ${i}`));
      const answer = await assemble('a3', other);
      if (answer.status !== 200) {
        expect(answer).toMatchObject({ status: 429, body: { detail: expect.stringContaining(waitingDetail) } });
        break;
      }
      accepted.push(other);
    }
    expect(accepted).toHaveLength(1 + MAX_WAITING_ASSEMBLIES_PER_PROJECT);
    blobs.openGate();
    for (const other of accepted) expect((await finished('a3', other)).state).toBe('error');
  });

  it('refuse, before any work, a bundle listing more chunks (repeats included) than the largest bundle accepted is cut into', async () => {
    // chunkBytesPerProject is 64 MiB here: the largest bundle accepted, 8 chunks of 8 MiB.
    const { blobs, assemble, finished } = await uploadApp(['a4'], 2);
    const refused = await assemble('a4', 'f'.repeat(40), Array(9).fill(checksum));
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe(
      'the bundle lists 9 chunks (repeats included), and the largest bundle this server accepts, 67108864 bytes, ' +
        'is at most 8 chunks of 8388608 bytes: upload a smaller bundle',
    );
    blobs.openGate();
    expect((await assemble('a4', 'f'.repeat(40), Array(8).fill(checksum))).body.state).toBe('created');
    expect(await finished('a4', 'f'.repeat(40))).toMatchObject({
      state: 'error',
      detail: expect.stringContaining('f'.repeat(40)),
    });
  });
});

describe('chunk requests', () => {
  it("share ingest's memory budget: 503 while other requests hold it, 413 for one larger than all of it", async () => {
    const budget = new BodyBudget(1024 * 1024);
    const { postChunk, url, tokens } = await uploadApp(['chunks1'], 1, undefined, budget);
    const chunk = (bytes: number, fill: number) => Buffer.alloc(bytes, fill);

    // Before, chunk requests took memory beyond the budget, as many at once as were sent.
    const other = budget.lease();
    expect(other.take(900 * 1024)).toBeUndefined();
    const busy = await postChunk('chunks1', chunk(200 * 1024, 1));
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.detail).toMatch(/ingest is busy/);
    other.release();
    expect((await postChunk('chunks1', chunk(200 * 1024, 1))).status).toBe(200);

    const tooLarge = await postChunk('chunks1', chunk(1536 * 1024, 2));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.detail).toMatch(/ERRATA_INGEST_MEMORY_BYTES/);

    // The upload tools are told to send requests that fit, four at once, in ingest's memory.
    const options = await fetch(`${url}/api/0/organizations/any/chunk-upload/`, {
      headers: { authorization: `Bearer ${tokens.chunks1!.token}` },
    });
    expect(((await options.json()) as { maxRequestSize: number }).maxRequestSize).toBe(256 * 1024);

    // Every request gave its share back, the refused ones too.
    const all = budget.lease();
    expect(all.take(1024 * 1024)).toBeUndefined();
    all.release();
  });
});
