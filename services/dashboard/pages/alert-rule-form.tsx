// The form creating or changing an alert rule: its name, one trigger among all the core supports
// (a radio each, with that trigger's settings beneath it: the stylesheet shows only the chosen
// one's where :has() works, and the server reads only the chosen one's), the filters, the
// channels to deliver to (the organization's, as checkboxes), and whether it is enabled. A
// refused form comes back with what was typed and a message beside each wrong field.
import type { ComponentChildren } from 'preact';
import type { AlertChannel } from '../../core/alerts/alert-rules.ts';
import { LEVELS } from '../../core/event/level.ts';
import { CsrfField } from '../components/auth-card.tsx';
import type { RuleFormProblems, RuleFormValues } from './rule-form.ts';
import { TRIGGER_CHOICES } from './rule-words.ts';

interface AlertRuleFormProps {
  csrf: string;
  action: string;
  submit: string;
  values: RuleFormValues;
  problems: RuleFormProblems;
  channels: AlertChannel[];
  /** The project's environments seen so far, offered as suggestions. */
  environments: string[];
  channelsHref: string;
}

/** A field's message, announced with it (aria-describedby names its id). */
function Problem({ id, problems }: { id: string; problems: RuleFormProblems }) {
  const text = problems[id];
  return text ? (
    <p id={`${id}-problem`} class="field-problem">
      {text}
    </p>
  ) : null;
}

const described = (id: string, problems: RuleFormProblems, hint?: string) =>
  [problems[id] ? `${id}-problem` : undefined, hint].filter(Boolean).join(' ') || undefined;

interface TextFieldProps {
  id: string;
  name: string;
  label: string;
  value: string;
  problems: RuleFormProblems;
  numeric?: boolean;
  placeholder?: string;
  hint?: string;
}

function TextField({ id, name, label, value, problems, numeric, placeholder, hint }: TextFieldProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type="text"
        inputMode={numeric ? 'numeric' : undefined}
        value={value}
        placeholder={placeholder}
        maxLength={numeric ? 400 : 200}
        aria-invalid={problems[id] ? 'true' : undefined}
        aria-describedby={described(id, problems, hint)}
      />
      <Problem id={id} problems={problems} />
    </div>
  );
}

function TriggerSettings({ values, problems, trigger }: { values: RuleFormValues; problems: RuleFormProblems; trigger: string }) {
  let fields: ComponentChildren = null;
  if (trigger === 'frequent') {
    fields = (
      <>
        <TextField id="frequent-threshold" name="frequentThreshold" label="Events, more than" value={values.frequentThreshold} problems={problems} numeric />
        <TextField id="frequent-window" name="frequentWindow" label="Within minutes" value={values.frequentWindow} problems={problems} numeric />
      </>
    );
  } else if (trigger === 'many_users') {
    fields = (
      <>
        <TextField id="users-threshold" name="usersThreshold" label="Users, more than" value={values.usersThreshold} problems={problems} numeric />
        <TextField
          id="users-window"
          name="usersWindow"
          label="Users within minutes (optional)"
          value={values.usersWindow}
          problems={problems}
          numeric
          placeholder="the issue's lifetime"
        />
      </>
    );
  } else if (trigger === 'milestone') {
    fields = (
      <TextField
        id="milestones"
        name="milestones"
        label="Event counts (optional)"
        value={values.milestones}
        problems={problems}
        numeric
        placeholder="10, 100, 1000, …"
      />
    );
  }
  return fields ? <div class="rule-trigger-settings">{fields}</div> : null;
}

export function AlertRuleForm({ csrf, action, submit, values, problems, channels, environments, channelsHref }: AlertRuleFormProps) {
  return (
    <form class="rule-form" method="post" action={action} noValidate>
      <CsrfField token={csrf} />
      <TextField id="name" name="name" label="Name" value={values.name} problems={problems} placeholder="Checkout errors" />

      <fieldset class="rule-fieldset" aria-describedby={problems.trigger ? 'trigger-problem' : undefined}>
        <legend>Trigger</legend>
        <Problem id="trigger" problems={problems} />
        {TRIGGER_CHOICES.map(({ trigger, label, hint }) => (
          <div key={trigger} class="rule-trigger">
            <input
              id={`trigger-${trigger}`}
              type="radio"
              name="trigger"
              value={trigger}
              checked={values.trigger === trigger}
              aria-describedby={`trigger-${trigger}-hint`}
            />
            <label for={`trigger-${trigger}`}>{label}</label>
            <p id={`trigger-${trigger}-hint`} class="hint rule-trigger-hint">
              {hint}
            </p>
            <TriggerSettings values={values} problems={values.trigger === trigger ? problems : {}} trigger={trigger} />
          </div>
        ))}
      </fieldset>

      <fieldset class="rule-fieldset">
        <legend>Filters</legend>
        <div class="rule-filters">
          <TextField
            id="environment"
            name="environment"
            label="Environment"
            value={values.environment}
            problems={problems}
            placeholder="every environment"
            hint="environment-hint"
          />
          <div class="field">
            <label for="min-level">Level</label>
            <select
              id="min-level"
              name="minLevel"
              aria-invalid={problems['min-level'] ? 'true' : undefined}
              aria-describedby={described('min-level', problems)}
            >
              <option value="" selected={values.minLevel === ''}>
                Any level
              </option>
              {LEVELS.map((level) => (
                <option key={level} value={level} selected={values.minLevel === level}>
                  {level === 'fatal' ? 'fatal only' : `${level} or worse`}
                </option>
              ))}
            </select>
            <Problem id="min-level" problems={problems} />
          </div>
        </div>
        <p id="environment-hint" class="hint">
          Only events of this environment{environments.length > 0 ? ` (seen so far: ${environments.join(', ')})` : ''}, and of this
          level or worse. Empty means all.
        </p>
      </fieldset>

      <fieldset class="rule-fieldset" aria-describedby={problems.channels ? 'channels-problem' : undefined}>
        <legend>Channels</legend>
        <Problem id="channels" problems={problems} />
        {channels.length === 0 ? (
          <p class="notice notice-warning">
            This organization has no alert channel yet: <a href={channelsHref}>create one on the Alert channels page</a>, then come
            back to pick it.
          </p>
        ) : (
          <ul class="rule-channels">
            {channels.map((channel) => (
              <li key={channel.id}>
                <input
                  id={`channel-${channel.id}`}
                  type="checkbox"
                  name="channel"
                  value={String(channel.id)}
                  checked={values.channelIds.includes(String(channel.id))}
                />
                <label for={`channel-${channel.id}`}>{channel.name}</label>
                <code class="rule-channel-url">{channel.url}</code>
              </li>
            ))}
          </ul>
        )}
      </fieldset>

      <div class="rule-enabled">
        <input id="enabled" type="checkbox" name="enabled" checked={values.enabled} aria-describedby="enabled-hint" />
        <label for="enabled">Enabled</label>
        <span id="enabled-hint" class="hint">
          A disabled rule keeps its settings and sends nothing until enabled again.
        </span>
      </div>

      <button class="button button-primary" type="submit">
        {submit}
      </button>
    </form>
  );
}
