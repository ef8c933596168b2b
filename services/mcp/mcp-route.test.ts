import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  BASE_URL,
  MAX_WINDOW_MINUTES,
  OPEN_TIMEOUT_MS,
  openToolHarness,
  type ToolHarness,
} from '../../test/support/tool-harness.ts';
import { toolContext } from './mcp-route.ts';

let h: ToolHarness;
beforeAll(async () => {
  h = await openToolHarness();
}, OPEN_TIMEOUT_MS);
afterAll(() => h.close());

describe('toolContext', () => {
  it("reads the token's organization by its id, so a call costs the same however many organizations there are", async () => {
    // Listing every organization on each call made a call about 3x dearer at 1,000 of them.
    const listed = vi.spyOn(h.stores.metadata, 'listOrganizations');
    const got = vi.spyOn(h.stores.metadata, 'getOrganization');
    try {
      for (const name of ['admin', 'other'] as const) {
        const context = await toolContext(
          { ...h.stores, baseUrl: BASE_URL, maxWindowMinutes: MAX_WINDOW_MINUTES },
          h.tokens[name],
          h.limiter,
          () => h.now,
        );
        expect(context.organization).toEqual(name === 'other' ? h.organizations.other : h.organizations.default);
      }
      expect(listed).not.toHaveBeenCalled();
      expect(got.mock.calls).toEqual([[h.tokens.admin.organizationId], [h.tokens.other.organizationId]]);
    } finally {
      listed.mockRestore();
      got.mockRestore();
    }
  });
});
