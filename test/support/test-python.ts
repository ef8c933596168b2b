// The Python interpreter that has sentry-sdk: ERRATA_TEST_PYTHON when the caller names one,
// otherwise the virtualenv test/setup/provision.sh fills (npm test runs it first; its cache
// path is kept in step with this one), otherwise python3 as found on PATH.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function testPython(): string {
  if (process.env.ERRATA_TEST_PYTHON) return process.env.ERRATA_TEST_PYTHON;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const venvPython = join(cache, 'errata-ci', 'venv', 'bin', 'python');
  return existsSync(venvPython) ? venvPython : 'python3';
}
