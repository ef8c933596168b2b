// Prepares the real SDK clients the standalone suite drives: builds the sentry-go client into
// a cache directory outside the repository, and checks that Python's sentry-sdk and Debian's
// Chromium are installed (test/setup/provision.sh, which npm test runs first, installs them).
// A missing client fails the suite loudly. It also creates the database the suite's servers
// start from (DATABASE_TEMPLATE_ENV), once for the run.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { DATABASE_TEMPLATE_ENV, REPO_ROOT, runProcess } from '../support/standalone-server.ts';
import { testPython } from '../support/test-python.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    goClient: string;
    python: string;
    chromium: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'errata-test');
  await mkdir(cache, { recursive: true });
  const goClient = join(cache, 'go-client');
  const build = await runProcess('go', ['build', '-o', goClient, '.'], {
    cwd: join(REPO_ROOT, 'test', 'clients', 'go'),
    timeoutMs: 300_000,
  });
  if (build.code !== 0) throw new Error(`building the sentry-go test client failed (is Go installed?):\n${build.stderr}`);

  const python = testPython();
  const check = await runProcess(python, ['-c', 'import sentry_sdk; print(sentry_sdk.VERSION)']);
  if (check.code !== 0)
    throw new Error(`Python sentry-sdk is missing from ${python}: bash test/setup/provision.sh python\n${check.stderr}`);

  const chromium = process.env.ERRATA_TEST_CHROMIUM ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) throw new Error(`Chromium is missing at ${chromium}: sudo apt-get install chromium`);

  // With this run's migrations, by the real binary (dist/, which npm test builds first); the
  // test workers, started after this, inherit the variable.
  const templateParent = await mkdtemp(join(tmpdir(), 'errata-db-template-'));
  const template = join(templateParent, 'db');
  const init = await runProcess(process.execPath, [join(REPO_ROOT, 'bin', 'errata.js'), 'init-embedded-db', template]);
  if (init.code !== 0) {
    await rm(templateParent, { recursive: true, force: true });
    throw new Error(`creating the servers' database template failed:\n${init.stderr}`);
  }
  process.env[DATABASE_TEMPLATE_ENV] = template;

  project.provide('goClient', goClient);
  project.provide('python', python);
  project.provide('chromium', chromium);
  return () => rm(templateParent, { recursive: true, force: true });
}
