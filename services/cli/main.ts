// The `errata` command: the standalone server and the admin commands. Output is for people by
// default and JSON with --json; errors go to stderr with exit code 1.
import { Argument, Command, Option } from 'commander';
import { ErrataError, UserInputError } from '../core/errors.ts';
import { mcpClientConfiguration } from '../core/provisioning/mcp-client-configuration.ts';
import {
  createEmbeddedDatabase,
  initializeEmbeddedDatabase,
  migrateDistributed,
  openStores,
  SERVER_ROLES,
  type ServerRole,
} from '../runtime/compose.ts';
import { ConfigError, loadConfig, type Config } from '../runtime/config.ts';
import { createFilesPrivately, openPrivateDataDir } from '../runtime/data-dir.ts';
import { acquireInstanceLock, InstanceLockedError } from '../runtime/instance-lock.ts';
import { onShutdownSignal } from '../runtime/lifecycle.ts';
import { createLogger } from '../runtime/logger.ts';
import { VERSION } from '../runtime/version.ts';
import { runAdminCommand } from './admin-command.ts';
import { startStandaloneServer } from './standalone-server.ts';
import { serveRole } from './serve-role.ts';
import { registerAlertCommands } from './alert-commands.ts';
import { registerSourceMapCommands } from './source-map-commands.ts';
import { registerUserCommands } from './user-commands.ts';
import { registerGroupingRuleCommands } from './grouping-rules-commands.ts';
import type { AdminOperation } from '../runtime/admin/operations.ts';

// Before any command opens a store: nothing Errata writes is for other users to read.
createFilesPrivately();

const program = new Command();
program.name('errata').description('Self-hostable, Sentry-SDK-compatible error tracking and structured logs.').version(VERSION);
program.option('--json', 'print machine-readable JSON');

const out = (line = ''): void => {
  process.stdout.write(`${line}\n`);
};
const json = () => Boolean(program.opts().json);
let config: Config | undefined;
const cfg = () => (config ??= loadConfig());

program
  .command('start')
  .description('run the standalone server: every role, embedded storage (ERRATA_* variables configure it)')
  .action(async () => {
    const c = cfg();
    const logger = createLogger(c.logLevel);
    const running = await startStandaloneServer(c, logger, out);
    onShutdownSignal(async (signal) => {
      logger.info({ signal }, 'signal received');
      await running.stop();
    });
  });

program
  .command('serve')
  .description('run one role of the distributed mode on Postgres, ClickHouse and Kafka (ERRATA_* variables configure it)')
  .addArgument(new Argument('<role>', 'the role this process plays').choices(SERVER_ROLES))
  .action(async (role: ServerRole) => {
    const c = cfg();
    const logger = createLogger(c.logLevel);
    const running = await serveRole(role, c, logger);
    onShutdownSignal(async (signal) => {
      logger.info({ signal, role }, 'signal received');
      await running.stop();
    });
  });

program
  .command('operator')
  .description('run the Kubernetes operator: reconciles Errata resources (kubeconfig from the cluster or KUBECONFIG)')
  .action(async () => {
    const c = cfg();
    const logger = createLogger(c.logLevel);
    // A bundle of its own (dist/operator.mjs), so that no other command loads the Kubernetes client.
    const operatorBundle = new URL('./operator.mjs', import.meta.url).href;
    const { startOperatorProcess } = (await import(operatorBundle)) as typeof import('../../operator/main.ts');
    const running = await startOperatorProcess(c, logger);
    onShutdownSignal(async (signal) => {
      logger.info({ signal }, 'signal received');
      await running.stop();
    });
  });

program
  .command('migrate')
  .description('create or update the database schema (idempotent; safe while older versions serve)')
  .action(async () => {
    const c = cfg();
    if (c.postgres) {
      const report = await migrateDistributed(c.postgres, c.clickhouse);
      return out(
        json()
          ? JSON.stringify({ migrated: true, ...report })
          : `The schema is up to date (Postgres: ${report.postgres.length} migration(s) applied${report.clickhouse ? '; ClickHouse tables ensured' : ''}).`,
      );
    }
    await openPrivateDataDir(c.dataDir, createLogger(c.logLevel, process.stderr));
    const lock = await acquireInstanceLock(c.dataDir, { kind: 'cli' }, { waitMs: 30_000 });
    try {
      await initializeEmbeddedDatabase(c.dataDir);
      const stores = await openStores(c);
      await stores.close();
      out(json() ? JSON.stringify({ migrated: true }) : 'The schema is up to date.');
    } finally {
      await lock.release();
    }
  });

