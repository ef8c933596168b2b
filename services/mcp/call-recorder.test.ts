import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { NewAgentCall } from '../core/ports/agent-activity-store.ts';
import type { AgentToken } from '../core/ports/token-store.ts';
import { createLogger } from '../runtime/logger.ts';
import { CallRecorder } from './call-recorder.ts';

const TOKEN: AgentToken = {
  id: 7,
  organizationId: 3,
  projectId: null,
  projectSlug: null,
  name: 'laptop',
  role: 'triage',
  createdAt: new Date(0),
  revokedAt: null,
  lastUsedAt: null,
  createdBy: null,
};
const SECRET = `errata_agent_${'Zx9'.repeat(14)}`;

function captured(): { logger: ReturnType<typeof createLogger>; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

const batch = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'update_issue', arguments: { shortId: 'web-4', note: SECRET } },
  },
  { jsonrpc: '2.0', id: 2, method: 'tools/list' },
];

describe('CallRecorder', () => {
  it('records each tool call of a rate-limited request as rate_limited, without secrets, with the issue it named', async () => {
    const written: NewAgentCall[] = [];
    const store = { recordAgentCalls: async (rows: NewAgentCall[]) => void written.push(...rows) };
    new CallRecorder({ store, logger: captured().logger, now: () => 1_000 }, TOKEN, batch).rateLimited();
    await Promise.resolve();
    expect(written).toEqual([
      {
        organizationId: 3,
        tokenId: 7,
        tokenName: 'laptop',
        tool: 'update_issue',
        at: new Date(1_000),
        durationMs: 0,
        outcome: 'rate_limited',
        reason: null,
        argumentSummary: 'shortId=web-4 note=[redacted]',
        issues: ['WEB-4'],
      },
    ]);
  });

  it('logs a failed write without the arguments or the error text, and throws nothing', async () => {
    const { logger, lines } = captured();
    const store = { recordAgentCalls: () => Promise.reject(new Error(`insert failed near ${SECRET}`)) };
    expect(() => new CallRecorder({ store, logger, now: () => 0 }, TOKEN, batch).rateLimited()).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'agent calls not recorded', tokenId: 7, calls: 1, error: 'Error' });
    expect(lines[0]).not.toContain('Zx9');
  });
});
