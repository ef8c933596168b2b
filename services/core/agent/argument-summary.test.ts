import { describe, expect, it } from 'vitest';
import { argumentSummary, MAX_SUMMARY_CHARS } from './argument-summary.ts';

describe('argumentSummary', () => {
  it('names each argument with a short value, in the order given', () => {
    expect(argumentSummary({ shortId: 'WEB-12', action: 'resolve', confirmDelete: true, limit: 25 })).toBe(
      'shortId=WEB-12 action=resolve confirmDelete=true limit=25',
    );
    expect(argumentSummary({})).toBe('');
    expect(argumentSummary(undefined)).toBe('');
    expect(argumentSummary({ project: undefined, status: 'unresolved' })).toBe('status=unresolved');
  });

  it('quotes text with spaces and cuts long free text', () => {
    const note = 'Fixed by the retry in the payment client, see the long discussion in the pull request';
    const summary = argumentSummary({ note });
    expect(summary).toBe('note="Fixed by the retry in the payment clien…"');
    expect(summary).not.toContain('discussion');
  });

  it('keeps the whole line within its budget, one line however the arguments are made', () => {
    const args = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`argument${i}`, `value number ${i}`]));
    const summary = argumentSummary(args);
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_CHARS);
    expect(summary.endsWith('…')).toBe(true);
    expect(argumentSummary({ query: 'a\nb\r\n\tc\u0000d\u2028e' })).toBe('query="a b c d e"');
  });

  it('never splits a surrogate pair when it cuts', () => {
    const summary = argumentSummary({ note: `${'x'.repeat(38)}😀😀😀` });
    expect(summary).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('shows a few items of a list and of an object, and how many more', () => {
    expect(argumentSummary({ shortIds: ['WEB-1', 'WEB-2', 'WEB-3', 'WEB-4', 'WEB-5', 'WEB-6', 'WEB-7'] })).toBe(
      'shortIds=[WEB-1,WEB-2,WEB-3,WEB-4,WEB-5,+2]',
    );
    expect(argumentSummary({ attributes: { route: '/pay', status: 500, nested: { a: 1 } } })).toBe(
      'attributes={route:/pay,status:500,nested:…}',
    );
  });

  it('never holds a token, a DSN key or a value under a secret-sounding name', () => {
    const agentToken = `errata_agent_${'A1b2C3d4'.repeat(5)}`;
    const uploadToken = `errata_${'f'.repeat(40)}`;
    const dsnKey = '3f2a9c0d1e2b3c4d5e6f708192a3b4c5';
    const summary = argumentSummary({
      query: `why ${agentToken} fails`,
      note: `upload with ${uploadToken}`,
      release: `http://${dsnKey}@localhost:8000/1`,
      environment: dsnKey,
      token: 'anything',
      apiKey: 'x',
      attributes: { password: 'hunter2', authorization: 'Basic abc' },
    });
    for (const secret of [agentToken, uploadToken, dsnKey, 'errata_agent_A1b2', 'anything', 'hunter2', 'Basic abc']) {
      expect(summary).not.toContain(secret);
    }
    expect(summary).toContain('token=[redacted]');
    expect(summary).toContain('password:[redacted]');
    expect(summary).toContain('release=http://[redacted]@localhost:8000/1');
    // A commit hides nothing and is what a resolve is about.
    expect(argumentSummary({ commit: 'a'.repeat(40) })).toBe(`commit=${'a'.repeat(40)}`);
  });

  it('reads only the start of a long value, so a hostile one costs no more than a short one', () => {
    // `a.a.a…` made the URL pattern backtrack over the whole value: 40 KB took 0.85 s, and a
    // value of 1 MB (the largest body an agent may send) held the event loop for minutes.
    const hostile = 'a.'.repeat(500_000);
    expect(argumentSummary({ note: hostile })).toBe(`note=${'a.'.repeat(19)}a…`);
    // A secret that starts in the shown part is still replaced, however long it runs.
    expect(argumentSummary({ note: `errata_agent_${'x'.repeat(100_000)}` })).toBe('note=[redacted]');
    expect(argumentSummary({ [`${'n'.repeat(100_000)}`]: 1 })).toBe(`${'n'.repeat(29)}…=1`);
  });

  it('shows lists nested deeper than three levels as an ellipsis', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    // Before, each level was a call of its own: the stack overflowed.
    expect(argumentSummary({ ids: deep })).toBe('ids=[[[…]]]');
    expect(argumentSummary({ ids: [['WEB-1']] })).toBe('ids=[[WEB-1]]');
  });
});
