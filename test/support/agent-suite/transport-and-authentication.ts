// The /mcp transport: authentication and revocation, the JSON and event-stream answers, body
// limits, the stateless methods, and the per-token message limit, batches included.
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../standalone-server.ts';
import { marker, READ_TOOLS, SUITE_CALLS_PER_MINUTE, TOOLS, type AgentSuite, type AgentTarget } from './suite.ts';

export function describeTransportAndAuthentication(suite: AgentSuite): void {
  describe('transport and authentication', () => {
    const { tokens, agent, token } = suite;
    let target: AgentTarget;
    beforeAll(() => {
      ({ target } = suite);
    });
    it('refuses a missing, unknown or malformed token with 401, WWW-Authenticate and how to get one', async () => {
      for (const authorization of [undefined, 'Bearer errata_agent_not-a-real-token', 'Basic abc']) {
        const response = await fetch(`${target.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
        const body = (await response.json()) as { error: { message: string } };
        expect(body.error.message).toContain('errata createtoken');
      }
    });

    it('answers in JSON for the SDK client and as an event stream when the client prefers it', async () => {
      const list = await (await agent(tokens.admin!)).client.listTools();
      expect(list.tools.map((t) => t.name)).toEqual(TOOLS);
      for (const tool of list.tools) {
        expect(tool.outputSchema, tool.name).toBeDefined();
        expect(tool.description, tool.name).toMatch(/role (read|triage|admin)/);
      }
      const response = await fetch(`${target.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream, application/json',
          authorization: `Bearer ${tokens.admin}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const text = await response.text();
      const data = text.split('\n').find((line) => line.startsWith('data: '))!;
      expect(JSON.parse(data.slice(6))).toMatchObject({ id: 7, result: { structuredContent: { tokenName: 'suite-admin' } } });
    });

    it('refuses a body that is not JSON with 400 and one over a megabyte with 413', async () => {
      const post = (body: string) =>
        fetch(`${target.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${tokens.admin}`,
          },
          body,
        });
      const notJson = await post('{"jsonrpc": "2.0",');
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toMatchObject({ error: { code: -32700 } });
      const huge = await post(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(1_100_000) } }),
      );
      expect(huge.status).toBe(413);
      // The server still answers.
      expect((await (await agent(tokens.admin!)).call('whoami')).isError).toBe(false);
    });

    it('answers GET and DELETE with 405: the server is stateless', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await fetch(`${target.url}/mcp`, { method, headers: { authorization: `Bearer ${tokens.admin}` } });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('POST');
      }
    });

    it('a revoked token fails on its very next request', async () => {
      const name = `revoked-${marker()}`;
      const revocable = await token('read', 'default', undefined, name);
      const a = await agent(revocable);
      expect((await a.call('whoami')).structured.tokenName).toBe(name);
      const revoked = await runCli(['revoketoken', name, '--organization', 'default'], target.env);
      expect(revoked.code).toBe(0);
      await expect(a.call('whoami')).rejects.toThrow(/unknown or revoked token/);
      const raw = await fetch(`${target.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${revocable}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(raw.status).toBe(401);
    });

    it('limits calls per token per minute, reports the state in whoami, and says how long to wait', async () => {
      const limited = await agent(await token('read', 'default'));
      const first = await limited.call('whoami');
      // Every JSON-RPC message counts: the client's initialize and initialized, then whoami.
      expect(first.structured.rateLimit).toMatchObject({
        limit: SUITE_CALLS_PER_MINUTE,
        remaining: SUITE_CALLS_PER_MINUTE - 3,
      });
      expect(first.structured.rateLimit.resetInSeconds).toBeGreaterThan(0);
      expect(first.structured.rateLimit.resetInSeconds).toBeLessThanOrEqual(60);
      for (let i = 3; i < SUITE_CALLS_PER_MINUTE; i++) {
        const call = await limited.call('list_projects');
        expect(call.isError).toBe(false);
      }
      const refused = await limited.call('whoami');
      expect(refused.isError).toBe(true);
      expect(refused.text).toMatch(/rate_limited: .* retry in \d+ seconds/);
      // Another token is not affected.
      expect((await (await agent(tokens['read:org']!)).call('whoami')).isError).toBe(false);
    });
    it('counts every message of a batch, tools/list included; refuses a batch over the limit whole, and one over 20 messages', async () => {
      const limited = await token('read', 'default');
      const post = async (body: unknown) => {
        const response = await fetch(`${target.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${limited}`,
          },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: (text ? JSON.parse(text) : undefined) as any,
        };
      };
      const lists = (n: number, from = 0) =>
        Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'tools/list' }));

      const oversized = await post(lists(21));
      expect(oversized.status).toBe(400);
      expect(oversized.body.error).toMatchObject({ code: -32600 });
      expect(oversized.body.error.message).toContain('at most 20 messages');
      expect(oversized.body.error.message).toContain('21');

      let sent = 0;
      let first: unknown;
      while (sent + 20 <= SUITE_CALLS_PER_MINUTE) {
        const batch = await post(lists(20, sent));
        expect(batch.status).toBe(200);
        expect(batch.body).toHaveLength(20);
        // A read token: tools/list shows it the read tools only.
        for (const answer of batch.body) expect(answer.result.tools.map((t: { name: string }) => t.name)).toEqual(READ_TOOLS);
        first ??= batch.body[0].result;
        expect(batch.body[19].result).toEqual(first);
        sent += 20;
      }
      const left = SUITE_CALLS_PER_MINUTE - sent;
      // One more than is left: refused whole, every request answered with the rate-limit error, none processed.
      const refused = await post([
        ...lists(left),
        { jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      ]);
      expect(refused.status).toBe(200);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(refused.body).toHaveLength(left + 1);
      for (const answer of refused.body.slice(0, left)) {
        expect(answer.result).toBeUndefined();
        expect(answer.error.message).toMatch(/^rate_limited: .* retry in \d+ seconds/);
      }
      expect(refused.body[left]).toMatchObject({ id: 'call', result: { isError: true } });
      expect(refused.body[left].result.content[0].text).toMatch(/^rate_limited: .* retry in \d+ seconds/);
      // What was refused was not counted: exactly what is left still goes through, then nothing.
      const rest = await post(lists(left));
      expect(rest.body.every((answer: any) => answer.result?.tools?.length === READ_TOOLS.length)).toBe(true);
      const single = await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
      expect(single.body.result.isError).toBe(true);
      expect(single.body.result.content[0].text).toMatch(/^rate_limited: /);
      // An empty batch holds no message to count: it was answered 202, past the limit, with a
      // server built for it. It is an invalid request, refused before anything is built.
      const empty = await post([]);
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatchObject({ code: -32600 });
      expect(empty.body.error.message).toContain('empty batch');
    });
  });
}
