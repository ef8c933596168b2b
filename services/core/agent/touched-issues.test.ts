import { describe, expect, it } from 'vitest';
import { touchedIssues } from './touched-issues.ts';

describe('touchedIssues', () => {
  it('takes the short ids the arguments name and the result names, canonical and once each', () => {
    expect(touchedIssues({ shortId: 'web-12', action: 'resolve' }, { shortId: 'WEB-12', changed: true })).toEqual(['WEB-12']);
    expect(touchedIssues({ shortIds: ['WEB-1', 'WEB-2'] }, { shortIds: ['WEB-2', 'WEB-3'], dryRun: false })).toEqual([
      'WEB-1',
      'WEB-2',
      'WEB-3',
    ]);
  });

  it("leaves out a dry run's matches, listings, and text that is not a short id", () => {
    expect(touchedIssues({ project: 'web', dryRun: true }, { shortIds: ['WEB-4'], dryRun: true })).toEqual([]);
    expect(touchedIssues({ project: 'web' }, { issues: [{ shortId: 'WEB-5' }] })).toEqual([]);
    expect(touchedIssues({ shortId: 'not an id' }, undefined)).toEqual([]);
  });
});
