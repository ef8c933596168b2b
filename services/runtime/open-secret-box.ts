// The key that seals channel signing secrets (core/alerts/secret-box.ts): ERRATA_SECRETS_KEY
// when set (required in the distributed mode, the same in every role); standalone, otherwise,
// a random key kept in <data dir>/secrets.key (mode 0600), made on first use.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectorySync, syncFileSync } from '../adapters/disk-sync.ts';
import { missingSecretBox, secretBox, type SecretBox } from '../core/alerts/secret-box.ts';
import { ConfigError, type Config } from './config.ts';

export function secretsKeyOf(config: Pick<Config, 'secretsKey' | 'dataDir'>, standalone: boolean): Buffer | undefined {
  if (config.secretsKey) return config.secretsKey;
  if (!standalone) return undefined;
  const file = join(config.dataDir, 'secrets.key');
  makeKeyFile(file);
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new ConfigError(
      `${file} does not hold a secrets key (64 hex characters): restore it from a backup of the data directory; ` +
        'if no alert channel was ever made, delete it and a new one is made',
    );
  }
  return Buffer.from(text, 'hex');
}

/**
 * A new key is written aside, synced, and linked into place only whole (link fails if one is
 * there): a key file created empty and then written left an empty file behind when the write
 * failed (a full disk), and every later start stopped on it.
 */
function makeKeyFile(file: string): void {
  if (existsSync(file)) return;
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(aside, randomBytes(32).toString('hex'), { mode: 0o600 });
  try {
    syncFileSync(aside);
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return;
  } finally {
    rmSync(aside, { force: true });
  }
  syncDirectorySync(join(file, '..'));
}

export function openSecretBox(key: Buffer | undefined): SecretBox {
  return key ? secretBox(key) : missingSecretBox();
}
