// Runs a real standalone Errata server as a child process (`node bin/errata.js start`) on a
// free loopback port and a fresh data directory, and drives it the way a user would: the CLI,
// HTTP, SIGTERM and kill -9. Stopped by PID, never by name.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { embeddedDatabaseDir } from '../../services/runtime/embedded/database-dir.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(REPO_ROOT, 'bin', 'errata.js');

/**
 * The flags `npm start` gives node, read from package.json's start script, so that the suites and
 * benchmarks run the server as a user does. Read when a server starts, not when this module loads:
 * the distributed and operator suites import it too. (`npm start`'s environment, MALLOC_ARENA_MAX,
 * is copied by hand in startServer.)
 */
function startNodeFlags(): string[] {
  const script: string = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts.start;
  const flags = /\bnode((?: --[\w-]+=\w+)*) bin\/errata\.js start$/.exec(script);
  if (!flags)
    throw new Error(`package.json's start script is not \`... node [--flag=value ...] bin/errata.js start\`: ${script}`);
  return flags[1]!.split(' ').filter(Boolean);
}

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A server process the suites started: its output so far, and the two ways to end it. */
export interface ServerProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything the server printed so far. */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the process gets no chance to clean up. */
  kill(): Promise<void>;
}

export interface StandaloneServer extends ServerProcess {
  url: string;
  port: number;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function tempDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'errata-e2e-'));
}

/**
 * Set by the standalone suite's global setup: a database directory `errata init-embedded-db`
 * created once for the whole run. Creating one (initdb in WebAssembly, then the migrations) takes
 * 6-7 s of CPU, and every server of the suite would otherwise do it again.
 */
export const DATABASE_TEMPLATE_ENV = 'ERRATA_TEST_DATABASE_TEMPLATE';

/**
 * A fresh data directory whose database already exists, copied from the suite's template when
 * there is one (the server then opens it as it would after its first start); an empty one
 * otherwise (a benchmark's server creates its own). Tests of creating a database use tempDataDir.
 */
export async function initializedDataDir(): Promise<string> {
  const dataDir = await tempDataDir();
  const template = process.env[DATABASE_TEMPLATE_ENV];
  if (template) {
    // coreutils' cp: node's fs.cp took 1-2.6 s for the template's 1,144 files, cp -a 0.2-0.5 s.
    const copy = await runProcess('cp', ['-a', template, embeddedDatabaseDir(dataDir)]);
    if (copy.code !== 0) throw new Error(`copying the database template into ${dataDir} failed: ${copy.stderr}`);
  }
  return dataDir;
}

export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/** The end of a suite: the server must exit 0 on SIGTERM (a clean drain); then its data goes. */
export async function stopAndRemove(server: StandaloneServer): Promise<void> {
  const code = await server.stop();
  if (code !== 0) throw new Error(`errata start exited with ${code} on SIGTERM, not 0:\n${server.output()}`);
  await removeDir(server.dataDir);
}

interface StartOptions {
  dataDir?: string;
  port?: number;
  env?: Record<string, string>;
}

export async function startServer(options: StartOptions = {}): Promise<StandaloneServer> {
  const dataDir = options.dataDir ?? (await initializedDataDir());
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ERRATA_DATA_DIR: dataDir,
    ERRATA_PORT: String(port),
    ERRATA_HOST: '127.0.0.1',
    ERRATA_BASE_URL: `http://127.0.0.1:${port}`,
    ERRATA_LOG_LEVEL: 'warn',
    // As `npm start` runs it (see the README): fewer malloc arenas, a smaller resident set.
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    ...options.env,
  };
  const url = `http://127.0.0.1:${port}`;
  return { url, port, dataDir, env, ...(await spawnUntilHealthy(['start'], env, url, { nodeFlags: startNodeFlags() })) };
}

/** Starts `errata <args>` (from `bin`, the repository's by default, with `nodeFlags` for node itself) and resolves once its /healthz at `url` answers 200 (or fails, with its output). */
export async function spawnUntilHealthy(
  args: string[],
  env: NodeJS.ProcessEnv,
  url: string,
  { bin = BIN, nodeFlags = [] }: { bin?: string; nodeFlags?: string[] } = {},
): Promise<ServerProcess> {
  const what = `errata ${args.join(' ')}`;
  const child = spawn(process.execPath, [...nodeFlags, bin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${what} did not become healthy:\n${output}`);
    }
    const status = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) {
      return {
        child,
        exited,
        output: () => output,
        async stop() {
          child.kill('SIGTERM');
          return exited;
        },
        async kill() {
          child.kill('SIGKILL');
          await exited;
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `errata <args>` with the given environment, and `input` on its standard input when given. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CommandResult> {
  return runProcess(process.execPath, [BIN, ...args], { env, input });
}

export async function runCliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runCli(['--json', ...args], env);
  if (result.code !== 0) throw new Error(`errata ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export function runProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface Provisioned {
  organization: string;
  projectSlug: string;
  projectId: number;
  dsn: string;
  publicKey: string;
  /** An organization-wide admin token. */
  token: string;
}

/** A project and an admin token on a running server, made with the real CLI. */
export async function provision(server: { env: NodeJS.ProcessEnv }, projectName = 'E2E App'): Promise<Provisioned> {
  const project = await runCliJson<{ organization: string; project: { slug: string; id: number }; dsn: string }>(
    ['createproject', '--name', projectName],
    server.env,
  );
  const token = await runCliJson<{ plaintext: string }>(
    ['createtoken', '--role', 'admin', '--name', `admin-${project.project.slug}`],
    server.env,
  );
  return {
    organization: project.organization,
    projectSlug: project.project.slug,
    projectId: project.project.id,
    dsn: project.dsn,
    publicKey: new URL(project.dsn).username,
    token: token.plaintext,
  };
}

/** GET a read-API path with a bearer token; returns status and parsed JSON. */
export async function api<T = Record<string, unknown>>(
  server: { url: string },
  path: string,
  token: string,
): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as T, headers: response.headers };
}

/**
 * A JSON request to an API path, with a bearer token when one is given; a string body is sent
 * as it is (for malformed JSON), anything else as JSON. Returns status and parsed JSON.
 */
export async function apiRequest(
  server: { url: string },
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** The first JSON log line a server printed with message `msg`, once it has printed it (log level info or finer). */
export async function loggedLine(server: ServerProcess, msg: string): Promise<Record<string, unknown>> {
  const find = async () =>
    server
      .output()
      .split('\n')
      .find((line) => line.includes(`"msg":${JSON.stringify(msg)}`));
  return JSON.parse(await eventually(find, `the log line "${msg}"`));
}

/** Polls until `check` returns a value (not undefined), or fails after the deadline. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
