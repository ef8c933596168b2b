import { describe, expect, it } from 'vitest';
import type { Issue } from '../ports/metadata-store.ts';
import { similarIssues, titleShape } from './similar.ts';

function issue(id: number, title: string, metadata: Issue['metadata'] = {}): Issue {
  const at = new Date(0);
  return {
    id,
    projectId: 1,
    projectSlug: 'web',
    shortId: `WEB-${id}`,
    title,
    culprit: '',
    level: 'error',
    status: 'unresolved',
    type: 'error',
    metadata,
    firstSeen: at,
    lastSeen: at,
    count: 1,
    userCount: 0,
    environments: [],
    firstRelease: null,
    lastRelease: null,
    resolution: null,
    snoozeUntil: null,
    regressedAt: null,
    regressionRelease: null,
  };
}

describe('similarIssues', () => {
  it('matches the exception type at the same top frame, or a title equal up to numbers and quoted values', () => {
    const subject = issue(1, "TypeError: cannot read 'x' of undefined", {
      type: 'TypeError',
      filename: 'app.js',
      function: 'load',
    });
    const candidates = [
      subject,
      issue(2, 'TypeError: something else', { type: 'TypeError', filename: 'app.js', function: 'load' }),
      issue(3, 'TypeError: something else', { type: 'TypeError', filename: 'app.js', function: 'save' }),
      issue(4, "TypeError: cannot read 'y' of undefined", { type: 'TypeError', filename: 'b.js', function: 'other' }),
      issue(5, 'RangeError: cannot read', { type: 'RangeError', filename: 'app.js', function: 'load' }),
    ];
    expect(similarIssues(subject, candidates).map((s) => [s.issue.id, s.reason])).toEqual([
      [2, 'same_exception_and_frame'],
      [4, 'similar_title'],
    ]);
  });

  it('masks numbers and ids in titles', () => {
    expect(titleShape('Timeout after 3000 ms on job 9f8e7d6c5b4a')).toBe(titleShape('Timeout after 15 ms on job 0123456789ab'));
  });
});