program
  .command('createproject')
  .description('create a project and its DSN key; prints the DSN')
  .requiredOption('--name <name>', 'project name')
  .option('--slug <slug>', 'project slug (default: derived from the name)')
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (options: { name: string; slug?: string; organization?: string }) => {
    const result = (await admin('createproject', options)) as {
      project: { slug: string; id: number };
      dsn: string;
      organization: string;
    };
    if (json()) return out(JSON.stringify(result));
    out(`Created project "${result.project.slug}" (id ${result.project.id}) in organization "${result.organization}".`);
    out('');
    out(`DSN: ${result.dsn}`);
    out('');
    out(`Point an SDK at it, e.g. Sentry.init({ dsn: "${result.dsn}" })`);
  });

program
  .command('listprojects')
  .description('list projects and their DSNs')
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (options: { organization?: string }) => {
    const result = (await admin('listprojects', options)) as {
      projects: Array<{ slug: string; name: string; dsns: Array<{ dsn: string; active: boolean }> }>;
    };
    if (json()) return out(JSON.stringify(result));
    if (result.projects.length === 0) return out('No projects yet: errata createproject --name "My App"');
    for (const project of result.projects) {
      out(`${project.slug}  (${project.name})`);
      for (const dsn of project.dsns) out(`  ${dsn.dsn}${dsn.active ? '' : '  [disabled]'}`);
    }
  });

program
  .command('renameproject')
  .description('give a project another name (its slug stays: issue ids, links and upload settings use it)')
  .requiredOption('--project <slug>', 'the project')
  .requiredOption('--name <name>', 'the new name')
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (options: { project: string; name: string; organization?: string }) => {
    const result = (await admin('renameproject', options)) as { project: string; name: string };
    if (json()) return out(JSON.stringify(result));
    out(`Project "${result.project}" is now named "${result.name}".`);
  });

program
  .command('deleteproject')
  .description('delete a project with its issues, events, logs, source maps, keys, rules and project tokens')
  .requiredOption('--project <slug>', 'the project')
  .requiredOption('--confirm <slug>', 'the same slug again: nothing of the project comes back')
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (options: { project: string; confirm: string; organization?: string }) => {
    if (options.confirm !== options.project) {
      throw new UserInputError(
        `--confirm must repeat the project's slug (--project ${options.project.slice(0, 50)} --confirm ${options.project.slice(0, 50)}); nothing was deleted`,
      );
    }
    const result = (await admin('deleteproject', { project: options.project, organization: options.organization })) as {
      project: string;
      organization: string;
      deleted: string;
    };
    if (json()) return out(JSON.stringify(result));
    out(`Deleted project "${result.project}" of organization "${result.organization}": ${result.deleted}.`);
  });

program
  .command('createtoken')
  .description('mint an agent token (errata_agent_...); the plaintext is shown once')
  .addOption(new Option('--role <role>', 'what the token may do').choices(['read', 'triage', 'admin']).default('triage'))
  .option('--project <slug>', 'limit the token to one project (default: the whole organization)')
  .option('--name <name>', 'a name to recognise and revoke it by')
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (options: { role: string; project?: string; name?: string; organization?: string }) => {
    const result = (await admin('createtoken', options)) as {
      plaintext: string;
      token: { name: string; role: string; project: string | null };
      organization: string;
      baseUrl: string;
    };
    const client = mcpClientConfiguration(result.baseUrl, result.plaintext);
    if (json()) return out(JSON.stringify({ ...result, mcpClient: client }));
    const scope = result.token.project ? `project "${result.token.project}"` : `organization "${result.organization}"`;
    out(`Created ${result.token.role} token "${result.token.name}" for ${scope}.`);
    out('This is the only time the token is shown. Keep it out of the repository: put this line in your');
    out('shell profile (or the secret store of your CI or agent sandbox):');
    out('');
    out(`  ${client.export}`);
    out('');
    out(
      `Then add the server to an MCP client (HTTP at /mcp, bearer header from $${client.environmentVariable}), e.g. Claude Code:`,
    );
    out(`  ${client.command}`);
    out(
      `or a per-repository .mcp.json, safe to commit (Claude Code expands \${${client.environmentVariable}} when it loads it):`,
    );
    out(client.mcpJson.replace(/^/gm, '  '));
    out('');
    out(`Revoke it with: errata revoketoken ${result.token.name}`);
  });

