// The per-project install guides (/api/v1/organizations/{org}/projects/{project}/install/
// {node|python|browser}.md): the project's real DSN (or, for a reader whose role may not read
// it, a placeholder that says so), the logs switch, a test event that verify_installation
// recognises, and the verify step. Pure text in core: the mcp role serves it as Markdown and
// the dashboard's Set-up page renders the same steps.
import { TEST_EVENT_MESSAGE, TEST_EVENT_TAG } from '../agent/test-event.ts';
import { DSN_READER_ROLE, type Role } from '../auth/roles.ts';
import type { HumanRole } from '../auth/capabilities.ts';

/** Where the DSN goes, in a guide fetched by a token that may not read it. */
const DSN_PLACEHOLDER = `<DSN of this project: needs an ${DSN_READER_ROLE} token>`;

export const GUIDE_PLATFORMS = [
  { name: 'node', projectPlatform: 'node', title: 'Node.js' },
  { name: 'python', projectPlatform: 'python', title: 'Python' },
  { name: 'browser', projectPlatform: 'javascript-browser', title: 'Browser JavaScript' },
] as const;

type GuidePlatform = (typeof GUIDE_PLATFORMS)[number]['name'];

export function isGuidePlatform(name: string): name is GuidePlatform {
  return GUIDE_PLATFORMS.some((g) => g.name === name);
}

export function installGuideUrl(baseUrl: string, organization: string, project: string, platform: GuidePlatform): string {
  return `${baseUrl}/api/v1/organizations/${encodeURIComponent(organization)}/projects/${encodeURIComponent(project)}/install/${platform}.md`;
}

interface GuideRequest {
  baseUrl: string;
  organization: string;
  project: string;
  /** The DSN, or who asked without the right to read it: a token's role, or a signed-in person's. */
  dsn: string | { placeholderFor: Role } | { placeholderForPerson: HumanRole };
}

interface GuideContext extends GuideRequest {
  dsn: string;
}

export function renderInstallGuide(platform: GuidePlatform, request: GuideRequest): string {
  const title = GUIDE_PLATFORMS.find((g) => g.name === platform)!.title;
  const c: GuideContext = { ...request, dsn: typeof request.dsn === 'string' ? request.dsn : DSN_PLACEHOLDER };
  return [
    `# Send ${title} errors and logs from project \`${c.project}\` to Errata`,
    '',
    `Errata at ${c.baseUrl} speaks the Sentry SDK protocol: the official Sentry SDK works unchanged, configured with this`,
    `project's DSN and nothing else:`,
    '',
    '```',
    c.dsn,
    '```',
    '',
    ...(typeof request.dsn === 'string' ? [] : [placeholderNote(request.dsn, c.project), '']),
    stepsMarkdown(STEPS[platform](c.dsn)),
    '',
    '## Verify',
    '',
    `Call the MCP tool \`verify_installation\` with \`{"project": "${c.project}"}\` (MCP server: ${c.baseUrl}/mcp, header`,
    '`Authorization: Bearer <agent token>`). It answers `test_event_received` once the test event has been processed',
    '(a few seconds), and `real_event_received` when the latest event is a real error or message.',
    '',
    `The test event is a message tagged \`${TEST_EVENT_TAG}=true\`, so it is told apart from real errors; resolve or`,
    'delete its issue afterwards if you like.',
    '',
  ].join('\n');
}

function placeholderNote(hidden: Exclude<GuideRequest['dsn'], string>, project: string): string {
  if ('placeholderForPerson' in hidden) {
    return [
      `The DSN is not shown: you are signed in as ${hidden.placeholderForPerson}, and reading a DSN needs the admin or owner role.`,
      `Put the DSN where \`${DSN_PLACEHOLDER}\` stands below: an admin sees it on the project's page in the dashboard.`,
    ].join('\n');
  }
  const role = hidden.placeholderFor;
  return [
    `The DSN is not shown: this token has role ${role}, and reading a DSN needs role ${DSN_READER_ROLE} (as the MCP tool \`get_dsn\` does).`,
    `Put the DSN where \`${DSN_PLACEHOLDER}\` stands below: an ${DSN_READER_ROLE} token reads it with \`get_dsn\``,
    `\`{"project": "${project}"}\` (or fetches this guide with the DSN in place); an administrator sees it with \`errata listprojects\`.`,
  ].join('\n');
}

/** One step of a guide: a heading, the code to run or paste, and an optional note after it (Markdown inline code in backticks). */
interface GuideStep {
  heading: string;
  language: 'sh' | 'js' | 'python';
  code: string;
  note?: string;
}

/** The steps of a platform's guide with this DSN in place: the guide's Markdown and the dashboard's project page both show them. */
export function installSteps(platform: GuidePlatform, dsn: string): GuideStep[] {
  return STEPS[platform](dsn);
}

function stepsMarkdown(steps: GuideStep[]): string {
  return steps
    .map((step) =>
      [`## ${step.heading}`, '', `\`\`\`${step.language}`, step.code, '```', ...(step.note ? ['', step.note] : [])].join('\n'),
    )
    .join('\n\n');
}

const lines = (...text: string[]) => text.join('\n');

const STEPS: Record<GuidePlatform, (dsn: string) => GuideStep[]> = {
  node: (dsn) => [
    { heading: 'Install', language: 'sh', code: 'npm install @sentry/node' },
    {
      heading: 'Initialize (first thing in the process, before other imports)',
      language: 'js',
      code: lines(
        "import * as Sentry from '@sentry/node';",
        '',
        'Sentry.init({',
        `  dsn: '${dsn}',`,
        '  enableLogs: true, // structured logs: Sentry.logger.info(...), or the console integration',
        '  // release: process.env.RELEASE, environment: process.env.NODE_ENV,',
        '});',
      ),
    },
    {
      heading: 'Send the test event',
      language: 'js',
      code: lines(
        `Sentry.captureMessage('${TEST_EVENT_MESSAGE}', { tags: { '${TEST_EVENT_TAG}': 'true' } });`,
        'await Sentry.flush(5000);',
      ),
    },
  ],
  python: (dsn) => [
    { heading: 'Install', language: 'sh', code: 'pip install --upgrade sentry-sdk' },
    {
      heading: 'Initialize (as early as possible)',
      language: 'python',
      code: lines(
        'import sentry_sdk',
        '',
        'sentry_sdk.init(',
        `    dsn="${dsn}",`,
        '    enable_logs=True,  # structured logs: sentry_sdk.logger.info(...), and the logging integration',
        ')',
      ),
    },
    {
      heading: 'Send the test event',
      language: 'python',
      code: lines(`sentry_sdk.capture_message("${TEST_EVENT_MESSAGE}", tags={"${TEST_EVENT_TAG}": "true"})`, 'sentry_sdk.flush()'),
    },
  ],
  browser: (dsn) => [
    { heading: 'Install', language: 'sh', code: 'npm install @sentry/browser' },
    {
      heading: 'Initialize (in the entry point, before the app renders)',
      language: 'js',
      code: lines("import * as Sentry from '@sentry/browser';", '', 'Sentry.init({', `  dsn: '${dsn}',`, '  enableLogs: true,', '});'),
      note: lines(
        'Errata accepts browser posts from any origin. For readable stack traces, upload source maps with',
        '`sentry-cli sourcemaps inject` and `sentry-cli sourcemaps upload` pointed at this Errata (`--url`).',
      ),
    },
    {
      heading: 'Send the test event',
      language: 'js',
      code: `Sentry.captureMessage('${TEST_EVENT_MESSAGE}', { tags: { '${TEST_EVENT_TAG}': 'true' } });`,
    },
  ],
};
