import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8000, baseUrl: 'http://localhost:8000', organization: 'default' });
    expect(config.dataDir.endsWith('.errata')).toBe(true);
    expect(config.limits).toEqual({
      maxEventBytes: 1048576,
      maxLogItemBytes: 4194304,
      maxRequestBytes: 20971520,
      maxEnvelopeBytes: 104857600,
      ingestMemoryBytes: 268435456,
    });
  });

  it('derives the base URL from the port and trims a trailing slash', () => {
    expect(loadConfig({ ERRATA_PORT: '9000' }).baseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ ERRATA_BASE_URL: 'https://errors.example.com/' }).baseUrl).toBe('https://errors.example.com');
  });

  it('names the variable and the problem when a value is bad', () => {
    expect(() => loadConfig({ ERRATA_PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ ERRATA_PORT: 'eighty' })).toThrow(/ERRATA_PORT="eighty"/);
    expect(() => loadConfig({ ERRATA_BASE_URL: 'ftp://x' })).toThrow(/ERRATA_BASE_URL/);
    expect(() => loadConfig({ ERRATA_ORGANIZATION: 'Big Org' })).toThrow(/ERRATA_ORGANIZATION="Big Org": use lowercase/);
  });
});
