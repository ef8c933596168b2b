// The Agent tokens page (/organizations/{org}/settings/agent-tokens), for owners (the
// `agent_tokens` capability): every token with its role, scope, age, last use and calls in the
// last 24 hours (each a link to those calls on the Agent activity page), the MCP messages each
// live one has left this minute (whoami's rate-limit state, as this process counts it), a Revoke
// button for each live one, and the form that mints one. Right after minting, the page also
// carries the new token's plaintext, once, in the same three texts `errata createtoken` prints
// (core/provisioning/mcp-client-configuration.ts): the export line, Claude Code's command and a
// .mcp.json that names the variable, never the secret.
import type { RateLimitState } from '../../core/auth/agent-rate-limit.ts';
import { ROLE_GRANTS, ROLES, type Role } from '../../core/auth/roles.ts';
import type { AgentToken, Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { SettingsNav } from '../components/settings-nav.tsx';
import { RelativeTime } from '../components/time.tsx';
import { CopyBox, Notice, type FormNotice } from './project-parts.tsx';

/** What the page shows the one time a token's plaintext exists. */
export interface MintedToken {
  name: string;
  environmentVariable: string;
  export: string;
  command: string;
  mcpJson: string;
}

/** What a refused form had typed, kept in its fields. */
export interface TypedToken {
  name: string;
  role: string;
  project: string;
}

interface AgentTokensPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  tokens: AgentToken[];
  /** Tool calls per token id in the last 24 hours; a token without any is absent. */
  callsToday: ReadonlyMap<number, number>;
  /** Each token's messages counted this minute by this process; undefined: none counted. */
  callsThisMinute: ReadonlyMap<number, RateLimitState | undefined>;
  /** Messages a token may send a minute. */
  callsPerMinute: number;
  projects: Project[];
  href: (...segments: string[]) => string;
  now: Date;
  minted?: MintedToken | undefined;
  /** A refused new-token form's reason, shown above it. */
  notice?: FormNotice | undefined;
  typed?: TypedToken | undefined;
  /** Set after a revocation (the redirect's ?revoked=1), shown above the list. */
  revoked?: boolean | undefined;
}

const DEFAULT_ROLE: Role = 'triage';

