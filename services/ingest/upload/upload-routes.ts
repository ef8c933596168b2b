// The source map upload protocol under /api/0, as sentry-cli and the bundler plugins call it
// (configured with: URL = Errata's base URL, auth token = an upload token, org = anything,
// project = the token's project):
//   GET  /api/0/                                              sentry-cli info
//   GET  /api/0/organizations/{org}/chunk-upload/              the upload options
//   POST /api/0/organizations/{org}/chunk-upload/              chunks (receive-chunks.ts)
//   POST /api/0/organizations/{org}/artifactbundle/assemble/   missing chunks, then assembly
// Assembly runs in the background of the request that finds every chunk present, queued so that
// a project has one at a time and the process a few (assembly-queue.ts); its state is kept in
// the MetadataStore, so any ingest process answers the polls. Stored chunks are capped per
// project (chunk-quota.ts).
import Router from '@koa/router';
import type Koa from 'koa';
import { UserInputError, ForbiddenError } from '../../core/errors.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { MetadataStore, UploadToken } from '../../core/ports/metadata-store.ts';
import type { BundleAssembly } from '../../core/ports/source-map-index.ts';
import {
  assembleRequest,
  CHUNK_SIZE,
  chunkUploadOptions,
  MAX_BUNDLE_BYTES,
  MAX_REQUEST_BYTES,
  UPLOAD_CONCURRENCY,
  type AssembleRequest,
  type AssembleResponse,
} from '../../core/sourcemaps/upload-protocol.ts';
import { readJsonBody } from '../../runtime/json-body.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { BodyBudget } from '../read-body.ts';
import { AssemblyQueue } from './assembly-queue.ts';
import { ChunkQuota } from './chunk-quota.ts';
import { chunkExists } from './chunk-store.ts';
import { receiveChunks } from './receive-chunks.ts';
import { requireUploadToken, sentryStyleErrors, uploadTokenOf } from './upload-auth.ts';

export interface UploadLimits {
  /** Assemblies running at once in this process (ERRATA_UPLOAD_MAX_ASSEMBLIES); one per project. */
  maxAssemblies: number;
  /** Bytes of stored chunks per project (ERRATA_UPLOAD_CHUNK_BYTES_PER_PROJECT). */
  chunkBytesPerProject: number;
}

interface UploadDeps {
  metadata: MetadataStore;
  blobs: BlobStore;
  logger: Logger;
  baseUrl: string;
  uploadLimits: UploadLimits;
  /** Ingest's memory budget (ERRATA_INGEST_MEMORY_BYTES), which chunk requests share with SDK requests. */
  bodyBudget: BodyBudget;
  now?: () => number;
  /** How often a claimed assembly is marked running (ASSEMBLY_MARK_MS; shorter in tests). */
  assemblyMarkMs?: number;
}

/** An assembly not marked running for this long is presumed dead (its process gone) and may be claimed again. */
const ASSEMBLY_STALE_MS = 5 * 60_000;
/**
 * How often a claimed assembly is marked running, from its claim (waiting in the queue too)
 * until it ends: a bundle of a gigabyte from a slow blob store, or one waiting behind such a
 * bundle, took longer than ASSEMBLY_STALE_MS, and another process claimed and assembled it a
 * second time meanwhile.
 */
const ASSEMBLY_MARK_MS = 60_000;
/**
 * How long a failed assembly is answered as failed: long enough for the CLI polling it (every
 * second or so) to see the error; after that, the same bundle sent again (sentry-cli's bundles
 * are the same bytes, same checksum, for the same files) is assembled again. Before, an error
 * was answered for good, and a blob store's moment of outage cost that release its source maps.
 */
const FAILED_ASSEMBLY_KEPT_MS = 60_000;

/** Whether an assembly already known is taken up again: one stuck (its process gone), or one that failed a while ago. */
function startsAgain(known: BundleAssembly, now: number): boolean {
  const age = now - known.updatedAt.getTime();
  if (known.state === 'assembling') return age >= ASSEMBLY_STALE_MS;
  return known.state === 'error' && age >= FAILED_ASSEMBLY_KEPT_MS;
}

