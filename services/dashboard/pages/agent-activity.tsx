// The Agent activity page (/organizations/{org}/settings/agent-activity), for owners and admins:
// each MCP tool call an agent token made, newest first, with the token (its name when it called),
// the tool, a short summary of the arguments, how it ended and the issues it touched, linked to
// their pages. Filters by token, tool and issue are a GET form, so a filtered list is an address
// (the issue page links here with its short id). The argument summary is the agent's text: shown
// as text (preact escapes it), in monospace, never as markup.
import type { AgentCall } from '../../core/ports/agent-activity-store.ts';
import type { Page } from '../../core/ports/page.ts';
import type { AgentToken } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { SettingsNav } from '../components/settings-nav.tsx';
import { RelativeTime } from '../components/time.tsx';

export interface ActivityFilters {
  token?: number;
  tool?: string;
  issue?: string;
}

interface AgentActivityPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  href: (...segments: string[]) => string;
  now: Date;
  calls: Page<AgentCall>;
  /** Every token of the organization, revoked ones too, for the token filter. */
  tokens: AgentToken[];
  filters: ActivityFilters;
  /** False on an older page (the address had a cursor): the page then offers the newest again. */
  firstPage: boolean;
  /** Owners: the empty page links to the Agent tokens page, where they mint one. */
  canMintTokens: boolean;
  /** Whether the project a short id names now existed when the call was made: its issue is linked. */
  issueExisted: (shortId: string, at: Date) => boolean;
}