export function AgentTokensPage(props: AgentTokensPageProps) {
  const { assets, csrf, viewer, organization, tokens, callsToday, projects, href, now, minted, notice, typed } = props;
  const justRevoked = props.revoked;
  const base = href('settings', 'agent-tokens');
  const activity = href('settings', 'agent-activity');
  const live = tokens.filter((token) => token.revokedAt === null);
  const revoked = tokens.filter((token) => token.revokedAt !== null).reverse();
  return (
    <AppShell title="Agent tokens" assets={assets} organization={organization} current="settings" viewer={viewer} csrf={csrf}>
      <div class="settings">
        <SettingsNav href={href} role={viewer.role} current="agent-tokens" />
        <h1>Agent tokens</h1>
        <p class="hint">
          An agent token lets an AI agent or a script use Errata's MCP server and API, with the token's role, in this organization
          or in one project. A revoked token is refused on its next call.
        </p>

        {minted && <Minted minted={minted} listHref={base} />}

        <section class="settings-section" aria-labelledby="new-token-heading">
          <h2 id="new-token-heading">New token</h2>
          <Notice notice={notice} />
          <form class="token-form" method="post" action={base}>
            <CsrfField token={csrf} />
            <div class="field">
              <label for="token-name">
                Name <span class="muted">(optional)</span>
              </label>
              <input
                id="token-name"
                name="name"
                type="text"
                maxLength={100}
                placeholder="claude-code-laptop"
                value={typed?.name ?? ''}
              />
            </div>
            <div class="field">
              <label for="token-role">Role</label>
              <select id="token-role" name="role" aria-describedby="token-role-hint">
                {ROLES.map((role) => (
                  <option key={role} value={role} selected={role === (typed?.role ?? DEFAULT_ROLE)}>
                    {role}
                  </option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="token-project">Scope</label>
              <select id="token-project" name="project">
                <option value="" selected={!typed?.project}>
                  Whole organization
                </option>
                {projects.map((project) => (
                  <option key={project.id} value={project.slug} selected={project.slug === typed?.project}>
                    {`Project ${project.slug}`}
                  </option>
                ))}
              </select>
            </div>
            <button class="button button-primary" type="submit">
              Create token
            </button>
            <ul id="token-role-hint" class="hint token-form-hint">
              {ROLES.map((role) => (
                <li key={role}>
                  <strong>{role}</strong>: {ROLE_GRANTS[role]}
                </li>
              ))}
            </ul>
          </form>
        </section>

        <section class="settings-section" aria-labelledby="tokens-heading">
          <h2 id="tokens-heading">Live tokens</h2>
          {justRevoked && <Notice notice={{ kind: 'saved', text: 'Revoked: its next call is refused.' }} />}
          {live.length === 0 ? (
            <p class="muted">No live token: an agent cannot call this organization until one is created.</p>
          ) : (
            <>
              <TokenTable
                tokens={live}
                callsToday={callsToday}
                activity={activity}
                viewer={viewer}
                now={now}
                csrf={csrf}
                revokeHref={`${base}/revoke`}
                callsThisMinute={props.callsThisMinute}
                callsPerMinute={props.callsPerMinute}
              />
              <p class="hint token-usage-hint">
                Last use is recorded to the minute. Left this minute: the MCP messages (tool calls, tools/list, initialize) a
                token may still send before its minute resets, of {props.callsPerMinute}, as whoami reports them. This server
                process counts them; where several mcp processes serve agents, each counts its own.
              </p>
            </>
          )}
        </section>

        {revoked.length > 0 && (
          <section class="settings-section" aria-labelledby="revoked-heading">
            <h2 id="revoked-heading">Revoked tokens</h2>
            <TokenTable tokens={revoked} callsToday={callsToday} activity={activity} viewer={viewer} now={now} />
          </section>
        )}
      </div>
    </AppShell>
  );
}

function Minted({ minted, listHref }: { minted: MintedToken; listHref: string }) {
  return (
    <section class="token-minted" aria-labelledby="minted-heading">
      <h2 id="minted-heading">Token {minted.name} created: copy it now</h2>
      <p class="notice notice-warning" role="status">
        This is the only time the token is shown: Errata keeps only its hash. Leaving or reloading this page loses it; a lost
        token is revoked and replaced, never recovered.
      </p>
      <ol class="token-steps">
        <li>
          <p>Put the token where your agent's shell finds it (a shell profile or a secret store):</p>
          <CopyBox id="token-export" text={minted.export} what="the export line with the token" />
        </li>
        <li>
          <p>Add Errata to Claude Code (run it where {minted.environmentVariable} is set):</p>
          <CopyBox id="token-command" text={minted.command} what="the claude mcp add command" />
        </li>
        <li>
          <p>
            Or commit this <code>.mcp.json</code> to the repository, for any MCP client that reads one: it names the variable, not
            the token.
          </p>
          <CopyBox id="token-mcp-json" text={minted.mcpJson} what="the .mcp.json" multiline />
        </li>
      </ol>
      <a class="button" href={listHref}>
        Done, I have copied it
      </a>
    </section>
  );
}

interface TokenTableProps {
  tokens: AgentToken[];
  callsToday: ReadonlyMap<number, number>;
  /** The Agent activity page, which a token's call count links to, filtered by it. */
  activity: string;
  viewer: User;
  now: Date;
  /** Live tokens get a Revoke button posting here; revoked ones show when instead. */
  csrf?: string;
  revokeHref?: string;
  /** Live tokens: each one's messages left this minute. */
  callsThisMinute?: ReadonlyMap<number, RateLimitState | undefined>;
  callsPerMinute?: number;
}

function TokenTable({
  tokens,
  callsToday,
  activity,
  viewer,
  now,
  csrf,
  revokeHref,
  callsThisMinute,
  callsPerMinute,
}: TokenTableProps) {
  const zone = viewer.timeZone;
  return (
    <div class="table-scroll">
      <table class="table tokens-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Scope</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Calls, 24 h</th>
            {callsThisMinute && <th scope="col">Left this minute</th>}
            <th scope="col">{revokeHref ? <span class="visually-hidden">Revoke</span> : 'Revoked'}</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id}>
              <td class="token-name">{token.name}</td>
              <td>
                <span class="badge">{token.role}</span>
              </td>
              <td>
                {token.projectSlug === null ? 'Whole organization' : <span class="token-project">{token.projectSlug}</span>}
              </td>
              <td>
                <RelativeTime date={token.createdAt} now={now} zone={zone} />
                {token.createdBy && <span class="token-creator muted"> by {token.createdBy}</span>}
              </td>
              <td>
                {token.lastUsedAt ? (
                  <RelativeTime date={token.lastUsedAt} now={now} zone={zone} />
                ) : (
                  <span class="muted">Never</span>
                )}
              </td>
              <td class="token-calls">
                {callsToday.get(token.id) ? (
                  <a href={`${activity}?token=${token.id}`}>
                    {callsToday.get(token.id)}
                    <span class="visually-hidden">{` calls by ${token.name}: see them`}</span>
                  </a>
                ) : (
                  <span class="muted">0</span>
                )}
              </td>
              {callsThisMinute && (
                <td class="token-rate">
                  <LeftThisMinute state={callsThisMinute.get(token.id)} perMinute={callsPerMinute ?? 0} now={now} />
                </td>
              )}
              <td class="row-link">
                {revokeHref && csrf ? (
                  <form method="post" action={revokeHref}>
                    <CsrfField token={csrf} />
                    <input type="hidden" name="name" value={token.name} />
                    <button class="button button-small button-danger" type="submit">
                      Revoke<span class="visually-hidden">{` the token ${token.name}`}</span>
                    </button>
                  </form>
                ) : (
                  token.revokedAt && <RelativeTime date={token.revokedAt} now={now} zone={zone} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "57 of 60, resets in 42 s", as whoami's rateLimit says it; a token with nothing counted has them all. */
function LeftThisMinute({ state, perMinute, now }: { state: RateLimitState | undefined; perMinute: number; now: Date }) {
  if (!state) return <span class="token-rate-left">{`${perMinute} of ${perMinute}`}</span>;
  // Rounded up, as whoami's resetInSeconds.
  const seconds = Math.max(0, Math.ceil((state.resetAt - now.getTime()) / 1000));
  return (
    <>
      <span class="token-rate-left">{`${state.remaining} of ${state.limit}`}</span>
      <span class="muted token-rate-reset">{`, resets in ${seconds} s`}</span>
    </>
  );
}
