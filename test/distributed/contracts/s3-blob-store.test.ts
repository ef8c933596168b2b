// The BlobStore contract against a real MinIO, plus what only S3 has: a bucket the store must
// create, a key prefix shared buckets rely on, credentials S3 refuses, and a server that
// never answers. Each run writes under a random prefix of the shared test bucket.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { DeleteBucketCommand, HeadBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, describe, expect, it } from 'vitest';
import { describeBlobStoreContract } from '../../../services/adapters/contracts/blob-store.contract.ts';
import { listAllBlobs } from '../../../services/core/ports/blob-store.ts';
import {
  openS3BlobStore,
  S3BlobStore,
  S3BlobStoreError,
  type S3BlobStoreOptions,
} from '../../../services/adapters/s3/s3-blob-store.ts';
import { infraSetting } from '../../support/infra-env.ts';

function settings(overrides: Partial<S3BlobStoreOptions> = {}): S3BlobStoreOptions {
  return {
    bucket: infraSetting('ERRATA_S3_BUCKET'),
    endpoint: infraSetting('ERRATA_S3_ENDPOINT'),
    region: infraSetting('ERRATA_S3_REGION'),
    forcePathStyle: infraSetting('ERRATA_S3_FORCE_PATH_STYLE') === 'true',
    accessKeyId: infraSetting('ERRATA_S3_ACCESS_KEY_ID'),
    secretAccessKey: infraSetting('ERRATA_S3_SECRET_ACCESS_KEY'),
    ...overrides,
  };
}

/** The SDK itself, to look at the bucket from outside the store. */
function rawClient(): S3Client {
  const s = settings();
  return new S3Client({
    region: s.region,
    endpoint: s.endpoint!,
    forcePathStyle: s.forcePathStyle!,
    credentials: { accessKeyId: s.accessKeyId!, secretAccessKey: s.secretAccessKey! },
  });
}

const runPrefix = `contract-${randomUUID().slice(0, 8)}`;
const opened: S3BlobStore[] = [];
async function open(overrides: Partial<S3BlobStoreOptions> = {}): Promise<S3BlobStore> {
  const store = await openS3BlobStore(settings({ prefix: runPrefix, ...overrides }));
  opened.push(store);
  return store;
}
afterAll(async () => {
  // Leave the shared bucket as this run found it.
  const cleaner = await openS3BlobStore(settings({ prefix: runPrefix }));
  const keys: string[] = [];
  for await (const item of listAllBlobs(cleaner, '')) keys.push(item.key);
  await cleaner.deleteMany(keys);
  await cleaner.close();
  for (const store of opened) await store.close();
});

describeBlobStoreContract('S3 (MinIO)', () => openS3BlobStore(settings({ prefix: runPrefix })));

describe('S3BlobStore', () => {
  it('creates its bucket when absent, and opens an existing one', async () => {
    const bucket = `errata-new-${randomBytes(4).toString('hex')}`;
    const raw = rawClient();
    try {
      await expect(raw.send(new HeadBucketCommand({ Bucket: bucket }))).rejects.toMatchObject({ name: 'NotFound' });
      const store = await open({ bucket, prefix: undefined });
      await raw.send(new HeadBucketCommand({ Bucket: bucket }));
      await store.put('chunks/abc', Buffer.from('chunk'));
      expect((await store.get('chunks/abc'))?.toString()).toBe('chunk');
      // A second replica starting up finds the bucket there.
      const again = await open({ bucket, prefix: undefined });
      expect((await again.get('chunks/abc'))?.toString()).toBe('chunk');
      await again.delete('chunks/abc');
    } finally {
      await raw.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {});
      raw.destroy();
    }
  });

  it('keeps every key under its prefix, out of sight of other prefixes', async () => {
    const left = await open({ prefix: `${runPrefix}/left/` });
    const right = await open({ prefix: `${runPrefix}/right` });
    await left.put('projects/1/maps/x/source_map.gz', Buffer.from('left'));
    expect(await right.get('projects/1/maps/x/source_map.gz')).toBeUndefined();
    expect((await right.list('')).items).toEqual([]);
    expect((await left.list('')).items.map((i) => i.key)).toEqual(['projects/1/maps/x/source_map.gz']);
    const raw = rawClient();
    try {
      const listed = await raw.send(new ListObjectsV2Command({ Bucket: settings().bucket, Prefix: `${runPrefix}/left/` }));
      expect(listed.Contents?.map((o) => o.Key)).toEqual([`${runPrefix}/left/projects/1/maps/x/source_map.gz`]);
    } finally {
      raw.destroy();
    }
  });

  it('says which credential S3 refused, without repeating the secret', async () => {
    const secret = `wrong-secret-${randomUUID()}`;
    const cases = [
      { overrides: { accessKeyId: 'no-such-access-key', secretAccessKey: secret }, code: 'InvalidAccessKeyId' },
      { overrides: { secretAccessKey: secret }, code: 'SignatureDoesNotMatch' },
    ];
    for (const { overrides, code } of cases) {
      const store = new S3BlobStore(settings({ ...overrides, maxAttempts: 1 }));
      opened.push(store);
      const error = await store.ping().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(S3BlobStoreError);
      expect(error).toMatchObject({ code, status: 403, operation: 'ListObjectsV2' });
      expect((error as Error).message).toContain(code);
      expect((error as Error).message).not.toContain(secret);
      expect(JSON.stringify(error)).not.toContain(secret);
      // Opening checks the same way, so a misconfigured role fails at start-up.
      await expect(openS3BlobStore(settings({ ...overrides, maxAttempts: 1 }))).rejects.toMatchObject({ code });
    }
  });

  it('fails, rather than hangs, when S3 accepts connections but never answers', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const store = new S3BlobStore(
        settings({ endpoint: `http://127.0.0.1:${port}`, requestTimeoutMs: 300, connectionTimeoutMs: 300, maxAttempts: 2 }),
      );
      opened.push(store);
      const started = Date.now();
      await expect(store.ping()).rejects.toMatchObject({ name: 'S3BlobStoreError', code: 'TimeoutError' });
      await expect(store.put('chunks/x', Buffer.from('x'))).rejects.toBeInstanceOf(S3BlobStoreError);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('fails when nothing listens at the endpoint', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const store = new S3BlobStore(settings({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 1 }));
    opened.push(store);
    await expect(store.ping()).rejects.toMatchObject({ name: 'S3BlobStoreError', code: 'ECONNREFUSED' });
  });

  it('refuses credentials inside the endpoint URL and half a credential pair', () => {
    expect(() => new S3BlobStore(settings({ endpoint: 'http://user:pass@127.0.0.1:1' }))).toThrow(/must not contain credentials/);
    expect(() => new S3BlobStore(settings({ secretAccessKey: undefined }))).toThrow(/both accessKeyId and secretAccessKey/);
    expect(() => new S3BlobStore(settings({ prefix: 'a//b' }))).toThrow(/invalid prefix/);
  });
});
