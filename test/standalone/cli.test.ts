// The `errata` CLI, with and without a server running on the same data directory, and the
// start-up behaviour around it: first-start banner, configuration errors, one owner per
// data directory, /healthz and /metrics.
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addOrganization, tableText } from '../support/embedded-admin.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { api, freePort, loggedLine, runCli, runCliJson, runProcess, startServer } from '../support/standalone-server.ts';
import { cliEnvironments } from '../support/cli-env.ts';
import { metricTotal } from '../support/metrics.ts';
import { backendHeapMb } from '../../services/runtime/embedded/backend-heap.ts';
import { acquireInstanceLock, currentHolder } from '../../services/runtime/instance-lock.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const { dataDir, cliEnv } = cliEnvironments();

/** The .mcp.json `errata createtoken` prints: the indented block after the line naming it. */
function printedMcpJson(stdout: string): string {
  const lines = stdout.split('\n');
  const start = lines.findIndex((line) => line.includes('.mcp.json')) + 1;
  const end = lines.indexOf('', start);
  return lines
    .slice(start, end)
    .map((line) => line.slice(2))
    .join('\n');
}

/** whoami's token name through the real MCP client, sending exactly these headers. */
async function whoamiWith(url: string, headers: Record<string, string>): Promise<unknown> {
  const client = new Client({ name: 'errata-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  try {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    return (result.structuredContent as { tokenName?: string } | undefined)?.tokenName;
  } finally {
    await client.close();
  }
}

describe('errata CLI without a running server', () => {
  it('creates a project and prints its DSN', async () => {
    const env = await cliEnv();
    const result = await runCli(['createproject', '--name', 'Checkout Service'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Created project "checkout-service" \(id 1\) in organization "default"/);
    expect(result.stdout).toMatch(new RegExp(`DSN: http://[0-9a-f]{32}@127\\.0\\.0\\.1:${env.ERRATA_PORT}/1\\n`));
    const again = await runCli(['createproject', '--name', 'Other', '--slug', 'checkout-service'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/a project with slug "checkout-service" already exists: pick another --slug/);
    const list = await runCliJson<{ projects: Array<{ slug: string; dsns: Array<{ dsn: string }> }> }>(['listprojects'], env);
    expect(list.projects.map((p) => p.slug)).toEqual(['checkout-service']);
  });

  it('mints a token shown once with a ready-to-paste MCP configuration, storing only its hash', async () => {
    const env = await cliEnv({ initialized: true });
    await runCli(['createproject', '--name', 'web'], env);
    const result = await runCli(['createtoken', '--project', 'web', '--name', 'repo-web'], env);
    expect(result.code).toBe(0);
    const token = /(errata_agent_[0-9A-Za-z]{43})/.exec(result.stdout)?.[1];
    expect(token).toBeDefined();
    expect(result.stdout).toMatch(/Created triage token "repo-web" for project "web"/);
    // The plaintext once, in a line for a shell profile; the command and .mcp.json name the variable.
    expect(result.stdout.split(token!)).toHaveLength(2);
    expect(result.stdout).toContain(`\n  export ERRATA_TOKEN=${token}\n`);
    expect(result.stdout).toContain(
      `claude mcp add --transport http errata http://127.0.0.1:${env.ERRATA_PORT}/mcp --header "Authorization: Bearer $ERRATA_TOKEN"`,
    );
    const mcpJson = printedMcpJson(result.stdout);
    expect(mcpJson).toContain('"Authorization": "Bearer ${ERRATA_TOKEN}"');
    expect(mcpJson).not.toContain(token!);
    expect(JSON.parse(mcpJson)).toEqual({
      mcpServers: {
        errata: {
          type: 'http',
          url: `http://127.0.0.1:${env.ERRATA_PORT}/mcp`,
          headers: { Authorization: 'Bearer ${ERRATA_TOKEN}' },
        },
      },
    });
    const asJson = await runCliJson<{ plaintext: string; mcpClient: Record<string, string> }>(
      ['createtoken', '--project', 'web', '--name', 'script-web'],
      env,
    );
    expect(asJson.plaintext).toMatch(/^errata_agent_[0-9A-Za-z]{43}$/);
    expect(asJson.mcpClient).toEqual({
      environmentVariable: 'ERRATA_TOKEN',
      export: `export ERRATA_TOKEN=${asJson.plaintext}`,
      command: `claude mcp add --transport http errata http://127.0.0.1:${env.ERRATA_PORT}/mcp --header "Authorization: Bearer $ERRATA_TOKEN"`,
      mcpJson,
    });
    const rows = await tableText(env.ERRATA_DATA_DIR!, 'SELECT * FROM agent_tokens');
    expect(rows).toContain('repo-web');
    expect(rows).not.toContain(token!.slice('errata_agent_'.length));
    const listed = await runCli(['listtokens'], env);
    expect(listed.stdout).toMatch(/repo-web {2}role=triage {2}scope=web/);
    expect(listed.stdout).not.toContain(token!);
    expect(listed.stdout).not.toContain(asJson.plaintext);
    expect((await runCli(['revoketoken', 'repo-web'], env)).stdout).toMatch(/Revoked token "repo-web"/);
    expect((await runCli(['revoketoken', 'repo-web'], env)).stderr).toMatch(/no live token named "repo-web"/);
  });

  it("mints a source map upload token for one project, shown once with the upload tools' settings, storing only its hash", async () => {
    const env = await cliEnv({ initialized: true });
    await runCli(['createproject', '--name', 'web'], env);
    const result = await runCli(['createuploadtoken', '--project', 'web', '--name', 'ci-web'], env);
    expect(result.code).toBe(0);
    const token = /(errata_[0-9A-Za-z]{43})\b/.exec(result.stdout)?.[1];
    expect(token).toBeDefined();
    expect(result.stdout).toContain(`SENTRY_URL=http://127.0.0.1:${env.ERRATA_PORT}`);
    expect(result.stdout).toContain(`SENTRY_AUTH_TOKEN=${token}`);
    expect(result.stdout).toContain('SENTRY_PROJECT=web');
    const rows = await tableText(env.ERRATA_DATA_DIR!, 'SELECT * FROM upload_tokens');
    expect(rows).toContain('ci-web');
    expect(rows).not.toContain(token!.slice('errata_'.length));
    const listed = await runCli(['listuploadtokens'], env);
    expect(listed.stdout).toMatch(/ci-web {2}project=web/);
    expect(listed.stdout).not.toContain(token!);
    expect((await runCli(['createuploadtoken', '--project', 'web', '--name', 'ci-web'], env)).stderr).toMatch(
      /an upload token named "ci-web" already exists/,
    );
    expect((await runCli(['createuploadtoken', '--project', 'nope'], env)).stderr).toMatch(/no project "nope"/);
    expect((await runCli(['revokeuploadtoken', 'ci-web'], env)).stdout).toMatch(/Revoked upload token "ci-web"/);
    expect((await runCli(['revokeuploadtoken', 'ci-web'], env)).stderr).toMatch(/no live upload token named "ci-web"/);
    expect(
      (await runCliJson<{ tokens: Array<{ revokedAt: string | null }> }>(['listuploadtokens'], env)).tokens[0]?.revokedAt,
    ).not.toBeNull();
  });

  it('asks for --organization when the instance has more than one', async () => {
    const env = await cliEnv({ initialized: true });
    await runCli(['listprojects'], env);
    await addOrganization(env.ERRATA_DATA_DIR!, 'second');
    const refused = await runCli(['createtoken', '--role', 'read'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/this instance has 2 organizations: pass --organization <slug> \(one of: default, second\)/);
    const created = await runCliJson<{ organization: string }>(
      ['createtoken', '--role', 'read', '--organization', 'second'],
      env,
    );
    expect(created.organization).toBe('second');
  });

  it('refuses bad input with a message saying how to fix it', async () => {
    const env = await cliEnv({ initialized: true });
    expect((await runCli(['createtoken', '--role', 'owner'], env)).stderr).toMatch(/Allowed choices are read, triage, admin/);
    expect((await runCli(['createtoken', '--project', 'nope'], env)).stderr).toMatch(/no project "nope"/);
    expect((await runCli(['createproject'], env)).stderr).toMatch(/required option '--name <name>'/);
    await runCli(['createproject', '--name', 'web'], env);
    // An unset shell variable passed as the value: it set the limit to 0, refusing every event.
    for (const value of ['', ' ', '0x10', '1e3', '-5']) {
      const refused = await runCli(['setratelimit', '--project', 'web', '--events-per-minute', value], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/--events-per-minute takes a whole number of events, or "default"/);
    }
    expect((await runCli(['setratelimit', '--project', 'web', '--events-per-minute', '0'], env)).stdout).toMatch(
      /now accepts 0 events per minute/,
    );
  });
});

describe('errata start', () => {
  it('refuses to start on a bad configuration value, naming the variable', async () => {
    const env = { ...(await cliEnv()), ERRATA_PORT: 'eighty' };
    const result = await runCli(['start'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ERRATA_PORT="eighty"/);
  });

  it("keeps V8's heap growing factor unless ERRATA_HEAP_GROWING_PERCENT sets one, and says which in its start line", async () => {
    const startLine = async (env: Record<string, string>) => {
      const server = await startServer({ env: { ERRATA_LOG_LEVEL: 'info', ...env } });
      try {
        return await loggedLine(server, 'errata started');
      } finally {
        await server.stop();
      }
    };
    expect(await startLine({ ERRATA_HEAP_GROWING_PERCENT: '300' })).toMatchObject({ heapGrowingPercent: 300 });
    expect(await startLine({})).not.toHaveProperty('heapGrowingPercent');
  });

  it('prints the base URL and next steps, serves /healthz and /metrics, and lets the CLI work while running', async () => {
    const server = await startServer({ dataDir: await dataDir({ initialized: true }) });
    try {
      expect(server.output()).toMatch(
        new RegExp(`Errata \\d+\\.\\d+\\.\\d+ is running at http://127\\.0\\.0\\.1:${server.port}`),
      );
      expect(server.output()).toMatch(/organization: default \(created now\)/);
      expect(server.output()).toMatch(/errata createproject --name/);
      expect(server.output()).toMatch(/errata createtoken --role triage --project <slug>/);

      expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
      const metrics = await fetch(`${server.url}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await metrics.text();
      for (const name of [
        'errata_http_requests_total',
        'errata_http_request_duration_seconds',
        'errata_queue_lag',
        'errata_process_resident_memory_bytes',
      ]) {
        expect(text).toContain(name);
      }
      // The backend thread runs with the heap cap backend-heap.ts computes, plus its young generation.
      const backendHeapLimit = await metricTotal(server, 'errata_thread_heap_bytes', { thread: 'backend', kind: 'limit' });
      expect(backendHeapLimit / 2 ** 20).toBeGreaterThanOrEqual(backendHeapMb());
      expect(backendHeapLimit / 2 ** 20).toBeLessThan(backendHeapMb() + 64);

      // The server owns the database; the CLI goes through it.
      const project = await runCliJson<{ dsn: string; project: { slug: string } }>(
        ['createproject', '--name', 'Live'],
        server.env,
      );
      const token = await runCliJson<{ plaintext: string; token: { name: string } }>(
        ['createtoken', '--role', 'read'],
        server.env,
      );
      const projects = await api<{ projects: Array<{ slug: string }> }>(
        server,
        '/api/v1/organizations/default/projects',
        token.plaintext,
      );
      expect(projects.body.projects.map((p) => p.slug)).toEqual([project.project.slug]);
      expect(project.project.slug).toBe('live');
      await runCli(['revoketoken', token.token.name], server.env);
      expect((await api(server, '/api/v1/organizations/default/projects', token.plaintext)).status).toBe(401);
      // A shell whose ERRATA_BASE_URL is not the server's: the addresses printed are still the
      // server's (they were the shell's).
      const shell = { ...server.env, ERRATA_BASE_URL: 'https://shell.example' };
      const upload = await runCli(['createuploadtoken', '--project', 'live'], shell);
      expect(upload.stdout).toContain(`SENTRY_URL=${server.url}`);
      const agent = await runCli(['createtoken', '--role', 'read'], shell);
      expect(agent.stdout).toContain(`--transport http errata ${server.url}/mcp`);

      const second = await runCli(['start'], { ...server.env, ERRATA_PORT: String(await freePort()) });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/another Errata server \(pid \d+\) is using this data directory/);
      const samePort = await runCli(['start'], { ...server.env, ERRATA_DATA_DIR: await dataDir() });
      expect(samePort.code).toBe(1);
      expect(samePort.stderr).toMatch(
        new RegExp(`cannot listen on 127\\.0\\.0\\.1:${server.port} \\(EADDRINUSE\\): set ERRATA_HOST or ERRATA_PORT`),
      );
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('starts once a command holding its data directory is done, and a command run while it starts waits for its socket', async () => {
    const directory = await dataDir({ initialized: true });
    // A command's hold on the directory (this process is alive, as a running command is): the
    // server refused to start ("an errata command is using this data directory").
    const command = await acquireInstanceLock(directory, { kind: 'cli' });
    const released = sleep(1500).then(() => command.release());
    const first = await startServer({ dataDir: directory });
    await released;
    expect(await first.stop()).toBe(0);

    // The server holds the directory before its admin socket listens: a command in between failed
    // with "did not answer on its admin socket".
    const port = await freePort();
    const starting = startServer({ dataDir: directory, port });
    while ((await currentHolder(directory))?.kind !== 'server') await sleep(10);
    const created = await runCli(['createproject', '--name', 'Race'], {
      ...process.env,
      ERRATA_DATA_DIR: directory,
      ERRATA_BASE_URL: `http://127.0.0.1:${port}`,
      ERRATA_LOG_LEVEL: 'warn',
    });
    const server = await starting;
    try {
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.stdout).toMatch(/Created project "race"/);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("prints an MCP client configuration that connects once the export line's variable is set", async () => {
    const server = await startServer({ dataDir: await dataDir({ initialized: true }) });
    try {
      await runCliJson(['createproject', '--name', 'web'], server.env);
      const printed = await runCli(['createtoken', '--role', 'read', '--project', 'web', '--name', 'repo-web'], server.env);
      expect(printed.code).toBe(0);
      expect(printed.stdout).toMatch(/^ {2}export ERRATA_TOKEN=errata_agent_\S+$/m);
      const exportLine = /^ {2}(export ERRATA_TOKEN=\S+)$/m.exec(printed.stdout)![1]!;
      const command = /^ {2}(claude mcp add .*)$/m.exec(printed.stdout)![1]!;
      // A real shell runs the export line, then the printed command against a stand-in `claude`
      // that prints the arguments it was given: the header arrives with the token expanded.
      const { ERRATA_TOKEN: _unset, ...withoutToken } = process.env;
      const shell = await runProcess('bash', ['-c', `claude() { printf '%s\\n' "$@"; }\n${exportLine}\n${command}`], {
        env: withoutToken,
      });
      expect(shell.code).toBe(0);
      const args = shell.stdout.trimEnd().split('\n');
      expect(args.slice(0, 6)).toEqual(['mcp', 'add', '--transport', 'http', 'errata', `${server.url}/mcp`]);
      expect(args[6]).toBe('--header');
      const [name, value] = args[7]!.split(': ');
      const token = value!.replace(/^Bearer /, '');
      expect(token).toMatch(/^errata_agent_[0-9A-Za-z]{43}$/);
      expect(await whoamiWith(`${server.url}/mcp`, { [name!]: value! })).toBe('repo-web');

      // The .mcp.json, its ${ERRATA_TOKEN} expanded from the same variable as Claude Code does.
      const config = JSON.parse(printedMcpJson(printed.stdout)) as {
        mcpServers: { errata: { url: string; headers: Record<string, string> } };
      };
      const headers = Object.fromEntries(
        Object.entries(config.mcpServers.errata.headers).map(([name, value]) => [
          name,
          value.replace(/\$\{(\w+)\}/g, (_all, variable: string) => (variable === 'ERRATA_TOKEN' ? token : '')),
        ]),
      );
      expect(await whoamiWith(config.mcpServers.errata.url, headers)).toBe('repo-web');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('starts on a data directory path too long for a socket though another user made the old predictable socket directory, and the CLI reaches it', async () => {
    // A temporary directory of its own stands for /tmp, so that what the server leaves there is seen.
    const temp = await dataDir();
    const long = join(await dataDir(), 'd'.repeat(120));
    // Where the socket used to go: a name anyone could work out, made first by someone else.
    const predictable = `errata-${process.getuid!()}-${createHash('sha256').update(long).digest('hex').slice(0, 12)}`;
    await mkdir(join(temp, predictable));
    await chmod(join(temp, predictable), 0o777);
    const socketDirs = async () => (await readdir(temp)).filter((name) => name !== predictable);
    const recordedSocket = async () =>
      (JSON.parse(await readFile(join(long, 'errata.lock'), 'utf8')) as { socket: string }).socket;

    const first = await startServer({ dataDir: long, env: { TMPDIR: temp } });
    const firstSocket = await recordedSocket();
    expect(dirname(dirname(firstSocket))).toBe(temp);
    expect((await stat(dirname(firstSocket))).mode & 0o777).toBe(0o700);
    // The CLI finds the server's socket through the lock (with the server running it cannot open the database).
    expect((await runCliJson<{ project: { slug: string } }>(['createproject', '--name', 'Far'], first.env)).project.slug).toBe(
      'far',
    );
    // Killed, it leaves its socket's directory; the next start removes it and makes its own.
    await first.kill();
    const second = await startServer({ dataDir: long, port: first.port, env: { TMPDIR: temp } });
    try {
      const secondSocket = await recordedSocket();
      expect(secondSocket).not.toBe(firstSocket);
      expect(await socketDirs()).toEqual([basename(dirname(secondSocket))]);
      expect(
        (await runCliJson<{ projects: Array<{ slug: string }> }>(['listprojects'], second.env)).projects.map((p) => p.slug),
      ).toEqual(['far']);
      // A server refused on the same data directory leaves nothing behind.
      const refused = await runCli(['start'], { ...second.env, ERRATA_PORT: String(await freePort()) });
      expect(refused.stderr).toMatch(/another Errata server \(pid \d+\) is using this data directory/);
      expect(await socketDirs()).toEqual([basename(dirname(secondSocket))]);
    } finally {
      expect(await second.stop()).toBe(0);
    }
    // Stopped, it removes its socket's directory.
    expect(await socketDirs()).toEqual([]);
  });
});
