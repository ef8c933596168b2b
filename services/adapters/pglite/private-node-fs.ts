// PGlite's Node filesystem, made fit to hold what has been accepted:
// - Every file its user's alone. Emscripten's FS gives each file it creates the mode Postgres
//   asked for (0666) with an explicit chmod after the open, which the process umask cannot
//   narrow: the WAL, the catalogs and pg_hba.conf came out world-readable and writable (issue
//   14). Here every chmod, initdb's included (it reaches these files through the same FS),
//   keeps only the owner's bits.
// - An fsync that reaches the disk. Emscripten's Node filesystem has none, so Postgres's
//   fsync() and fdatasync() (the WAL at each commit, the data files at each checkpoint)
//   returned at once with nothing written out: a commit was durable against a crash of this
//   process (the page cache keeps it) but not of the machine, while the queue had already been
//   told the batch was stored. pglite-client.ts turns Postgres's own fsync on to use it.
// - A failed sync or write heard of. Postgres answers a failed WAL write (a full disk) with a
//   PANIC, which in PGlite ends nothing: it answered no exchange after it, and the thread using
//   it waited for good. The owner hears of the failure and stops (pglite-client.ts), as
//   Postgres would; the next start recovers from what reached the disk.
import nodeFs, { existsSync, fdatasyncSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import { syncDirectorySync, syncFileSync } from '../disk-sync.ts';

type Init = Awaited<ReturnType<NodeFS['init']>>;
type Chmod = (path: unknown, mode: number, dontFollow?: boolean) => void;
/** Emscripten's stream operations of its Node filesystem (NODEFS), shared by the files of one PGlite. */
interface NodeStreamOps {
  fsync?: (stream: { nfd?: number }) => number;
  write?: (
    stream: { nfd?: number; path?: string },
    buffer: Uint8Array,
    offset: number,
    length: number,
    position?: number,
  ) => number;
}
interface EmscriptenModule {
  FS: unknown;
  NODEFS: { stream_ops: NodeStreamOps; tryFSOperation: <T>(operation: () => T) => T };
}

export class PrivateNodeFS extends NodeFS {
  /**
   * `onDiskFailure` hears of a sync or a write that failed. Postgres answers a failed sync, or a
   * failed write of its WAL, with a PANIC, which in PGlite does not end anything (its loop drops
   * the abort), so the caller must stop using the database: what Postgres believes is on disk
   * may not be. (A failed write of a data file is only an ERROR to Postgres; it is heard of too,
   * rather than told apart, and the disk that refused it is full or failing all the same.)
   */
  constructor(
    dataDir: string,
    private readonly onDiskFailure: (error: unknown, operation: 'write' | 'sync') => void,
  ) {
    super(dataDir);
  }

  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): Promise<Init> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const ownFiles = (module: EmscriptenModule) => {
      const fs = module.FS as { chmod: Chmod };
      const chmod = fs.chmod.bind(fs);
      fs.chmod = (path, mode, dontFollow) => chmod(path, mode & ~0o077, dontFollow);
      const nodefs = module.NODEFS;
      // fdatasync covers what reading the data back needs (a grown file's size).
      nodefs.stream_ops.fsync = (stream) =>
        nodefs.tryFSOperation(() => {
          try {
            if (stream.nfd !== undefined) fdatasyncSync(stream.nfd);
          } catch (error) {
            this.onDiskFailure(error, 'sync');
            throw error;
          }
          return 0;
        });
      // As NODEFS writes (its stream_ops.write), heard of when it fails. Not a temporary file's
      // (a sort or hash spilled to base/pgsql_tmp): it holds nothing committed, and Postgres
      // fails only that query, as it should here too.
      nodefs.stream_ops.write = (stream, buffer, offset, length, position) =>
        nodefs.tryFSOperation(() => {
          try {
            return nodeFs.writeSync(stream.nfd!, buffer, offset, length, position);
          } catch (error) {
            if (!stream.path?.includes('/pgsql_tmp/')) this.onDiskFailure(error, 'write');
            throw error;
          }
        });
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), ownFiles] } };
  }
}

/** Written into a data directory once all of it reached the disk (syncDataDirectoryOnce). */
const SYNCED_MARKER = 'errata-synced';

/**
 * Syncs a data directory's every file and folder, once: initdb writes a new one from an instance
 * of its own, through a filesystem without fsync, and a checkpoint syncs only the files its own
 * instance wrote, so without this a machine's crash soon after the first start could leave a
 * catalog half written. A marker written after the sync records that it was done: a crash in
 * between leaves no marker, and the next start syncs again (a directory from before the marker
 * existed is synced once too). A copy of a synced directory carries the marker: whoever copies
 * one is to sync the copy (the test suite's copies need not survive a crash).
 */
export function syncDataDirectoryOnce(dataDir: string): void {
  const marker = join(dataDir, SYNCED_MARKER);
  if (existsSync(marker)) return;
  syncDirectoryTree(dataDir);
  syncDirectorySync(dirname(dataDir)); // the data directory's own entry
  writeFileSync(marker, '', { mode: 0o600 });
  syncFileSync(marker);
  syncDirectorySync(dataDir);
}

function syncDirectoryTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) syncDirectoryTree(join(dir, entry.name));
    else if (entry.isFile()) syncFileSync(join(dir, entry.name));
  }
  syncDirectorySync(dir);
}