export function AgentActivityPage(props: AgentActivityPageProps) {
  const { assets, csrf, viewer, organization, href, now, calls, tokens, filters, firstPage, canMintTokens, issueExisted } = props;
  const base = href('settings', 'agent-activity');
  const filtered = filters.token !== undefined || filters.tool !== undefined || filters.issue !== undefined;
  const at = (more: ActivityFilters & { cursor?: string }) => addressOf(base, more);
  return (
    <AppShell title="Agent activity" assets={assets} organization={organization} current="settings" viewer={viewer} csrf={csrf}>
      <div class="settings">
        <SettingsNav href={href} role={viewer.role} current="agent-activity" />
        <h1>Agent activity</h1>
        <p class="hint">
          Every call an agent token made to Errata's MCP server: which tool, with what, how it ended and the issues it touched.
          Calls are kept as long as events are.
        </p>

        <form class="activity-filters" method="get" action={base} role="search" aria-label="Filter the calls">
          <div class="field">
            <label for="activity-token">Token</label>
            <select id="activity-token" name="token">
              <option value="" selected={filters.token === undefined}>
                Every token
              </option>
              {tokens.map((token) => (
                <option key={token.id} value={String(token.id)} selected={token.id === filters.token}>
                  {token.revokedAt ? `${token.name} (revoked)` : token.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="activity-tool">Tool</label>
            <input id="activity-tool" name="tool" type="text" maxLength={100} placeholder="update_issue" value={filters.tool ?? ''} />
          </div>
          <div class="field">
            <label for="activity-issue">Issue</label>
            <input id="activity-issue" name="issue" type="text" maxLength={120} placeholder="WEB-12" value={filters.issue ?? ''} />
          </div>
          <button class="button button-primary" type="submit">
            Filter
          </button>
          {filtered && (
            <a class="button" href={base}>
              Clear
            </a>
          )}
        </form>

        {calls.items.length === 0 ? (
          firstPage && !filtered ? (
            <NoCalls tokensHref={canMintTokens ? href('settings', 'agent-tokens') : undefined} />
          ) : (
            <div class="empty-state activity-empty">
              <p>{filtered ? 'No call matches these filters.' : 'No older calls.'}</p>
              <a href={base}>Show the newest calls</a>
            </div>
          )
        ) : (
          <CallTable calls={calls.items} viewer={viewer} now={now} href={href} at={at} filters={filters} issueExisted={issueExisted} />
        )}

        {(calls.nextCursor || !firstPage) && (
          <nav class="activity-pager" aria-label="Pages of calls">
            {!firstPage && <a href={at(filters)}>Newest calls</a>}
            {calls.nextCursor && (
              <a class="button" href={at({ ...filters, cursor: calls.nextCursor })}>
                Older calls
              </a>
            )}
          </nav>
        )}
      </div>
    </AppShell>
  );
}

function NoCalls({ tokensHref }: { tokensHref: string | undefined }) {
  return (
    <div class="empty-state activity-empty">
      <h2>No agent has called Errata yet</h2>
      <p>
        Each call an AI agent makes with an agent token shows here. To connect one,{' '}
        {tokensHref ? (
          <>
            create a token on the <a href={tokensHref}>Agent tokens</a> page (or run <code>errata createtoken --role triage</code>)
          </>
        ) : (
          <>
            ask an owner for a token (from the Agent tokens page, or <code>errata createtoken --role triage</code>)
          </>
        )}
        , then add Errata's MCP server to the agent with the command that comes with it, such as <code>claude mcp add</code>.
      </p>
    </div>
  );
}

interface CallTableProps {
  calls: AgentCall[];
  viewer: User;
  now: Date;
  href: (...segments: string[]) => string;
  at: (filters: ActivityFilters) => string;
  filters: ActivityFilters;
  issueExisted: (shortId: string, at: Date) => boolean;
}

function CallTable({ calls, viewer, now, href, at, filters, issueExisted }: CallTableProps) {
  return (
    <div class="table-scroll">
      <table class="table activity-table">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Token</th>
            <th scope="col">Tool</th>
            <th scope="col">Arguments</th>
            <th scope="col">Outcome</th>
            <th scope="col">Issues</th>
            <th scope="col">Took</th>
          </tr>
        </thead>
        <tbody>
          {calls.map((call) => (
            <tr key={call.id}>
              <td class="activity-time">
                <RelativeTime date={call.at} now={now} zone={viewer.timeZone} />
              </td>
              <td class="activity-token">
                <a href={at({ ...filters, token: call.tokenId })} title={`Only the calls of ${call.tokenName}`}>
                  {call.tokenName}
                </a>
              </td>
              <td>
                <a class="activity-tool" href={at({ ...filters, tool: call.tool })} title={`Only the calls of ${call.tool}`}>
                  {call.tool}
                </a>
              </td>
              <td>
                {call.argumentSummary ? (
                  <code class="activity-args">{call.argumentSummary}</code>
                ) : (
                  <span class="muted">none</span>
                )}
              </td>
              <td>
                <Outcome call={call} />
              </td>
              <td>
                {call.issues.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  <span class="activity-issues">
                    {call.issues.map((shortId) =>
                      issueExisted(shortId, call.at) ? (
                        <a key={shortId} href={href('issues', shortId)}>
                          {shortId}
                        </a>
                      ) : (
                        <span key={shortId} class="muted" title="Its project was deleted">
                          {shortId}
                        </span>
                      ),
                    )}
                  </span>
                )}
              </td>
              <td class="activity-duration">{`${call.durationMs} ms`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const OUTCOME_LABELS = { ok: 'ok', refused: 'refused', rate_limited: 'rate limited', error: 'error' } as const;

function Outcome({ call }: { call: AgentCall }) {
  return (
    <span class={`outcome outcome-${call.outcome}`}>
      {OUTCOME_LABELS[call.outcome]}
      {call.reason && ` (${call.reason.replace(/_/g, ' ')})`}
    </span>
  );
}

/** The page's address with these filters (and cursor), empty ones left out. */
function addressOf(base: string, filters: ActivityFilters & { cursor?: string }): string {
  const query = new URLSearchParams();
  if (filters.token !== undefined) query.set('token', String(filters.token));
  if (filters.tool !== undefined) query.set('tool', filters.tool);
  if (filters.issue !== undefined) query.set('issue', filters.issue);
  if (filters.cursor !== undefined) query.set('cursor', filters.cursor);
  const text = query.toString();
  return text ? `${base}?${text}` : base;
}
