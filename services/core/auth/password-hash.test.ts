import { describe, expect, it } from 'vitest';
import { createPasswordHasher, MAX_PASSWORD_LENGTH } from './password-hash.ts';

// Cheap parameters for the behaviour tests; one test runs OWASP's.
const fast = createPasswordHasher({ params: { ln: 10, r: 8, p: 1 } });

describe('password hashing', () => {
  it("hashes at OWASP's parameters with a 16-byte salt and a 64-byte key, and verifies", async () => {
    const hasher = createPasswordHasher();
    const encoded = await hasher.hash('correct horse battery staple');
    const [, algorithm, params, salt, key] = encoded.split('$');
    expect(algorithm).toBe('scrypt');
    expect(params).toBe('ln=17,r=8,p=1');
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64')).toHaveLength(64);
    expect(await hasher.verify('correct horse battery staple', encoded)).toBe(true);
    expect(await hasher.verify('correct horse battery stapler', encoded)).toBe(false);
    expect(hasher.needsRehash(encoded)).toBe(false);
  });

  it('salts every hash and never contains the password', async () => {
    const a = await fast.hash('same password');
    const b = await fast.hash('same password');
    expect(a).not.toBe(b);
    expect(a).not.toContain('same password');
  });

  it('verifies with the parameters stored in the hash, and says when they are weaker than today', async () => {
    const old = await fast.hash('pa55word!');
    const stronger = createPasswordHasher({ params: { ln: 11, r: 8, p: 1 } });
    expect(await stronger.verify('pa55word!', old)).toBe(true);
    expect(stronger.needsRehash(old)).toBe(true);
    expect(stronger.needsRehash('not a hash')).toBe(true);
  });

  it('answers false for no hash, a malformed hash and an overlong password', async () => {
    expect(await fast.verify('anything', null)).toBe(false);
    expect(await fast.verify('anything', undefined)).toBe(false);
    expect(await fast.verify('anything', '$scrypt$garbage')).toBe(false);
    const encoded = await fast.hash('x'.repeat(MAX_PASSWORD_LENGTH));
    expect(await fast.verify('x'.repeat(MAX_PASSWORD_LENGTH), encoded)).toBe(true);
    expect(await fast.verify('x'.repeat(MAX_PASSWORD_LENGTH + 1), encoded)).toBe(false);
  });

  it('does the same work for an unknown account as for a wrong password: a hash, in a slot', async () => {
    let calls = 0;
    const counting = createPasswordHasher({
      params: { ln: 10, r: 8, p: 1 },
      random: (bytes) => {
        calls++;
        return Buffer.alloc(bytes, 7);
      },
    });
    expect(await counting.verify('guess', null)).toBe(false);
    // The stand-in is made once (one salt drawn), then each unknown account derives a key against it.
    expect(await counting.verify('guess again', undefined)).toBe(false);
    expect(calls).toBe(1);
  });

  it('refuses a check at once, with a retry time, when the slots are taken and enough already wait', async () => {
    const small = createPasswordHasher({ params: { ln: 10, r: 8, p: 1 }, maxConcurrent: 1, maxWaiting: 1 });
    const encoded = await small.hash('right');
    const [first, second, third] = ['right', 'wrong', 'right'].map((password) => small.verify(password, encoded));
    await expect(third).rejects.toMatchObject({
      code: 'unavailable',
      retryAfterSeconds: 2,
      message: expect.stringMatching(/try again in 2 seconds/),
    });
    expect(await first).toBe(true);
    expect(await second).toBe(false);
    expect(await small.verify('right', encoded)).toBe(true);
  });

  it('checks an unknown account again once a check refused as busy has passed (the refusal is not kept)', async () => {
    const small = createPasswordHasher({ params: { ln: 10, r: 8, p: 1 }, maxConcurrent: 1, maxWaiting: 0 });
    const encoded = await small.hash('right');
    const known = small.verify('right', encoded);
    await expect(small.verify('guess', undefined)).rejects.toMatchObject({ code: 'unavailable' });
    expect(await known).toBe(true);
    expect(await small.verify('guess', undefined)).toBe(false);
  });

  it('treats canonically equivalent Unicode passwords alike', async () => {
    const encoded = await fast.hash('caf\u00e9-secret');
    expect(await fast.verify('cafe\u0301-secret', encoded)).toBe(true);
  });
});
