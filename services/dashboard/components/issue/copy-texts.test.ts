import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../core/ports/event-store.ts';
import type { Issue } from '../../../core/ports/metadata-store.ts';
import { issueMarkdown, mcpCall } from './copy-texts.ts';

const issue = {
  shortId: 'WEB-7',
  title: 'TypeError: x is undefined',
  culprit: 'total(cart.js)',
  status: 'unresolved',
  level: 'error',
  count: 12,
  userCount: 3,
  firstSeen: new Date('2026-01-01T00:00:00Z'),
  lastSeen: new Date('2026-01-02T00:00:00Z'),
  lastRelease: 'web@2',
} as Issue;

const event = {
  payload: {
    exception: {
      values: [
        {
          type: 'TypeError',
          stacktrace: {
            frames: [
              { function: 'main', filename: 'app.js', lineno: 1, in_app: true },
              { function: 'lib', filename: 'node_modules/x.js', lineno: 9, in_app: false },
              {
                function: 'total',
                filename: 'cart.js',
                lineno: 2,
                colno: 5,
                in_app: true,
                context_line: '  return cart.items.length;',
              },
            ],
          },
        },
      ],
    },
  },
} as unknown as StoredEvent;

describe('issueMarkdown', () => {
  it('sums up the issue with its in-app frames, newest first, and its address', () => {
    expect(issueMarkdown(issue, event, 'https://errata.example/organizations/o/issues/WEB-7')).toBe(
      [
        '## WEB-7: TypeError: x is undefined',
        '',
        '- Status: unresolved',
        '- Level: error',
        '- Culprit: total(cart.js)',
        '- Events: 12, users: 3',
        '- First seen: 2026-01-01T00:00:00.000Z, last seen: 2026-01-02T00:00:00.000Z',
        '- Last release: web@2',
        '- URL: https://errata.example/organizations/o/issues/WEB-7',
        '',
        '### Top in-app frames (newest first)',
        '',
        '1. `total` at cart.js:2:5',
        '   `return cart.items.length;`',
        '2. `main` at app.js:1',
        '',
      ].join('\n'),
    );
  });

  it('leaves the frames out without an event', () => {
    expect(issueMarkdown(issue, undefined, 'u')).not.toContain('frames');
  });
});

describe('mcpCall', () => {
  it('is the JSON-RPC tools/call of get_issue_context for the issue', () => {
    expect(JSON.parse(mcpCall(issue))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_issue_context', arguments: { shortId: 'WEB-7' } },
    });
  });

  it('asks for the latest event of the environment the page shows', () => {
    expect(JSON.parse(mcpCall(issue, 'staging')).params.arguments).toEqual({ shortId: 'WEB-7', environment: 'staging' });
  });
});
