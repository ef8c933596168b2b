// A project's Alert rules page (/organizations/{org}/projects/{slug}/alert-rules), for people
// with the `alerts` capability: each rule with its trigger and filters in words, its channels,
// when it last fired and whether it is enabled, and New rule. With no rule yet it says what a
// rule is, and where channels are made when the organization has none.
import type { AlertChannel, AlertRule } from '../../core/alerts/alert-rules.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { RelativeTime } from '../components/time.tsx';
import { Notice, type FormNotice } from './project-parts.tsx';
import { RuleBreadcrumb } from './rule-breadcrumb.tsx';
import { filtersText, triggerText } from './rule-words.ts';

interface AlertRulesPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  project: Project;
  rules: AlertRule[];
  channels: AlertChannel[];
  href: (...segments: string[]) => string;
  now: Date;
  notice?: FormNotice | undefined;
}

export function AlertRulesPage({ assets, csrf, viewer, organization, project, rules, channels, href, now, notice }: AlertRulesPageProps) {
  const base = href('projects', project.slug, 'alert-rules');
  const channelName = new Map(channels.map((c) => [c.id, c.name]));
  return (
    <AppShell title={`Alert rules · ${project.name}`} assets={assets} organization={organization} current="projects" viewer={viewer} csrf={csrf}>
      <div class="alert-rules">
        <RuleBreadcrumb href={href} project={project} />
        <div class="rules-title">
          <h1>Alert rules</h1>
          <a class="button button-primary" href={`${base}/new`}>
            New rule
          </a>
        </div>
        <Notice notice={notice} />
        {rules.length === 0 ? (
          <div class="empty-state rules-empty">
            <p>
              No alert rules for {project.name} yet. A rule watches this project's events (a new issue, a regression, a spike,
              a milestone) and sends an alert to the webhook channels you pick, filtered by environment and level if you like.
            </p>
            {channels.length === 0 && (
              <p>
                Rules deliver to channels, and this organization has none yet: first <a href={href('alert-channels')}>create an alert channel</a>.
              </p>
            )}
            <p>
              <a href={`${base}/new`}>Create the first rule</a>
            </p>
          </div>
        ) : (
          <div class="table-scroll">
            <table class="table rules-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Filters</th>
                  <th scope="col">Channels</th>
                  <th scope="col">Last fired</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {rules.map((rule) => (
                  <tr key={rule.id} class={rule.enabled ? undefined : 'rule-disabled'}>
                    <td>
                      <a href={`${base}/${rule.id}`}>{rule.name}</a>
                    </td>
                    <td>{triggerText(rule)}</td>
                    <td>{filtersText(rule)}</td>
                    <td>
                      {rule.channelIds.length === 0 ? (
                        <span class="rule-warning">None left: pick one</span>
                      ) : (
                        rule.channelIds.map((id) => channelName.get(id) ?? `#${id}`).join(', ')
                      )}
                    </td>
                    <td class="rule-fired">
                      {rule.lastFiredAt ? <RelativeTime date={rule.lastFiredAt} now={now} zone={viewer.timeZone} /> : <span class="muted">Never</span>}
                    </td>
                    <td>
                      <span class={`rule-status rule-status-${rule.enabled ? 'enabled' : 'disabled'}`}>{rule.enabled ? 'Enabled' : 'Disabled'}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </AppShell>
  );
}
