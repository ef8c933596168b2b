// The alert commands: webhook channels (`errata createchannel | listchannels | updatechannel |
// deletechannel | revealchannelsecret | rotatechannelsecret | testchannel | listdeliveries`) and
// per-project rules (`errata createrule | listrules | updaterule | deleterule | testrule`). The
// same operations as the management API under /api/v1/organizations/{org}/alert-channels and
// .../projects/{project}/alert-rules.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { LEVELS } from '../core/event/level.ts';
import { TRIGGERS } from '../core/alerts/alert-rules.ts';
import { UserInputError } from '../core/errors.ts';
import type { CliIo } from './cli-io.ts';

interface ChannelJson {
  id: number;
  name: string;
  url: string;
  digest: { hour: number; timeZone: string } | null;
}
interface RuleJson {
  id: number;
  project: string;
  name: string;
  trigger: string;
  channelIds: number[];
}
interface DeliveryJson {
  id: number;
  kind: string;
  status: string;
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
  attemptLog?: Array<{ at: string; statusCode: number | null; latencyMs: number; verdict: string; error: string | null }>;
}

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}
const numberList = (value: string): number[] => value.split(',').map((part) => wholeNumber(part.trim()));

const organizationOption = () => new Option('--organization <slug>', 'organization (needed only when the instance has several)');

interface RuleOptions {
  name?: string;
  trigger?: string;
  channel?: number[];
  /** false: --no-environment, the filter removed. */
  environment?: string | false;
  minLevel?: string | false;
  threshold?: number;
  windowMinutes?: number;
  milestones?: number[];
}

/** The rule fields given on the command line, under the API's names. */
function ruleFields(options: RuleOptions): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    name: options.name,
    trigger: options.trigger,
    channelIds: options.channel,
    environment: options.environment === false ? null : options.environment,
    minLevel: options.minLevel === false ? null : options.minLevel,
    threshold: options.threshold,
    windowMinutes: options.windowMinutes,
    milestones: options.milestones,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function withRuleOptions(command: Command): Command {
  return command
    .option('--name <name>', 'the rule name, shown in its alerts')
    .addOption(new Option('--trigger <trigger>', 'what fires the rule').choices(TRIGGERS))
    .option('--channel <ids>', 'channel ids, comma-separated (errata listchannels)', numberList)
    .option('--environment <name>', 'only events of this environment')
    .option('--no-environment', 'events of every environment')
    .addOption(new Option('--min-level <level>', 'only events of this level or worse').choices(LEVELS))
    .option('--no-min-level', 'events of every level')
    .option('--threshold <n>', 'frequent: more than n events; many_users: more than n users', wholeNumber)
    .option('--window-minutes <m>', 'frequent (required), many_users (optional): within m minutes', wholeNumber)
    .option('--milestones <counts>', 'milestone: the event counts to alert at, comma-separated', numberList);
}

