import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from './config.ts';
import { secretsKeyOf } from './open-secret-box.ts';

const dirs: string[] = [];
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'errata-secrets-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the standalone secrets key file', () => {
  it('is made once, private, and read back the same', async () => {
    const dir = await dataDir();
    const key = secretsKeyOf({ dataDir: dir }, true)!;
    expect(key).toHaveLength(32);
    expect((await stat(join(dir, 'secrets.key'))).mode & 0o777).toBe(0o600);
    expect(secretsKeyOf({ dataDir: dir }, true)).toEqual(key);
    expect((await readFile(join(dir, 'secrets.key'), 'utf8')).trim()).toBe(key.toString('hex'));
  });

  it('names the file and what to do when it does not hold a key', async () => {
    // As a first start that created the file and then failed to write it (a full disk) left it:
    // every later start stopped on "the secrets key must be 32 bytes", not naming the file.
    for (const text of ['', 'abc', 'z'.repeat(64)]) {
      const dir = await dataDir();
      await writeFile(join(dir, 'secrets.key'), text);
      expect(() => secretsKeyOf({ dataDir: dir }, true)).toThrow(ConfigError);
      expect(() => secretsKeyOf({ dataDir: dir }, true)).toThrow(
        `${join(dir, 'secrets.key')} does not hold a secrets key (64 hex characters): restore it from a backup`,
      );
    }
  });

  it('is the configured key when ERRATA_SECRETS_KEY is set, and none in the distributed mode without it', async () => {
    const dir = await dataDir();
    const configured = Buffer.alloc(32, 7);
    expect(secretsKeyOf({ dataDir: dir, secretsKey: configured }, true)).toBe(configured);
    expect(secretsKeyOf({ dataDir: dir }, false)).toBeUndefined();
  });
});
