// The source map commands: `errata createuploadtoken | listuploadtokens | revokeuploadtoken`
// (the project-scoped tokens sentry-cli and the bundler plugins upload with), and
// `errata listsourcemaps | deletesourcemaps` (what was uploaded).
import type { Command } from 'commander';
import { UPLOAD_COMMAND, uploadToolEnvironment } from '../core/provisioning/upload-tokens.ts';
import type { CliIo } from './cli-io.ts';

interface UploadTokenJson {
  name: string;
  project: string;
  createdAt: string;
  revokedAt: string | null;
}

export function registerSourceMapCommands(program: Command, io: CliIo): void {
  program
    .command('createuploadtoken')
    .description('mint a source map upload token (errata_...) for one project; the plaintext is shown once')
    .requiredOption('--project <slug>', 'the project the maps belong to')
    .option('--name <name>', 'a name to recognise and revoke it by')
    .option('--organization <slug>', 'organization (needed only when the instance has several)')
    .action(async (options: { project: string; name?: string; organization?: string }) => {
      const result = (await io.admin('createuploadtoken', options)) as {
        plaintext: string;
        token: UploadTokenJson;
        baseUrl: string;
      };
      if (io.json()) return io.out(JSON.stringify(result));
      io.out(`Created upload token "${result.token.name}" for project "${result.token.project}".`);
      io.out('This is the only time the token is shown; store it now (e.g. as a CI secret):');
      io.out('');
      io.out(`  ${result.plaintext}`);
      io.out('');
      io.out('sentry-cli and the bundler plugins read these (the organization is ignored):');
      for (const line of uploadToolEnvironment(result.baseUrl, result.token.project, result.plaintext)) io.out(`  ${line}`);
      io.out(`then: ${UPLOAD_COMMAND}`);
      io.out('');
      io.out(`Revoke it with: errata revokeuploadtoken ${result.token.name}`);
    });

  program
    .command('listuploadtokens')
    .description('list source map upload tokens (never their secrets)')
    .option('--organization <slug>', 'organization (needed only when the instance has several)')
    .action(async (options: { organization?: string }) => {
      const result = (await io.admin('listuploadtokens', options)) as { tokens: UploadTokenJson[] };
      if (io.json()) return io.out(JSON.stringify(result));
      if (result.tokens.length === 0) return io.out('No upload tokens yet: errata createuploadtoken --project <slug>');
      for (const t of result.tokens) {
        io.out(`${t.name}  project=${t.project}  created=${t.createdAt}${t.revokedAt ? `  REVOKED ${t.revokedAt}` : ''}`);
      }
    });

  program
    .command('listsourcemaps')
    .description("list a project's uploaded source files and maps, by Debug ID")
    .requiredOption('--project <slug>', 'the project')
    .option('--organization <slug>', 'organization (needed only when the instance has several)')
    .action(async (options: { project: string; organization?: string }) => {
      const result = (await io.admin('listsourcemaps', options)) as {
        artifacts: Array<{ debugId: string; type: string; url: string; sizeBytes: number; uploadedAt: string }>;
        total: number;
      };
      if (io.json()) return io.out(JSON.stringify(result));
      if (result.artifacts.length === 0)
        return io.out('No source maps uploaded yet: sentry-cli sourcemaps upload (see createuploadtoken)');
      for (const a of result.artifacts) io.out(`${a.debugId}  ${a.type}  ${a.sizeBytes} bytes  ${a.uploadedAt}  ${a.url}`);
      const more = result.total - result.artifacts.length;
      if (more > 0)
        io.out(
          `… and ${more} older file${more === 1 ? '' : 's'} (the newest ${result.artifacts.length.toLocaleString('en-US')} are listed)`,
        );
    });

  program
    .command('deletesourcemaps')
    .description('delete the source files and map stored under one Debug ID')
    .requiredOption('--project <slug>', 'the project')
    .requiredOption('--debug-id <id>', 'the Debug ID (errata listsourcemaps)')
    .option('--organization <slug>', 'organization (needed only when the instance has several)')
    .action(async (options: { project: string; debugId: string; organization?: string }) => {
      const result = (await io.admin('deletesourcemaps', options)) as { deleted: Array<{ type: string }> };
      if (io.json()) return io.out(JSON.stringify(result));
      io.out(`Deleted ${result.deleted.map((d) => d.type).join(' and ')} of ${options.debugId}.`);
    });

  program
    .command('revokeuploadtoken')
    .description('revoke a source map upload token by name, immediately and for good')
    .argument('<name>', 'the token name (errata listuploadtokens)')
    .option('--organization <slug>', 'organization (needed only when the instance has several)')
    .action(async (name: string, options: { organization?: string }) => {
      const result = (await io.admin('revokeuploadtoken', { name, ...options })) as { token: UploadTokenJson };
      io.out(io.json() ? JSON.stringify(result) : `Revoked upload token "${result.token.name}".`);
    });
}
