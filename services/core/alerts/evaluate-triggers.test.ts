import { describe, expect, it } from 'vitest';
import { ruleInput, ruleProblems, type AlertRule } from './alert-rules.ts';
import { evaluateTriggers, type AlertFacts } from './evaluate-triggers.ts';

let nextId = 1;
function rule(fields: Partial<AlertRule> & Pick<AlertRule, 'trigger'>): AlertRule {
  return {
    id: nextId++,
    projectId: 1,
    name: fields.trigger,
    channelIds: [1],
    environment: null,
    minLevel: null,
    threshold: null,
    windowMinutes: null,
    milestones: null,
    enabled: true,
    lastFiredAt: null,
    createdAt: new Date(0),
    ...fields,
  };
}

function facts(fields: Partial<AlertFacts> = {}): AlertFacts {
  return {
    projectId: 1,
    eventId: `e${nextId++}`,
    issueId: 7,
    shortId: 'WEB-7',
    title: 'TypeError: x',
    culprit: 'app.js in run',
    level: 'error',
    environment: 'production',
    release: null,
    receivedAt: 1_800_000_000,
    isNewIssue: false,
    isRegression: false,
    isNewRelease: false,
    countBefore: 1,
    countAfter: 2,
    ...fields,
  };
}

const keys = (rules: AlertRule[], batch: AlertFacts[]) => evaluateTriggers(rules, batch).map((c) => c.dedupKey);

describe('evaluateTriggers', () => {
  it('fires each trigger on its own event only', () => {
    const [newIssue, regression, every, release] = [
      rule({ trigger: 'new_issue' }),
      rule({ trigger: 'regression' }),
      rule({ trigger: 'every_occurrence' }),
      rule({ trigger: 'new_release' }),
    ];
    const plain = facts({ eventId: 'plain' });
    expect(keys([newIssue, regression, release], [plain])).toEqual([]);
    expect(keys([every], [plain])).toEqual(['every_occurrence:plain']);
    expect(keys([newIssue], [facts({ isNewIssue: true })])).toEqual(['new_issue:7']);
    expect(keys([regression], [facts({ isRegression: true, eventId: 'r1' })])).toEqual(['regression:7:r1']);
    expect(keys([release], [facts({ isNewRelease: true, release: 'web@2' })])).toEqual(['new_release:1:web@2']);
  });

  it('milestones fire when the batch crosses them, each once, the default list or a configured one', () => {
    const defaults = rule({ trigger: 'milestone' });
    expect(keys([defaults], [facts({ countBefore: 9, countAfter: 10 })])).toEqual(['milestone:7:10']);
    expect(keys([defaults], [facts({ countBefore: 10, countAfter: 11 })])).toEqual([]);
    expect(keys([defaults], [facts({ countBefore: 5, countAfter: 150 })])).toEqual(['milestone:7:10', 'milestone:7:100']);
    // Every event of one batch carries the same counts: still one candidate per milestone.
    expect(keys([defaults], [facts({ countBefore: 99, countAfter: 101 }), facts({ countBefore: 99, countAfter: 101 })])).toEqual([
      'milestone:7:100',
    ]);
    expect(keys([rule({ trigger: 'milestone', milestones: [3, 5] })], [facts({ countBefore: 2, countAfter: 4 })])).toEqual([
      'milestone:7:3',
    ]);
  });

  it('frequent and many_users carry their check and are keyed by window', () => {
    const frequent = rule({ trigger: 'frequent', threshold: 10, windowMinutes: 5 });
    const [candidate] = evaluateTriggers([frequent], [facts({ receivedAt: 600 })]);
    expect(candidate).toMatchObject({ dedupKey: 'frequent:7:2', check: { measure: 'events', threshold: 10, windowMinutes: 5 } });
    expect(keys([frequent], [facts({ receivedAt: 899 }), facts({ receivedAt: 900 })])).toEqual(['frequent:7:2', 'frequent:7:3']);
    expect(keys([rule({ trigger: 'many_users', threshold: 3 })], [facts()])).toEqual(['many_users:7']);
    expect(keys([rule({ trigger: 'many_users', threshold: 3, windowMinutes: 60 })], [facts({ receivedAt: 7200 })])).toEqual([
      'many_users:7:2',
    ]);
  });

  it('applies the environment and minimum level filters, and the rule’s project', () => {
    const filtered = rule({ trigger: 'every_occurrence', environment: 'production', minLevel: 'error' });
    expect(keys([filtered], [facts({ eventId: 'a' })])).toEqual(['every_occurrence:a']);
    expect(keys([filtered], [facts({ eventId: 'b', level: 'fatal' })])).toEqual(['every_occurrence:b']);
    expect(keys([filtered], [facts({ level: 'warning' })])).toEqual([]);
    expect(keys([filtered], [facts({ environment: 'staging' })])).toEqual([]);
    expect(keys([filtered], [facts({ environment: null })])).toEqual([]);
    expect(keys([filtered], [facts({ projectId: 2 })])).toEqual([]);
  });

  it('fires nothing for a disabled rule', () => {
    const disabled = rule({ trigger: 'every_occurrence', enabled: false });
    expect(keys([disabled], [facts({ isNewIssue: true })])).toEqual([]);
    expect(keys([disabled, rule({ trigger: 'new_issue' })], [facts({ isNewIssue: true })])).toEqual(['new_issue:7']);
  });
});

