import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStores, type EmbeddedStores } from '../../../test/support/embedded-stores.ts';
import {
  checkCode,
  codeLink,
  issueResetCode,
  issueSetupCode,
  redeemCode,
  RESET_CODE_TTL_MS,
  SETUP_CODE_TTL_MS,
} from './one-time-codes.ts';

let stores: EmbeddedStores;
beforeAll(async () => {
  stores = await openEmbeddedStores();
});
afterAll(() => stores.close());

const t0 = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(t0.getTime() + ms);

describe('one-time codes', () => {
  it('makes setup and reset links under the base URL', () => {
    expect(codeLink('https://errata.example.com/', 'setup', 'abc')).toBe('https://errata.example.com/setup?code=abc');
    expect(codeLink('http://127.0.0.1:8000', 'reset', 'abc')).toBe('http://127.0.0.1:8000/reset?code=abc');
  });

  it('keeps a setup code for a day, used once; a new one replaces it; the first user ends it', async () => {
    const { users } = stores;
    const first = await issueSetupCode(users, t0);
    expect(first).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(await checkCode(users, 'setup', first, later(SETUP_CODE_TTL_MS - 1))).toMatchObject({
      userId: null,
      expiresAt: later(SETUP_CODE_TTL_MS),
    });
    // Before, it worked until used: a start's output in a log was an owner's account for anyone.
    expect(await checkCode(users, 'setup', first, later(SETUP_CODE_TTL_MS))).toBeUndefined();
    const second = await issueSetupCode(users, t0);
    expect(await checkCode(users, 'setup', first, t0)).toBeUndefined();
    expect(await checkCode(users, 'reset', second, t0)).toBeUndefined();
    expect(await redeemCode(users, 'setup', second, t0)).toMatchObject({ purpose: 'setup' });
    expect(await redeemCode(users, 'setup', second, t0)).toBeUndefined();
    const third = await issueSetupCode(users, t0);
    await users.createUser({ email: 'first@example.com', name: 'First', role: 'owner', passwordHash: null });
    expect(await checkCode(users, 'setup', third, t0)).toBeUndefined();
  });

  it('keeps a reset code for a day, one per user, used once', async () => {
    const { users } = stores;
    const ada = await users.createUser({ email: 'ada@example.com', name: 'Ada', role: 'member', passwordHash: null });
    const bob = await users.createUser({ email: 'bob@example.com', name: 'Bob', role: 'member', passwordHash: null });
    const old = await issueResetCode(users, ada.id, t0);
    const code = await issueResetCode(users, ada.id, t0);
    const bobs = await issueResetCode(users, bob.id, t0);
    expect(await checkCode(users, 'reset', old, t0)).toBeUndefined();
    expect(await checkCode(users, 'reset', bobs, t0)).toMatchObject({ userId: bob.id });
    expect(await checkCode(users, 'reset', code, later(RESET_CODE_TTL_MS))).toBeUndefined();
    expect(await redeemCode(users, 'reset', code, later(RESET_CODE_TTL_MS - 1))).toMatchObject({
      userId: ada.id,
      expiresAt: later(RESET_CODE_TTL_MS),
    });
    expect(await redeemCode(users, 'reset', code, t0)).toBeUndefined();
  });
});
