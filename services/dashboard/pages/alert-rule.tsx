// An alert rule's page (/organizations/{org}/projects/{slug}/alert-rules/{id}, where a rule's
// test alert links) and New rule (.../alert-rules/new), for people with the `alerts` capability:
// what the rule does in words, its channels, when it last fired, Send test (a test alert to its
// channels now, through the same outbox as real alerts, so each channel's deliveries log shows
// it), the form changing it, and Delete.
import type { AlertChannel, AlertRule } from '../../core/alerts/alert-rules.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { RelativeTime } from '../components/time.tsx';
import { AlertRuleForm } from './alert-rule-form.tsx';
import { Notice, type FormNotice } from './project-parts.tsx';
import { RuleBreadcrumb } from './rule-breadcrumb.tsx';
import type { RuleFormProblems, RuleFormValues } from './rule-form.ts';
import { filtersText, triggerText } from './rule-words.ts';

interface AlertRulePageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  project: Project;
  /** undefined on New rule. */
  rule: AlertRule | undefined;
  values: RuleFormValues;
  problems: RuleFormProblems;
  channels: AlertChannel[];
  environments: string[];
  href: (...segments: string[]) => string;
  now: Date;
  notice?: FormNotice | undefined;
  /** After Send test: the channels the test alert was queued to, and those that had one waiting already. */
  tested?: { queued: AlertChannel[]; waiting: AlertChannel[] } | undefined;
}

function ChannelLinks({ channels, href }: { channels: AlertChannel[]; href: AlertRulePageProps['href'] }) {
  return (
    <>
      {channels.map((channel, i) => (
        <>
          {i > 0 ? ', ' : ''}
          <a href={href('alert-channels', String(channel.id))}>{channel.name}</a>
        </>
      ))}
    </>
  );
}

function TestNotice({ tested, href }: { tested: NonNullable<AlertRulePageProps['tested']>; href: AlertRulePageProps['href'] }) {
  const { queued, waiting } = tested;
  return (
    <p class="notice notice-saved" role="status">
      {queued.length > 0 ? (
        <>
          A test alert (kind test, sample issue TEST-1) is queued to <ChannelLinks channels={queued} href={href} />: each
          channel's deliveries log shows it as it is sent.
        </>
      ) : (
        'No test alert is queued.'
      )}
      {waiting.length > 0 && (
        <>
          {' '}
          <ChannelLinks channels={waiting} href={href} /> already {waiting.length === 1 ? 'has' : 'have'} a test waiting to be
          sent, and a channel gets one at a time.
        </>
      )}
    </p>
  );
}

export function AlertRulePage(props: AlertRulePageProps) {
  const {
    assets,
    csrf,
    viewer,
    organization,
    project,
    rule,
    values,
    problems,
    channels,
    environments,
    href,
    now,
    notice,
    tested,
  } = props;
  const rules = href('projects', project.slug, 'alert-rules');
  const title = rule ? rule.name : 'New rule';
  const refused = Object.keys(problems).length > 0;
  const form = (
    <AlertRuleForm
      csrf={csrf}
      action={rule ? `${rules}/${rule.id}` : rules}
      submit={rule ? 'Save' : 'Create rule'}
      values={values}
      problems={problems}
      channels={channels}
      environments={environments}
      channelsHref={href('alert-channels')}
    />
  );
  return (
    <AppShell
      title={`${title} · Alert rules · ${project.name}`}
      assets={assets}
      organization={organization}
      current="projects"
      viewer={viewer}
      csrf={csrf}
    >
      <div class="alert-rules">
        <RuleBreadcrumb href={href} project={project} current={title} />
        <h1>{title}</h1>
        {tested ? <TestNotice tested={tested} href={href} /> : <Notice notice={notice} />}
        {refused && (
          <p class="notice notice-warning" role="alert">
            The rule is not saved: {Object.keys(problems).length === 1 ? 'one field needs' : 'some fields need'} a change, marked
            below.
          </p>
        )}
        {rule ? (
          <>
            <dl class="facts">
              <dt>Trigger</dt>
              <dd>{triggerText(rule)}</dd>
              <dt>Filters</dt>
              <dd>{filtersText(rule)}</dd>
              <dt>Channels</dt>
              <dd>
                {rule.channelIds.length === 0
                  ? 'None left (they were deleted): pick one below'
                  : rule.channelIds.map((id, i) => {
                      const channel = channels.find((c) => c.id === id);
                      return (
                        <>
                          {i > 0 ? ', ' : ''}
                          {channel ? <a href={href('alert-channels', String(id))}>{channel.name}</a> : `#${id}`}
                        </>
                      );
                    })}
              </dd>
              <dt>Status</dt>
              <dd>{rule.enabled ? 'Enabled' : 'Disabled: it sends nothing'}</dd>
              <dt>Last fired</dt>
              <dd class="rule-fired">
                {rule.lastFiredAt ? <RelativeTime date={rule.lastFiredAt} now={now} zone={viewer.timeZone} /> : 'Never'}
              </dd>
              <dt>Created</dt>
              <dd>
                <RelativeTime date={rule.createdAt} now={now} zone={viewer.timeZone} />
              </dd>
            </dl>

            <section class="rule-section" aria-labelledby="test-heading">
              <div class="rule-section-top">
                <h2 id="test-heading">Send test</h2>
                <form method="post" action={`${rules}/${rule.id}/test`}>
                  <CsrfField token={csrf} />
                  <button class="button button-primary" type="submit" disabled={rule.channelIds.length === 0}>
                    Send test
                  </button>
                </form>
              </div>
              <p class="hint">
                Sends a test alert now to each of this rule's channels, with an issue alert's fields for the sample issue TEST-1,
                signed like any alert.
              </p>
            </section>

            <section class="rule-section" aria-labelledby="settings-heading">
              <h2 id="settings-heading">Settings</h2>
              {form}
            </section>

            <section class="rule-section rule-danger" aria-labelledby="delete-heading">
              <div class="rule-section-top">
                <h2 id="delete-heading">Delete</h2>
                <form method="post" action={`${rules}/${rule.id}/delete`}>
                  <CsrfField token={csrf} />
                  <button class="button button-danger" type="submit">
                    Delete rule
                  </button>
                </form>
              </div>
              <p class="hint">
                The rule stops at once; the deliveries it already sent stay in each channel's log. To pause it instead, untick
                Enabled.
              </p>
            </section>
          </>
        ) : (
          <section class="rule-section" aria-label="New rule">
            {form}
          </section>
        )}
      </div>
    </AppShell>
  );
}