export function registerAlertCommands(program: Command, io: CliIo): void {
  const print = (result: unknown, human: () => void) => (io.json() ? io.out(JSON.stringify(result)) : human());
  const channelLine = (c: ChannelJson) =>
    `${c.id}  ${c.name}  ${c.url}${c.digest ? `  digest daily at ${c.digest.hour}:00 ${c.digest.timeZone}` : ''}`;

  program
    .command('createchannel')
    .description('create a webhook alert channel (an https:// URL); prints its signing secret')
    .requiredOption('--name <name>', 'the channel name')
    .requiredOption('--url <url>', 'where alerts are POSTed; https:// only')
    .addOption(organizationOption())
    .action(async (options: { name: string; url: string; organization?: string }) => {
      const result = (await io.admin('createchannel', options)) as { channel: ChannelJson; signingSecret: string };
      print(result, () => {
        io.out(`Created channel ${result.channel.id} "${result.channel.name}" -> ${result.channel.url}`);
        io.out(
          'Its signing secret (your receiver verifies X-Errata-Signature with it; errata revealchannelsecret shows it again):',
        );
        io.out(`  ${result.signingSecret}`);
        io.out(`Send a test: errata testchannel ${result.channel.id}`);
      });
    });

  program
    .command('listchannels')
    .description('list webhook alert channels (never their secrets)')
    .addOption(organizationOption())
    .action(async (options: { organization?: string }) => {
      const result = (await io.admin('listchannels', options)) as { channels: ChannelJson[] };
      print(result, () => {
        if (result.channels.length === 0) return io.out('No channels yet: errata createchannel --name <name> --url https://...');
        for (const channel of result.channels) io.out(channelLine(channel));
      });
    });

  program
    .command('updatechannel')
    .description("change a channel's name, URL or daily digest")
    .argument('<id>', 'the channel id (errata listchannels)', wholeNumber)
    .option('--name <name>', 'a new name')
    .option('--url <url>', 'a new https:// URL')
    .option('--digest-hour <hour>', 'send a daily digest at this hour (0-23)', wholeNumber)
    .option('--digest-time-zone <zone>', "the digest hour is in this IANA time zone (default: the channel's zone, else UTC)")
    .option('--no-digest', 'stop sending the daily digest')
    .addOption(organizationOption())
    .action(
      async (
        id: number,
        options: {
          name?: string;
          url?: string;
          digestHour?: number;
          digestTimeZone?: string;
          digest: boolean;
          organization?: string;
        },
      ) => {
        if (options.digestTimeZone !== undefined && options.digestHour === undefined) {
          throw new UserInputError('--digest-time-zone needs --digest-hour <0-23> (the hour in that zone)');
        }
        if (options.digestHour !== undefined && !options.digest) {
          throw new UserInputError('--digest-hour sets a digest and --no-digest removes it: give one of them');
        }
        const change: Record<string, unknown> = {};
        if (options.name !== undefined) change.name = options.name;
        if (options.url !== undefined) change.url = options.url;
        if (options.digestHour !== undefined)
          change.digest = { hour: options.digestHour, ...(options.digestTimeZone && { timeZone: options.digestTimeZone }) };
        if (!options.digest) change.digest = null;
        const result = (await io.admin('updatechannel', { id, change, organization: options.organization })) as {
          channel: ChannelJson;
        };
        print(result, () => io.out(channelLine(result.channel)));
      },
    );

  for (const [command, description, operation] of [
    ['deletechannel', 'delete a channel and its delivery history; rules keep their other channels', 'deletechannel'],
    ['revealchannelsecret', "print a channel's signing secret", 'revealchannelsecret'],
    [
      'rotatechannelsecret',
      "replace a channel's signing secret now; every delivery from now on is signed with the new one",
      'rotatechannelsecret',
    ],
    ['testchannel', 'queue a test delivery (kind "test") to a channel', 'testchannel'],
  ] as const) {
    program
      .command(command)
      .description(description)
      .argument('<id>', 'the channel id (errata listchannels)', wholeNumber)
      .addOption(organizationOption())
      .action(async (id: number, options: { organization?: string }) => {
        const result = (await io.admin(operation, { id, ...options })) as Record<string, any>;
        print(result, () => {
          if (result.signingSecret) return io.out(result.signingSecret as string);
          if (result.delivery) return io.out(`Queued delivery ${result.delivery.id}; see it with: errata listdeliveries ${id}`);
          io.out(`Deleted channel ${id}.`);
        });
      });
  }

  program
    .command('listdeliveries')
    .description("a channel's deliveries, newest first, with every attempt")
    .argument('<id>', 'the channel id (errata listchannels)', wholeNumber)
    .option('--limit <n>', 'at most this many (default 50)', wholeNumber)
    .addOption(organizationOption())
    .action(async (id: number, options: { limit?: number; organization?: string }) => {
      const result = (await io.admin('listdeliveries', { id, ...options })) as { deliveries: DeliveryJson[] };
      print(result, () => {
        if (result.deliveries.length === 0) return io.out(`No deliveries to channel ${id} yet: errata testchannel ${id}`);
        for (const d of result.deliveries) {
          const next = d.nextAttemptAt ? `  next attempt ${d.nextAttemptAt}` : '';
          io.out(`${d.id}  ${d.kind}  ${d.status}  ${d.attempts} attempt(s)  created ${d.createdAt}${next}`);
          for (const a of d.attemptLog ?? []) {
            io.out(`    ${a.at}  ${a.statusCode ?? '-'}  ${a.verdict}  ${a.latencyMs} ms${a.error ? `  ${a.error}` : ''}`);
          }
        }
      });
    });

  withRuleOptions(
    program
      .command('createrule')
      .description('create an alert rule in a project')
      .requiredOption('--project <slug>', 'the project whose events the rule watches'),
  )
    .addOption(organizationOption())
    .action(async (options: RuleOptions & { project: string; organization?: string }) => {
      const result = (await io.admin('createrule', {
        project: options.project,
        organization: options.organization,
        rule: ruleFields(options),
      })) as { rule: RuleJson };
      print(result, () =>
        io.out(`Created rule ${result.rule.id} "${result.rule.name}" (${result.rule.trigger}) in ${result.rule.project}.`),
      );
    });

  withRuleOptions(
    program
      .command('updaterule')
      .description('change an alert rule; options not given keep their value')
      .argument('<id>', 'the rule id (errata listrules)', wholeNumber)
      .requiredOption('--project <slug>', 'the project'),
  )
    .addOption(organizationOption())
    .action(async (id: number, options: RuleOptions & { project: string; organization?: string }) => {
      const result = (await io.admin('updaterule', {
        id,
        project: options.project,
        organization: options.organization,
        change: ruleFields(options),
      })) as { rule: RuleJson };
      print(result, () => io.out(`Rule ${result.rule.id} "${result.rule.name}" (${result.rule.trigger}) updated.`));
    });

  program
    .command('listrules')
    .description("a project's alert rules")
    .requiredOption('--project <slug>', 'the project')
    .addOption(organizationOption())
    .action(async (options: { project: string; organization?: string }) => {
      const result = (await io.admin('listrules', options)) as { rules: RuleJson[] };
      print(result, () => {
        if (result.rules.length === 0) return io.out(`No rules yet: errata createrule --project ${options.project} ...`);
        for (const r of result.rules) io.out(`${r.id}  ${r.name}  ${r.trigger}  channels ${r.channelIds.join(',')}`);
      });
    });

  for (const [command, description] of [
    ['deleterule', 'delete an alert rule'],
    ['testrule', 'queue a test alert (kind "test", sample issue TEST-1) to each of a rule\'s channels'],
  ] as const) {
    program
      .command(command)
      .description(description)
      .argument('<id>', 'the rule id (errata listrules)', wholeNumber)
      .requiredOption('--project <slug>', 'the project')
      .addOption(organizationOption())
      .action(async (id: number, options: { project: string; organization?: string }) => {
        const result = (await io.admin(command, { id, ...options })) as { deliveries?: DeliveryJson[] };
        print(result, () =>
          io.out(result.deliveries ? `Queued ${result.deliveries.length} test delivery(ies).` : `Deleted rule ${id}.`),
        );
      });
  }
}
