// Distributed BlobStore: objects in an S3 bucket (AWS, MinIO or any S3-compatible server),
// under an optional key prefix so several installations can share a bucket. Every request is
// bounded by timeouts, so an unreachable S3 fails an upload instead of hanging it. Failures
// are S3BlobStoreErrors carrying S3's code and message, never the request or its credentials.
import { createHash } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type BucketLocationConstraint,
  type ListObjectsV2CommandOutput,
} from '@aws-sdk/client-s3';
import {
  assertBlobKey,
  blobCursor,
  isBlobKey,
  parseListBlobsOptions,
  type BlobInfo,
  type BlobStore,
  type ListBlobsOptions,
  type PutBlobOptions,
} from '../../core/ports/blob-store.ts';
import type { Page } from '../../core/ports/page.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  /** For MinIO and other S3-compatible servers, e.g. http://minio:9000; unset means AWS. */
  endpoint?: string;
  region: string;
  /** Bucket in the path rather than the host name; most S3-compatible servers need it. */
  forcePathStyle?: boolean;
  /** Both or neither; neither means the SDK's default chain (environment, web identity, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Folder inside the bucket for every key, e.g. `errata` or `errata/prod`. */
  prefix?: string;
  /** Time allowed to open a connection. Default 5 s. */
  connectionTimeoutMs?: number;
  /**
   * Time allowed for a request until its response starts (plus a second per MB uploaded), and
   * for a connection to sit idle mid-transfer. Default 30 s.
   */
  requestTimeoutMs?: number;
  /** Attempts per request, retries included (the SDK backs off between them). Default 3. */
  maxAttempts?: number;
}

/** An S3 request that failed, as S3 (or the network) explained it. */
export class S3BlobStoreError extends Error {
  constructor(
    readonly operation: string,
    /** S3's error code (`NoSuchBucket`, `InvalidAccessKeyId`, ...) or the network's (`ECONNREFUSED`, `ETIMEDOUT`). */
    readonly code: string,
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'S3BlobStoreError';
  }
}

const DELETE_BATCH = 1000;
const MB = 1024 * 1024;