program
  .command('revoketoken')
  .description('revoke an agent token by name, immediately and for good')
  .argument('<name>', 'the token name (errata listtokens)')
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (name: string, options: { organization?: string }) => {
    const result = (await admin('revoketoken', { name, ...options })) as { token: { name: string } };
    out(json() ? JSON.stringify(result) : `Revoked token "${result.token.name}". It stops working with the next request.`);
  });

program
  .command('listtokens')
  .description('list agent tokens (never their secrets)')
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (options: { organization?: string }) => {
    const result = (await admin('listtokens', options)) as {
      tokens: Array<{
        name: string;
        role: string;
        project: string | null;
        createdAt: string;
        revokedAt: string | null;
        lastUsedAt: string | null;
      }>;
    };
    if (json()) return out(JSON.stringify(result));
    if (result.tokens.length === 0) return out('No tokens yet: errata createtoken --role triage');
    for (const t of result.tokens) {
      out(
        `${t.name}  role=${t.role}  scope=${t.project ?? 'organization'}  created=${t.createdAt}  last-used=${t.lastUsedAt ?? 'never'}${t.revokedAt ? `  REVOKED ${t.revokedAt}` : ''}`,
      );
    }
  });

program
  .command('setratelimit')
  .description("set a project's event rate limit (events per minute), or back to the instance default")
  .requiredOption('--project <slug>', 'the project')
  .requiredOption(
    '--events-per-minute <n|default>',
    'events accepted per minute before 429, or "default" (ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE)',
  )
  .option('--organization <slug>', 'organization (needed only when the instance has several)')
  .action(async (options: { project: string; eventsPerMinute: string; organization?: string }) => {
    // Digits only: Number() reads "" (an unset shell variable) as 0, which would refuse every event.
    if (options.eventsPerMinute !== 'default' && !/^\d+$/.test(options.eventsPerMinute)) {
      throw new UserInputError(
        `--events-per-minute takes a whole number of events, or "default" (got "${options.eventsPerMinute.slice(0, 32)}")`,
      );
    }
    const value = options.eventsPerMinute === 'default' ? null : Number(options.eventsPerMinute);
    const result = (await admin('setratelimit', {
      project: options.project,
      eventsPerMinute: value,
      organization: options.organization,
    })) as {
      project: string;
      eventsPerMinute: number | null;
    };
    if (json()) return out(JSON.stringify(result));
    out(`Project "${result.project}" now accepts ${result.eventsPerMinute ?? 'the default number of'} events per minute.`);
  });

for (const [command, active] of [
  ['disablekey', false],
  ['enablekey', true],
] as const) {
  program
    .command(command)
    .description(`${active ? 'enable' : 'disable'} a DSN key: events sent with a disabled key get 403`)
    .argument('<public-key>', 'the key part of the DSN (before the @)')
    .action(async (publicKey: string) => {
      const result = (await admin('setkeyactive', { publicKey, active })) as { publicKey: string; active: boolean };
      out(json() ? JSON.stringify(result) : `DSN key ${result.publicKey} is now ${result.active ? 'enabled' : 'disabled'}.`);
    });
}

registerSourceMapCommands(program, { admin, out, json });
registerAlertCommands(program, { admin, out, json });
registerUserCommands(program, { admin, out, json });
registerGroupingRuleCommands(program, { admin, out, json });

program
  .command('init-embedded-db', { hidden: true })
  .argument('<dir>')
  .action(async (dir: string) => {
    await createEmbeddedDatabase(dir);
  });

function admin(operation: AdminOperation, input: object): Promise<unknown> {
  return runAdminCommand(cfg(), operation, { ...input });
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof ConfigError || error instanceof ErrataError || error instanceof InstanceLockedError) {
    process.stderr.write(`error: ${error.message}\n`);
  } else {
    process.stderr.write(`error: ${(error as Error)?.stack ?? String(error)}\n`);
  }
  process.exit(1);
}
