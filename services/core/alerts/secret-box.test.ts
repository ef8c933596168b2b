import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../errors.ts';
import { secretBox } from './secret-box.ts';

describe('the secret box', () => {
  it('opens what it sealed', () => {
    const box = secretBox(randomBytes(32));
    const sealed = box.seal('whsec_example');
    expect(sealed).not.toContain('whsec_example');
    expect(box.open(sealed)).toBe('whsec_example');
  });

  it('says the secrets key changed when a secret was sealed under another', () => {
    const sealed = secretBox(randomBytes(32)).seal('whsec_example');
    // OpenSSL's "Unsupported state or unable to authenticate data" was all a delivery's attempt log or Reveal said.
    const open = () => secretBox(randomBytes(32)).open(sealed);
    expect(open).toThrow(UnavailableError);
    expect(open).toThrow(/sealed with another secrets key: set ERRATA_SECRETS_KEY .* or rotate the channel's secret/);
  });
});