/** Opens the store and creates its bucket when absent; fails if S3 cannot be reached or refuses us. */
export async function openS3BlobStore(options: S3BlobStoreOptions): Promise<S3BlobStore> {
  const store = new S3BlobStore(options);
  try {
    await store.ensureBucket();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

export class S3BlobStore implements BlobStore {
  readonly bucket: string;
  /** `''` or a folder name ending in `/`. */
  readonly prefix: string;
  private readonly region: string;
  private readonly requestTimeoutMs: number;
  private readonly client: S3Client;

  /** Does no I/O; openS3BlobStore also makes sure the bucket exists. */
  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.region = options.region;
    this.prefix = normalizePrefix(options.prefix);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    if ((options.accessKeyId === undefined) !== (options.secretAccessKey === undefined)) {
      throw new Error('S3 blob store: give both accessKeyId and secretAccessKey, or neither');
    }
    if (options.endpoint !== undefined) checkEndpoint(options.endpoint);
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.accessKeyId === undefined
        ? {}
        : { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey! } }),
      maxAttempts: options.maxAttempts ?? 3,
      requestHandler: {
        connectionTimeout: options.connectionTimeoutMs ?? 5_000,
        requestTimeout: this.requestTimeoutMs,
        throwOnRequestTimeout: true,
        socketTimeout: this.requestTimeoutMs,
      },
      // Checksums only where S3 demands them: many S3-compatible servers reject the newer
      // flexible-checksum headers. Puts carry Content-MD5 instead, which every server checks.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Buffer, options?: PutBlobOptions): Promise<void> {
    assertBlobKey(key);
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.prefix + key,
      Body: body,
      ContentLength: body.length,
      ContentType: options?.contentType ?? 'application/octet-stream',
      ContentMD5: createHash('md5').update(body).digest('base64'),
    });
    const requestTimeout = this.requestTimeoutMs + Math.ceil(body.length / MB) * 1000;
    await this.call('PutObject', key, () => this.client.send(command, { requestTimeout }));
  }

  async get(key: string): Promise<Buffer | undefined> {
    assertBlobKey(key);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      if (!response.Body) return Buffer.alloc(0);
      const bytes = await response.Body.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if (isMissingKey(error)) return undefined;
      throw this.failure('GetObject', key, error);
    }
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    assertBlobKey(key);
    try {
      const response = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      return { key, size: response.ContentLength ?? 0, lastModified: response.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissingKey(error)) return undefined;
      throw this.failure('HeadObject', key, error);
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    // S3 answers a delete of an absent key with success.
    const command = new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key });
    await this.call('DeleteObject', key, () => this.client.send(command));
  }

  async deleteMany(keys: readonly string[]): Promise<void> {
    for (const key of keys) assertBlobKey(key);
    const unique = [...new Set(keys)];
    for (let i = 0; i < unique.length; i += DELETE_BATCH) {
      const batch = unique.slice(i, i + DELETE_BATCH);
      const command = new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: { Objects: batch.map((key) => ({ Key: this.prefix + key })), Quiet: true },
      });
      const response = await this.call('DeleteObjects', undefined, () => this.client.send(command));
      const errors = response.Errors ?? [];
      if (errors.length > 0) {
        const first = errors[0]!;
        throw new S3BlobStoreError(
          'DeleteObjects',
          first.Code ?? 'UnknownError',
          undefined,
          `S3 DeleteObjects failed for ${errors.length} of ${batch.length} keys in bucket ${JSON.stringify(this.bucket)}, ` +
            `first ${JSON.stringify(this.unprefixed(first.Key ?? ''))}: ${first.Code ?? 'UnknownError'}: ${first.Message ?? ''}`,
        );
      }
    }
  }

  async list(prefix: string, options?: ListBlobsOptions): Promise<Page<BlobInfo>> {
    const { limit, after } = parseListBlobsOptions(prefix, options);
    const items: BlobInfo[] = [];
    let continuationToken: string | undefined;
    let response: ListObjectsV2CommandOutput;
    // A server may answer with fewer keys than asked for; keep asking until the page is full.
    do {
      const command = new ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: this.prefix + prefix,
        MaxKeys: limit - items.length,
        ...(continuationToken !== undefined
          ? { ContinuationToken: continuationToken }
          : after !== undefined
            ? { StartAfter: this.prefix + after }
            : {}),
      });
      response = await this.call('ListObjectsV2', undefined, () => this.client.send(command));
      for (const object of response.Contents ?? []) {
        const key = this.unprefixed(object.Key ?? '');
        // Objects someone else put under our prefix with names we would never write.
        if (!isBlobKey(key)) continue;
        items.push({ key, size: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0) });
      }
      continuationToken = response.IsTruncated ? response.NextContinuationToken : undefined;
    } while (items.length < limit && continuationToken !== undefined);
    const last = items.at(-1);
    return continuationToken !== undefined && last !== undefined ? { items, nextCursor: blobCursor(last.key) } : { items };
  }

  /**
   * Lists at most one key: the same permission (s3:ListBucket) as HeadBucket, but unlike a
   * HEAD, whose 403 has no body, a refusal says why (InvalidAccessKeyId, SignatureDoesNotMatch).
   */
  async ping(): Promise<void> {
    const command = this.probe();
    await this.call('ListObjectsV2', undefined, () => this.client.send(command));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** Creates the bucket if S3 says it does not exist; a bucket we already own is fine. */
  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(this.probe());
      return;
    } catch (error) {
      if (errorName(error) !== 'NoSuchBucket') throw this.failure('ListObjectsV2', undefined, error);
    }
    try {
      await this.client.send(
        new CreateBucketCommand({
          Bucket: this.bucket,
          // us-east-1 is the one region that must not be named.
          ...(this.region === 'us-east-1'
            ? {}
            : { CreateBucketConfiguration: { LocationConstraint: this.region as BucketLocationConstraint } }),
        }),
      );
    } catch (error) {
      // Another replica created it first.
      if (errorName(error) !== 'BucketAlreadyOwnedByYou') throw this.failure('CreateBucket', undefined, error);
    }
  }

  private probe(): ListObjectsV2Command {
    return new ListObjectsV2Command({ Bucket: this.bucket, MaxKeys: 1, ...(this.prefix ? { Prefix: this.prefix } : {}) });
  }

  private async call<T>(operation: string, key: string | undefined, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.failure(operation, key, error);
    }
  }

  private unprefixed(objectKey: string): string {
    return objectKey.startsWith(this.prefix) ? objectKey.slice(this.prefix.length) : objectKey;
  }

  /** Only S3's code, status and message go into the error: not the request, its headers or the SDK's error object. */
  private failure(operation: string, key: string | undefined, error: unknown): S3BlobStoreError {
    const e = (error ?? {}) as {
      name?: string;
      Code?: string;
      code?: string;
      message?: string;
      $metadata?: { httpStatusCode?: number };
    };
    const status = e.$metadata?.httpStatusCode;
    const named = e.name && !['Error', 'Unknown', 'UnknownError', 'AggregateError'].includes(e.name) ? e.name : undefined;
    const code = e.Code ?? named ?? e.code ?? (status !== undefined ? `HTTP${status}` : 'UnknownError');
    const detail = e.message && e.message !== code && e.message !== 'UnknownError' ? `: ${e.message}` : '';
    const where = `bucket ${JSON.stringify(this.bucket)}${key === undefined ? '' : `, key ${JSON.stringify(this.prefix + key)}`}`;
    return new S3BlobStoreError(
      operation,
      code,
      status,
      `S3 ${operation} failed (${where}): ${code}${status === undefined ? '' : ` (HTTP ${status})`}${detail}`,
    );
  }
}

function normalizePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === '' || prefix === '/') return '';
  const folder = prefix.replace(/^\/+|\/+$/g, '');
  if (!isBlobKey(folder)) {
    throw new Error(
      `S3 blob store: invalid prefix ${JSON.stringify(prefix)}: use "/"-separated letters, digits, ".", "_" and "-"`,
    );
  }
  return `${folder}/`;
}

function checkEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error('S3 blob store: the endpoint is not a URL: use e.g. http://minio:9000');
  }
  if (url.username || url.password) {
    // Would end up in logs and error messages; credentials have options of their own.
    throw new Error('S3 blob store: the endpoint must not contain credentials: pass accessKeyId and secretAccessKey instead');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`S3 blob store: the endpoint must be http:// or https://, not ${url.protocol}`);
  }
}

function isMissingKey(error: unknown): boolean {
  const name = errorName(error);
  // HEAD answers carry no body, so a missing key is only a bare 404 there.
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || (status === 404 && name !== 'NoSuchBucket');
}

function errorName(error: unknown): string | undefined {
  return (error as { Code?: string; name?: string } | undefined)?.Code ?? (error as { name?: string } | undefined)?.name;
}
