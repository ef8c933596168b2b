import { describe, expect, it } from 'vitest';
import { deviceCookieShaped, mintDeviceCookie, trustedDevice } from './device-cookie.ts';

const ADA = { id: 7, passwordHash: '$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA' };

describe('the device cookie', () => {
  it("trusts the browser a user signed in from, under that user's present password only", () => {
    const cookie = mintDeviceCookie(ADA.id, ADA.passwordHash);
    expect(cookie).toMatch(/^7\.[\w-]{22}\.[\w-]{43}$/);
    const device = trustedDevice(cookie, ADA);
    expect(device).toBe(cookie.split('.').slice(0, 2).join('.'));
    // Each sign-in is a device of its own.
    expect(trustedDevice(mintDeviceCookie(ADA.id, ADA.passwordHash), ADA)).not.toBe(device);
    // A new password voids it.
    expect(trustedDevice(cookie, { ...ADA, passwordHash: '$scrypt$ln=15,r=8,p=1$c2FsdA$bmV3' })).toBeUndefined();
  });

  it("refuses another account's cookie, a forged or damaged one, and an account without a password", () => {
    const cookie = mintDeviceCookie(ADA.id, ADA.passwordHash);
    const [id, nonce, mac] = cookie.split('.') as [string, string, string];
    expect(trustedDevice(cookie, { id: 8, passwordHash: ADA.passwordHash })).toBeUndefined();
    expect(trustedDevice(`8.${nonce}.${mac}`, { id: 8, passwordHash: ADA.passwordHash })).toBeUndefined();
    expect(trustedDevice(`${id}.${nonce}x.${mac}`, ADA)).toBeUndefined();
    expect(trustedDevice(`${id}.${nonce}.${mac.slice(1)}`, ADA)).toBeUndefined();
    expect(trustedDevice(`${cookie}.more`, ADA)).toBeUndefined();
    expect(trustedDevice('', ADA)).toBeUndefined();
    expect(trustedDevice(undefined, ADA)).toBeUndefined();
    expect(trustedDevice(cookie, undefined)).toBeUndefined();
    expect(trustedDevice(cookie, { id: ADA.id, passwordHash: null })).toBeUndefined();
  });

  it('passes on only what has its shape, so that junk costs no lookup of the email', () => {
    const cookie = mintDeviceCookie(ADA.id, ADA.passwordHash);
    expect(deviceCookieShaped(cookie)).toBe(cookie);
    for (const junk of [undefined, '', 'x', `${cookie}.x`, cookie.replace(/^7/, 'seven'), `7.${'a'.repeat(22)}.short`]) {
      expect(deviceCookieShaped(junk)).toBeUndefined();
    }
  });
});
