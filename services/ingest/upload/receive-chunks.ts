// The chunk POST of the upload protocol: multipart/form-data, one part per chunk, named `file`
// (raw) or `file_gzip` (gzip), whose filename is the SHA-1 of the raw chunk. Every chunk is
// verified against its SHA-1 (a gzip one as it inflates, keeping nothing inflated) and stored
// under the uploading project as it was sent, unless already there, within the project's chunk
// quota; sizes are bounded by what the chunk-upload options advertise.
import type { IncomingMessage } from 'node:http';
import type { Busboy } from 'busboy';
import { PayloadTooLargeError, UserInputError } from '../../core/errors.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import { CHUNK_SIZE, CHUNKS_PER_REQUEST, MAX_REQUEST_BYTES, SHA1 } from '../../core/sourcemaps/upload-protocol.ts';
import type { MemoryLease } from '../read-body.ts';
import type { ChunkQuota, QuotaProject } from './chunk-quota.ts';
import { chunkExists, inflatedSha1, sha1Of, storeChunk } from './chunk-store.ts';

interface Part {
  field: string;
  name: string;
  body: Buffer;
}

export async function receiveChunks(
  req: IncomingMessage,
  blobs: BlobStore,
  project: QuotaProject,
  quota: ChunkQuota,
  lease: Pick<MemoryLease, 'take'>,
): Promise<number> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_REQUEST_BYTES) {
    throw new PayloadTooLargeError(
      `request too large: at most ${MAX_REQUEST_BYTES} bytes per chunk upload request`,
      MAX_REQUEST_BYTES,
    );
  }
  const parts = await readParts(req, (await import('busboy')).default, lease);
  // A project whose chunks already fill its quota is refused before any part is inflated.
  if (parts.length > 0) quota.check(project);
  for (const part of parts) {
    const gzipped = part.field === 'file_gzip';
    const sha1 = gzipped ? await inflatedSha1(part.body) : sha1Of(part.body);
    if (sha1 === undefined) throw new UserInputError(`chunk "${part.name}" is not valid gzip of at most ${CHUNK_SIZE} bytes`);
    if (sha1 !== part.name) {
      throw new UserInputError(
        `chunk "${part.name.slice(0, 60)}" does not match its SHA-1 (${sha1}): the upload was corrupted, retry it`,
      );
    }
    // Stored already (its name is its content): it costs nothing more.
    if (await chunkExists(blobs, project.id, sha1)) continue;
    quota.charge(project, part.body.length);
    await storeChunk(blobs, project.id, sha1, gzipped ? 'gzip' : 'raw', part.body);
  }
  return parts.length;
}

/**
 * `busboy` is handed in, loaded with the first upload: a server that never receives one need not
 * hold it. The parts are held until they are stored, so the bytes received are charged to
 * ingest's memory budget as they arrive: any number of chunk requests at once (32 MiB each)
 * could take the process's memory.
 */
function readParts(req: IncomingMessage, busboy: typeof import('busboy'), lease: Pick<MemoryLease, 'take'>): Promise<Part[]> {
  return new Promise((resolve, reject) => {
    let parser: Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { files: CHUNKS_PER_REQUEST, fileSize: CHUNK_SIZE, fields: 0 } });
    } catch {
      reject(new UserInputError('expected a multipart/form-data body with one part per chunk'));
      return;
    }
    const parts: Part[] = [];
    let failure: Error | undefined;
    // A bad part is remembered and the rest of the body still read (bounded by the limits), so
    // the client gets the answer; a body over the request limit is abandoned at once.
    const fail = (error: Error) => {
      failure ??= error;
    };
    let received = 0;
    // Every chunk's pieces, so that an abandoned request lets go of them at once: its listeners
    // live until the rest of its body has been read, which a slow client stretches for minutes.
    const held: Buffer[][] = [];
    let abandoned = false;
    // Abandoned, the rest of the body is read and dropped, charged to nothing.
    const abandon = (error: Error) => {
      abandoned = true;
      req.off('data', onData);
      req.unpipe(parser);
      req.resume();
      parts.length = 0;
      for (const pieces of held) pieces.length = 0;
      reject(error);
    };
    const onData = (piece: Buffer) => {
      received += piece.length;
      if (received > MAX_REQUEST_BYTES) {
        return abandon(
          new PayloadTooLargeError(
            `request too large: at most ${MAX_REQUEST_BYTES} bytes per chunk upload request`,
            MAX_REQUEST_BYTES,
          ),
        );
      }
      const refusal = lease.take(piece.length);
      if (refusal) abandon(refusal);
    };
    req.on('data', onData);
    parser.on('file', (field, stream, info) => {
      const name = info.filename ?? '';
      if ((field !== 'file' && field !== 'file_gzip') || !SHA1.test(name)) {
        stream.resume();
        return fail(new UserInputError('each part must be named "file" or "file_gzip", with the chunk\'s SHA-1 as its filename'));
      }
      const pieces: Buffer[] = [];
      held.push(pieces);
      stream.on('data', (piece: Buffer) => abandoned || pieces.push(piece));
      stream.on('limit', () => fail(new PayloadTooLargeError(`chunk too large: at most ${CHUNK_SIZE} bytes`, CHUNK_SIZE)));
      stream.on('end', () => {
        if (abandoned) return;
        parts.push({ field, name, body: Buffer.concat(pieces) });
        pieces.length = 0; // held no longer: the chunk is in its part
      });
    });
    parser.on('filesLimit', () => fail(new UserInputError(`too many chunks: at most ${CHUNKS_PER_REQUEST} per request`)));
    parser.on('error', () => {
      fail(new UserInputError('the multipart body could not be read'));
      reject(failure);
    });
    parser.on('close', () => (failure ? reject(failure) : resolve(parts)));
    req.on('error', (error) => reject(error));
    req.pipe(parser);
  });
}
