// The key that seals channel signing secrets (core/alerts/secret-box.ts): ERRATA_SECRETS_KEY
// when set (required in the distributed mode, the same in every role); standalone, otherwise,
// a random key kept in <data dir>/secrets.key (mode 0600), made on first use.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingSecretBox, secretBox, type SecretBox } from '../core/alerts/secret-box.ts';
import type { Config } from './config.ts';

export function secretsKeyOf(config: Pick<Config, 'secretsKey' | 'dataDir'>, standalone: boolean): Buffer | undefined {
  if (config.secretsKey) return config.secretsKey;
  if (!standalone) return undefined;
  const file = join(config.dataDir, 'secrets.key');
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
}

export function openSecretBox(key: Buffer | undefined): SecretBox {
  return key ? secretBox(key) : missingSecretBox();
}
