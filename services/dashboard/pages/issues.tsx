// /organizations/{org}/issues: a project's issues, one status tab at a time, filtered by the
// form above the table (GET, so the address is shareable) and the one issue search syntax, in
// pages of 25 with a cursor; the rows' checkboxes and the buttons above them triage the
// selected issues or every issue matching the filter. assets/issue-keys.ts adds the keyboard.
import { LEVELS } from '../../core/event/level.ts';
import type { Issue, IssueSort, IssueStatus } from '../../core/ports/issue-store.ts';
import type { Project } from '../../core/ports/tenancy-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { filterFields, filterParams, WINDOWS, type ListFilter, type TimeWindow } from '../issues/issues-filter.ts';
import { IssuesTable } from './issues-table.tsx';
import { formatCount } from '../components/formats.ts';
import { ProjectPicker } from '../components/project-picker.tsx';

interface Frame {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  href: (...segments: string[]) => string;
}

interface IssuesPageProps extends Frame {
  projects: Project[];
  project: Project;
  filter: ListFilter;
  /** The status the list shows (the tab, or the search's is: term). */
  status: IssueStatus | 'all';
  issues: Issue[];
  sparklines: Map<number, number[]>;
  nextCursor: string | undefined;
  /** How many issues match the filter, over every page. */
  total: number;
  environments: string[];
  releases: string[];
  /** A refused filter or search, shown above the list. */
  error?: string | undefined;
  /** What the last action did ("Resolved 3 issues."). */
  notice?: string | undefined;
  canTriage: boolean;
  canDelete: boolean;
  now: Date;
}

const TABS: readonly { status: IssueStatus | 'all'; label: string }[] = [
  { status: 'unresolved', label: 'Unresolved' },
  { status: 'resolved', label: 'Resolved' },
  { status: 'ignored', label: 'Ignored' },
  { status: 'snoozed', label: 'Snoozed' },
  { status: 'all', label: 'All' },
];

const SORT_LABELS: Record<IssueSort, string> = {
  lastSeen: 'Last seen',
  firstSeen: 'First seen',
  events: 'Events',
  users: 'Users',
};
const WINDOW_LABELS: Record<TimeWindow, string> = {
  '1h': 'Last hour',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '14d': 'Last 14 days',
  '30d': 'Last 30 days',
};
const SNOOZE_CHOICES: readonly [minutes: number, label: string][] = [
  [60, '1 hour'],
  [360, '6 hours'],
  [1440, '24 hours'],
  [10_080, '7 days'],
];