describe('rule validation', () => {
  const base = { name: 'r', channelIds: [1] };
  const problem = (input: object) => {
    const parsed = ruleInput.safeParse({ ...base, ...input });
    return parsed.success ? undefined : parsed.error.issues.map((i) => i.message).join('; ');
  };
  it('asks each trigger for the settings it needs and refuses the ones it does not take', () => {
    expect(problem({ trigger: 'new_issue' })).toBeUndefined();
    expect(problem({ trigger: 'frequent', threshold: 10, windowMinutes: 5 })).toBeUndefined();
    expect(problem({ trigger: 'frequent', threshold: 10 })).toMatch(/frequent needs windowMinutes/);
    expect(problem({ trigger: 'many_users' })).toMatch(/many_users needs threshold/);
    expect(problem({ trigger: 'many_users', threshold: 5 })).toBeUndefined();
    expect(problem({ trigger: 'new_issue', threshold: 5 })).toMatch(/new_issue takes no threshold/);
    expect(problem({ trigger: 'regression', milestones: [5] })).toMatch(/takes no milestones/);
    expect(problem({ trigger: 'milestone', milestones: [5, 50] })).toBeUndefined();
    expect(problem({ trigger: 'sometimes' })).toMatch(/expected one of/i);
    expect(problem({ trigger: 'new_issue', channelIds: [] })).toMatch(/at least one channel/);
    expect(problem({ trigger: 'new_issue', minLevel: 'loud' })).toBeDefined();
  });
});

describe('ruleProblems', () => {
  it('names every wrong field at once, the trigger settings included, with how to fix it', () => {
    const problems = ruleProblems({ name: ' ', trigger: 'frequent', channelIds: [], threshold: 0 });
    expect(Object.fromEntries(problems.map((p) => [p.field, p.message]))).toEqual({
      name: 'name must not be empty',
      channelIds: 'channelIds must name at least one channel',
      threshold: 'threshold must be at least 1',
      windowMinutes: 'frequent needs windowMinutes (within this many minutes)',
    });
    expect(ruleProblems({ name: 'r', trigger: 'frequent', channelIds: [1], threshold: 5, windowMinutes: 10_081 })).toEqual([
      { field: 'windowMinutes', message: 'windowMinutes is at most 10080 (7 days)' },
    ]);
    expect(ruleProblems({ name: 'r', trigger: 'milestone', channelIds: [1], milestones: [] })).toEqual([
      { field: 'milestones', message: 'milestones must list at least one count' },
    ]);
    expect(ruleProblems({ name: 'r', trigger: 'new_issue', channelIds: [1], enabled: false })).toEqual([]);
  });
});
