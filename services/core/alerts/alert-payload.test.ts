import { describe, expect, it } from 'vitest';
import { channelInput } from './alert-rules.ts';
import { channelTest, issueAlert, newReleaseAlert, ruleTest } from './alert-payload.ts';

const ISSUE_FIELDS = [
  'kind',
  'title',
  'body',
  'url',
  'level',
  'environment',
  'projectName',
  'issueShortId',
  'timesSeen',
  'location',
  'ruleName',
];

describe('webhook payloads', () => {
  it('an issue alert carries exactly the issue fields, omitting those without a value', () => {
    const full = issueAlert({
      kind: 'frequent',
      ruleName: 'Spikes',
      projectName: 'Web',
      url: 'https://errata.example/organizations/acme/issues/WEB-1',
      issueShortId: 'WEB-1',
      title: 'TypeError: x',
      level: 'error',
      environment: 'production',
      culprit: 'app.js in run',
      timesSeen: 12,
      body: 'More than 10 events in 5 minutes.',
    });
    expect(Object.keys(full).sort()).toEqual([...ISSUE_FIELDS].sort());
    const sparse = issueAlert({
      ...full,
      kind: 'new_issue',
      environment: null,
      culprit: '',
      ruleName: 'r',
      issueShortId: 'WEB-1',
      title: 't',
      url: '',
      body: '',
      timesSeen: 1,
      projectName: 'Web',
      level: 'error',
    } as never);
    expect(sparse).not.toHaveProperty('environment');
    expect(sparse).not.toHaveProperty('location');
    expect(sparse).toMatchObject({ url: '', body: '' });
  });

  it('new_release has no issue fields; a channel test only kind, title, body and url; a rule test is an issue alert for TEST-1', () => {
    expect(Object.keys(newReleaseAlert({ release: 'web@2', projectName: 'Web', ruleName: 'r', url: 'u' })).sort()).toEqual([
      'body',
      'kind',
      'projectName',
      'ruleName',
      'title',
      'url',
    ]);
    expect(Object.keys(channelTest('ops', 'https://errata.example')).sort()).toEqual(['body', 'kind', 'title', 'url']);
    const test = ruleTest({ ruleName: 'New issues', projectName: 'Web', url: 'u' });
    expect(test).toMatchObject({ kind: 'test', issueShortId: 'TEST-1', ruleName: 'New issues' });
    expect(Object.keys(test).sort()).toEqual([...ISSUE_FIELDS].sort());
  });
});

describe('channel validation', () => {
  it('takes https:// URLs only, without credentials', () => {
    const problem = (url: string) => {
      const parsed = channelInput.safeParse({ name: 'ops', url });
      return parsed.success ? undefined : parsed.error.issues[0]!.message;
    };
    expect(problem('https://hooks.example.com/errata')).toBeUndefined();
    expect(problem('http://hooks.example.com/errata')).toMatch(/must start with https:\/\//);
    expect(problem('hooks.example.com')).toMatch(/absolute URL/);
    expect(problem('https://user:pw@hooks.example.com/')).toMatch(/must not carry a user/);
  });
});
