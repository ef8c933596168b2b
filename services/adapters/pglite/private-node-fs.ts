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
import { fdatasyncSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type Init = Awaited<ReturnType<NodeFS['init']>>;
type Chmod = (path: unknown, mode: number, dontFollow?: boolean) => void;
/** Emscripten's stream operations of its Node filesystem (NODEFS), shared by every file it opens. */
interface NodeStreamOps {
  fsync?: (stream: { nfd?: number }) => number;
}
interface EmscriptenModule {
  FS: unknown;
  NODEFS: { stream_ops: NodeStreamOps; tryFSOperation: <T>(operation: () => T) => T };
}

export class PrivateNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): Promise<Init> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const ownFiles = (module: EmscriptenModule) => {
      const fs = module.FS as { chmod: Chmod };
      const chmod = fs.chmod.bind(fs);
      fs.chmod = (path, mode, dontFollow) => chmod(path, mode & ~0o077, dontFollow);
      const nodefs = module.NODEFS;
      // fdatasync covers what reading the data back needs (a grown file's size), as Postgres's
      // wal_sync_method asks. A failure reaches Postgres as an I/O error (tryFSOperation maps
      // it), which there fails the commit or checkpoint instead of passing silently.
      nodefs.stream_ops.fsync = (stream) =>
        nodefs.tryFSOperation(() => {
          if (stream.nfd !== undefined) fdatasyncSync(stream.nfd);
          return 0;
        });
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), ownFiles] } };
  }
}
