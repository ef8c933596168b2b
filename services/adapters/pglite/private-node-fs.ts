// PGlite's Node filesystem, with every file its user's alone. Emscripten's FS gives each file it
// creates the mode Postgres asked for (0666) with an explicit chmod after the open, which the
// process umask cannot narrow: the WAL, the catalogs and pg_hba.conf came out world-readable and
// writable (issue 14). Here every chmod, initdb's included (it reaches these files through the
// same FS), keeps only the owner's bits.
import type { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

type Init = Awaited<ReturnType<NodeFS['init']>>;
type Chmod = (path: unknown, mode: number, dontFollow?: boolean) => void;

export class PrivateNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): Promise<Init> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const ownerOnly = (module: { FS: unknown }) => {
      const fs = module.FS as { chmod: Chmod };
      const chmod = fs.chmod.bind(fs);
      fs.chmod = (path, mode, dontFollow) => chmod(path, mode & ~0o077, dontFollow);
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), ownerOnly] } };
  }
}
