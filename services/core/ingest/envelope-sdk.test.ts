import { describe, expect, it } from 'vitest';
import { envelopeSdk, MAX_ENVELOPE_SDK_BYTES } from './envelope-sdk.ts';

const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('envelopeSdk', () => {
  it('keeps what SDKs send: name, version, integrations and packages', () => {
    const sdk = {
      name: 'sentry.javascript.node',
      version: '11.12.0',
      integrations: ['Http', 'Console'],
      packages: [{ name: 'npm:@sentry/node', version: '11.12.0' }],
    };
    expect(envelopeSdk(sdk)).toEqual(sdk);
  });

  it('drops what is not an sdk, and fields it does not know', () => {
    expect(envelopeSdk('sentry.python')).toBeUndefined();
    expect(envelopeSdk([{ name: 'x' }])).toBeUndefined();
    expect(envelopeSdk({ settings: { a: 1 } })).toBeUndefined();
    expect(envelopeSdk({ name: 'go', extra: 'x'.repeat(1000) })).toEqual({ name: 'go' });
  });

  it('stays within a few KiB whatever it is given', () => {
    const huge = {
      name: 'n'.repeat(4 * 1024 * 1024),
      version: 'v'.repeat(10_000),
      integrations: Array.from({ length: 10_000 }, (_, i) => `integration-${i}-${'i'.repeat(500)}`),
      packages: Array.from({ length: 10_000 }, (_, i) => ({ name: `p${i}${'p'.repeat(500)}`, version: 'v'.repeat(500) })),
    };
    const sdk = envelopeSdk(huge)!;
    expect(sdk.name).toHaveLength(128);
    expect(sdk.version).toHaveLength(128);
    expect(size(sdk)).toBeLessThanOrEqual(MAX_ENVELOPE_SDK_BYTES);
  });

  it('does not walk into deep nesting', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100_000; i++) deep = { name: deep };
    expect(envelopeSdk(deep)).toBeUndefined();
    let deepList: unknown = [];
    for (let i = 0; i < 100_000; i++) deepList = [deepList];
    expect(envelopeSdk({ name: 'js', integrations: deepList, packages: deepList })).toEqual({ name: 'js' });
  });
});