export function IssuesPage(props: IssuesPageProps) {
  const { filter, href, project, issues, total } = props;
  const list = (changes: Parameters<typeof filterParams>[1] = {}) => `${href('issues')}?${filterParams(filter, changes)}`;
  return (
    <AppShell
      title="Issues"
      assets={props.assets}
      organization={props.organization}
      current="issues"
      viewer={props.viewer}
      csrf={props.csrf}
    >
      <div class="issues-page">
        <header class="issues-header">
          <h1>Issues</h1>
          <ProjectPicker action={href('issues')} projects={props.projects} chosen={project} />
          <button class="button button-small keys-button" type="button" id="keys-button" hidden>
            Keyboard shortcuts <kbd>?</kbd>
          </button>
        </header>

        <nav class="tabs" aria-label="Status">
          {TABS.map((tab) => (
            <a
              key={tab.status}
              class="tab"
              href={list({ status: tab.status })}
              aria-current={tab.status === props.status ? 'page' : undefined}
            >
              {tab.label}
            </a>
          ))}
        </nav>

        <Filters {...props} />

        {props.error && (
          <p class="notice notice-warning" role="alert">
            {props.error}
          </p>
        )}
        {props.notice && (
          <p class="notice notice-success" role="status">
            {props.notice}
          </p>
        )}

        <form class="issues-bulk" id="bulk-form" method="post" action={href('issues', 'bulk')}>
          <CsrfField token={props.csrf} />
          {filterFields(filter).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          {props.canTriage && issues.length > 0 && <BulkBar {...props} />}
          {issues.length > 0 ? (
            <IssuesTable
              issues={issues}
              sparklines={props.sparklines}
              issueHref={(shortId) => href('issues', shortId)}
              now={props.now}
              zone={props.viewer.timeZone}
            />
          ) : (
            <div class="issues-empty">
              <p>
                {props.error
                  ? 'Fix the search above to see issues.'
                  : `No ${props.status === 'all' ? '' : `${props.status} `}issues match this filter.`}
              </p>
            </div>
          )}
        </form>

        <nav class="paging" aria-label="Pages">
          <span class="muted">
            {issues.length === 0 ? '' : `${formatCount(issues.length)} shown of ${formatCount(total)} matching`}
          </span>
          <span class="paging-links">
            {filter.cursor && (
              <a class="button button-small" href={list()}>
                First page
              </a>
            )}
            {props.nextCursor && (
              <a class="button button-small" href={list({ cursor: props.nextCursor })} rel="next">
                Next page
              </a>
            )}
          </span>
        </nav>

        <KeysHelp />
      </div>
    </AppShell>
  );
}

function Filters({ filter, href, environments, releases }: IssuesPageProps) {
  const withCurrent = (values: string[], current: string | undefined) =>
    current && !values.includes(current) ? [current, ...values] : values;
  return (
    <form class="issues-filters" method="get" action={href('issues')} role="search">
      <input type="hidden" name="project" value={filter.project} />
      {filter.status && <input type="hidden" name="status" value={filter.status} />}
      <div class="field issues-search">
        <label for="query">Search</label>
        <input
          id="query"
          name="query"
          type="search"
          value={filter.query}
          maxLength={200}
          placeholder='level:error !environment:staging "TypeError: x"'
          aria-describedby="query-hint"
          autocomplete="off"
          spellcheck={false}
        />
        <p id="query-hint" class="visually-hidden">
          Free text (its words found together, in the order typed, in the title or culprit), key:value terms (is:, level:,
          environment:, firstRelease:), !key:value to exclude, quotes around values with spaces.
        </p>
      </div>
      <Choice id="level" label="Level" value={filter.level} options={LEVELS.map((l) => [l, l])} any="Any level" />
      <Choice
        id="environment"
        label="Environment"
        value={filter.environment}
        options={withCurrent(environments, filter.environment).map((e) => [e, e])}
        any="Any"
      />
      <Choice
        id="release"
        label="First release"
        value={filter.release}
        options={withCurrent(releases, filter.release).map((r) => [r, r])}
        any="Any"
      />
      <Choice
        id="window"
        label="Last seen"
        value={filter.window}
        options={Object.keys(WINDOWS).map((w) => [w, WINDOW_LABELS[w as TimeWindow]])}
        any="Any time"
      />
      <Choice id="sort" label="Sort by" value={filter.sort} options={Object.entries(SORT_LABELS)} />
      <button class="button button-primary" type="submit">
        Apply
      </button>
    </form>
  );
}

function Choice(props: { id: string; label: string; value: string | undefined; options: string[][]; any?: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.id}>
        {props.any && <option value="">{props.any}</option>}
        {props.options.map(([value, label]) => (
          <option key={value} value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

function BulkBar({ issues, total, canDelete }: IssuesPageProps) {
  return (
    <div class="bulk-bar" role="group" aria-label="Bulk actions">
      <span class="bulk-label muted" id="bulk-selection">
        With the selected issues:
      </span>
      <button class="button button-small" type="submit" name="action" value="resolve">
        Resolve
      </button>
      <button class="button button-small" type="submit" name="action" value="unresolve">
        Unresolve
      </button>
      <button class="button button-small" type="submit" name="action" value="ignore">
        Ignore
      </button>
      <span class="bulk-snooze">
        <button class="button button-small" type="submit" name="action" value="snooze">
          Snooze
        </button>
        <label class="visually-hidden" for="snoozeMinutes">
          Snooze for
        </label>
        <select id="snoozeMinutes" name="snoozeMinutes" class="select-small">
          {SNOOZE_CHOICES.map(([minutes, label]) => (
            <option key={minutes} value={String(minutes)}>
              for {label}
            </option>
          ))}
        </select>
      </span>
      {canDelete && (
        <button class="button button-small button-danger" type="submit" name="action" value="delete">
          Delete
        </button>
      )}
      {total > issues.length && (
        <label class="bulk-all" data-select-all-matching="">
          <input type="checkbox" name="scope" value="all" />
          Select all {formatCount(total)} issues matching this filter
        </label>
      )}
    </div>
  );
}

function KeysHelp() {
  const keys: [string, string][] = [
    ['j / k', 'Next / previous issue'],
    ['x', 'Select or unselect the issue'],
    ['o or Enter', 'Open the issue'],
    ['r', 'Resolve the selected issues (or the focused one)'],
    ['i', 'Ignore them'],
    ['s', 'Snooze them (for the time chosen beside Snooze)'],
    ['?', 'Show this list'],
  ];
  return (
    <dialog id="issue-keys-help" class="keys-dialog" aria-labelledby="keys-heading">
      <h2 id="keys-heading">Keyboard shortcuts</h2>
      <dl class="keys-list">
        {keys.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <form method="dialog">
        <button class="button" type="submit">
          Close
        </button>
      </form>
    </dialog>
  );
}
