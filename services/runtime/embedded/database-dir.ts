import { join } from 'node:path';

/** Where the standalone server keeps its embedded database, inside its data directory. */
export function embeddedDatabaseDir(dataDir: string): string {
  return join(dataDir, 'db');
}

/** Where it keeps its event payloads, beside the database (payload-segments.ts). */
export function embeddedPayloadDir(dataDir: string): string {
  return join(dataDir, 'payloads');
}