export function uploadRoutes(deps: UploadDeps): Koa.Middleware {
  const quota = new ChunkQuota(deps.uploadLimits.chunkBytesPerProject, deps.now);
  const assemblies = new AssemblyQueue(deps.uploadLimits.maxAssemblies);
  const router = new Router({ prefix: '/api/0' });
  router.use(sentryStyleErrors());
  router.use(requireUploadToken(deps.metadata));

  router.get('/', (ctx) => {
    const token = uploadTokenOf(ctx);
    ctx.body = { user: null, auth: { scopes: ['project:releases'], project: token.projectSlug, tokenName: token.name } };
  });

  router.get('/organizations/:org/chunk-upload/', (ctx) => {
    ctx.body = chunkUploadOptions(`${deps.baseUrl}/api/0/organizations/${encodeURIComponent(ctx.params.org!)}/chunk-upload/`, {
      maxFileSize: largestBundle(deps.uploadLimits),
      // So many at once fit in ingest's memory beside each other; more would be refused with 503.
      maxRequestSize: Math.min(MAX_REQUEST_BYTES, Math.floor(deps.bodyBudget.limit / UPLOAD_CONCURRENCY)),
    });
  });

  router.post('/organizations/:org/chunk-upload/', async (ctx) => {
    const token = uploadTokenOf(ctx);
    const lease = deps.bodyBudget.lease();
    try {
      await receiveChunks(ctx.req, deps.blobs, { id: token.projectId, slug: token.projectSlug }, quota, lease);
    } finally {
      lease.release();
    }
    ctx.status = 200;
    ctx.body = '';
  });

  router.post('/organizations/:org/artifactbundle/assemble/', async (ctx) => {
    const token = uploadTokenOf(ctx);
    const parsed = assembleRequest.safeParse(await readJsonBody(ctx.req, 1024 * 1024));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UserInputError(`invalid assemble request: ${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    checkProjects(parsed.data, token);
    checkChunkCount(parsed.data, largestBundle(deps.uploadLimits));
    ctx.body = await assemble(deps, assemblies, token, parsed.data);
  });

  const routes = router.routes() as unknown as Koa.Middleware;
  return (ctx, next) =>
    routes(ctx, async () => {
      if (!ctx.path.startsWith('/api/0/') && ctx.path !== '/api/0') return next();
      // Everything else the upload tools may call: debug files, ProGuard, release files...
      ctx.status = 404;
      ctx.body = {
        detail:
          `${ctx.method} ${ctx.path.slice(0, 120)} is not supported: Errata symbolicates browser JavaScript and TypeScript ` +
          'from source maps matched by Debug ID (sentry-cli sourcemaps inject, then sentry-cli sourcemaps upload); ' +
          'native debug files, ProGuard mappings and release-name artifacts are not supported',
      };
    });
}

/** What the chunk-upload options advertise as maxFileSize: a bundle may not take more than the project's chunk quota. */
function largestBundle(limits: UploadLimits): number {
  return Math.min(MAX_BUNDLE_BYTES, limits.chunkBytesPerProject);
}

/**
 * The work an assembly may do is bounded before any is done: the upload tools cut a bundle into
 * chunks of CHUNK_SIZE (the last one shorter), so the largest bundle accepted lists at most so
 * many, and a chunk listed again counts again, since it is hashed again as part of the bundle.
 * The assembly checks the exact sum of their sizes as it reads them.
 */
function checkChunkCount(request: AssembleRequest, maxBytes: number): void {
  const most = Math.ceil(maxBytes / CHUNK_SIZE);
  if (request.chunks.length <= most) return;
  throw new UserInputError(
    `the bundle lists ${request.chunks.length} chunks (repeats included), and the largest bundle this server accepts, ` +
      `${maxBytes} bytes, is at most ${most} chunks of ${CHUNK_SIZE} bytes: upload a smaller bundle`,
  );
}

/** The upload names projects by slug or id; the token decides which one it may be. */
function checkProjects(request: AssembleRequest, token: UploadToken): void {
  const named = request.projects ?? [];
  if (named.length === 0) return;
  const own = named.filter((p) => p === token.projectSlug || p === String(token.projectId));
  if (own.length === named.length) return;
  const other = named.find((p) => p !== token.projectSlug && p !== String(token.projectId));
  throw new ForbiddenError(
    `this upload token belongs to project "${token.projectSlug}", not "${other?.slice(0, 60)}": pass --project ${token.projectSlug} or use that project's token`,
  );
}

async function assemble(
  deps: UploadDeps,
  assemblies: AssemblyQueue,
  token: UploadToken,
  request: AssembleRequest,
): Promise<AssembleResponse> {
  const projectId = token.projectId;
  const created: AssembleResponse = { state: 'created', missingChunks: [], detail: null };
  if (assemblies.isWaiting(projectId, request.checksum)) return created;
  const known = await deps.metadata.getAssembly(projectId, request.checksum);
  if (known && !startsAgain(known, Date.now())) return { state: known.state, missingChunks: [], detail: known.detail };
  // Loaded with the first assembly, not at start: it brings yauzl, a ZIP reader most servers never
  // need. Here, before the place is reserved and the assembly claimed, so that an import that
  // fails leaves neither behind.
  const { assembleBundle } = await import('./assemble-bundle.ts');
  const missing: string[] = [];
  for (const sha1 of new Set(request.chunks)) {
    if (!(await chunkExists(deps.blobs, projectId, sha1))) missing.push(sha1);
  }
  // Sentry answers a poll with no chunks "not_found" too; the CLI then uploads what is missing.
  if (missing.length > 0 || request.chunks.length === 0) return { state: 'not_found', missingChunks: missing, detail: null };
  // The place is taken before the claim (a refusal leaves no assembly that never runs) and
  // with nothing awaited since the check, so concurrent requests cannot all find room.
  const place = assemblies.reserve({ id: projectId, slug: token.projectSlug }, request.checksum);
  if (!place) return created;
  let claimed = false;
  try {
    claimed = await deps.metadata.claimAssembly(
      projectId,
      request.checksum,
      new Date(Date.now() - ASSEMBLY_STALE_MS),
      new Date(Date.now() - FAILED_ASSEMBLY_KEPT_MS),
    );
  } finally {
    if (claimed) {
      const limits = { maxBytes: largestBundle(deps.uploadLimits) };
      const marking = setInterval(() => {
        deps.metadata.keepAssembling(projectId, request.checksum).catch((error: unknown) => {
          deps.logger.warn({ err: error, projectId, checksum: request.checksum }, 'could not mark an assembly running');
        });
      }, deps.assemblyMarkMs ?? ASSEMBLY_MARK_MS);
      marking.unref();
      place.start(() =>
        assembleBundle(deps, projectId, request.checksum, request.chunks, limits).finally(() => clearInterval(marking)),
      );
    } else place.release();
  }
  return created;
}
