// The grouping rule commands: `errata getgroupingrules` prints a project's fingerprint rules and
// stack-trace rules as written; `errata setgroupingrules` replaces one or both from a file (or
// stdin with "-"), refusing a bad rule with its line and column. New rules apply to new events.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { UserInputError } from '../core/errors.ts';
import type { CliIo } from './cli-io.ts';

interface RulesJson {
  project: string;
  fingerprintRules: string;
  stackTraceRules: string;
}

export function registerGroupingRuleCommands(program: Command, io: CliIo): void {
  program
    .command('getgroupingrules')
    .description("print a project's fingerprint rules and stack-trace rules (Sentry's syntax), as written")
    .requiredOption('--project <slug>', 'the project')
    .option('--kind <fingerprint|stacktrace>', 'print only one of the two texts, exactly as stored')
    .option('--organization <slug>', 'organization (needed only when the instance has several)')
    .action(async (options: { project: string; kind?: string; organization?: string }) => {
      if (options.kind !== undefined && options.kind !== 'fingerprint' && options.kind !== 'stacktrace') {
        throw new UserInputError('--kind takes "fingerprint" or "stacktrace"');
      }
      const result = (await io.admin('getgroupingrules', {
        project: options.project,
        organization: options.organization,
      })) as RulesJson;
      if (io.json()) return io.out(JSON.stringify(result));
      if (options.kind) {
        // The text alone, byte for byte, so it can be edited and set again.
        process.stdout.write(options.kind === 'fingerprint' ? result.fingerprintRules : result.stackTraceRules);
        return;
      }
      io.out('# fingerprint rules');
      io.out(result.fingerprintRules || '# (none)');
      io.out('');
      io.out('# stack-trace rules');
      io.out(result.stackTraceRules || '# (none)');
    });

  program
    .command('setgroupingrules')
    .description("replace a project's fingerprint rules and/or stack-trace rules from a file (- for stdin); new events only")
    .requiredOption('--project <slug>', 'the project')
    .option('--fingerprint-rules <file>', 'the whole fingerprint rules text (an empty file clears them)')
    .option('--stack-trace-rules <file>', 'the whole stack-trace rules text (an empty file clears them)')
    .option('--organization <slug>', 'organization (needed only when the instance has several)')
    .action(async (options: { project: string; fingerprintRules?: string; stackTraceRules?: string; organization?: string }) => {
      if (options.fingerprintRules === undefined && options.stackTraceRules === undefined) {
        throw new UserInputError('give --fingerprint-rules <file>, --stack-trace-rules <file> or both ("-" reads stdin)');
      }
      if (options.fingerprintRules === '-' && options.stackTraceRules === '-') {
        throw new UserInputError('only one of the two texts can come from stdin ("-")');
      }
      const result = (await io.admin('setgroupingrules', {
        project: options.project,
        organization: options.organization,
        ...(options.fingerprintRules !== undefined ? { fingerprintRules: await readText(options.fingerprintRules) } : {}),
        ...(options.stackTraceRules !== undefined ? { stackTraceRules: await readText(options.stackTraceRules) } : {}),
      })) as RulesJson;
      if (io.json()) return io.out(JSON.stringify(result));
      const count = (text: string) => text.split('\n').filter((line) => line.trim() && !line.trim().startsWith('#')).length;
      io.out(
        `Project "${result.project}" now has ${count(result.fingerprintRules)} fingerprint rule(s) and ${count(result.stackTraceRules)} stack-trace rule(s); they apply to new events.`,
      );
    });
}

async function readText(path: string): Promise<string> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new UserInputError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}
