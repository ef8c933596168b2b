// Where test/setup/build-prometheus.sh (run by test/setup/provision.sh, which `npm test` and
// `npm run test:distributed` run first) put prometheus and promtool: <cache>/bin/prometheus-<v>/,
// with <v> read from that script so the two never disagree.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './standalone-server.ts';

export function prometheusBinaries(): { prometheus: string; promtool: string } {
  const script = readFileSync(join(REPO_ROOT, 'test', 'setup', 'build-prometheus.sh'), 'utf8');
  const version = /^PROMETHEUS_MODULE_VERSION=(\S+)/m.exec(script)?.[1];
  if (!version) throw new Error('test/setup/build-prometheus.sh does not set PROMETHEUS_MODULE_VERSION');
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const dir = join(cache, 'errata-ci', 'bin', `prometheus-${version}`);
  const binaries = { prometheus: join(dir, 'prometheus'), promtool: join(dir, 'promtool') };
  if (!existsSync(binaries.prometheus) || !existsSync(binaries.promtool)) {
    throw new Error(`prometheus and promtool are not built in ${dir}: run bash test/setup/provision.sh prometheus`);
  }
  return binaries;
}
