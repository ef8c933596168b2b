// How an admin command reaches the data. Distributed (ERRATA_POSTGRES_URL set): straight to
// Postgres, which serializes writers itself. Standalone: through the running server's admin
// socket when a server owns the data directory, otherwise by opening the stores itself under
// the instance lock (waiting briefly if another command holds it). Never two writers on one
// embedded database.
import { callAdminSocket } from '../runtime/admin/socket.ts';
import { runAdminOperation, type AdminOperation } from '../runtime/admin/operations.ts';
import { createSqlStores } from '../adapters/postgres/sql-stores.ts';
import { openSecretBox, secretsKeyOf } from '../runtime/open-secret-box.ts';
import { initializeEmbeddedDatabase, openPostgres, openStores } from '../runtime/compose.ts';
import type { Config } from '../runtime/config.ts';
import { openPrivateDataDir } from '../runtime/data-dir.ts';
import { createLogger } from '../runtime/logger.ts';
import { acquireInstanceLock, currentHolder } from '../runtime/instance-lock.ts';
import { ensureFirstOrganization } from './first-organization.ts';
import { openBlobStore } from '../runtime/open-blob-store.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';

export async function runAdminCommand(
  config: Config,
  operation: AdminOperation,
  input: Record<string, unknown>,
): Promise<unknown> {
  const blobs = lazyBlobStore(config);
  if (config.postgres) {
    const client = await openPostgres(config.postgres);
    try {
      const { metadata, alerts, users } = createSqlStores(client);
      await ensureFirstOrganization(metadata, config.organization);
      const alerting = { alerts, secrets: openSecretBox(secretsKeyOf(config, false)) };
      // Ingest processes notice key changes through their key cache's refresh (30 s).
      return await runAdminOperation(
        {
          metadata,
          users,
          ...alerting,
          baseUrl: config.baseUrl,
          webhookAllowHosts: config.webhooks.allowHosts,
          blobs: blobs.open,
        },
        operation,
        input,
      );
    } finally {
      await client.close();
      await blobs.close();
    }
  }
  const holder = await currentHolder(config.dataDir);
  if (holder?.kind === 'server' && holder.socket) return callAdminSocket(holder.socket, operation, input);
  // Log lines go to stderr: stdout is the command's output (--json).
  await openPrivateDataDir(config.dataDir, createLogger(config.logLevel, process.stderr));
  const lock = await acquireInstanceLock(config.dataDir, { kind: 'cli' }, { waitMs: 30_000 });
  try {
    await initializeEmbeddedDatabase(config.dataDir);
    const stores = await openStores(config);
    try {
      await ensureFirstOrganization(stores.metadata, config.organization);
      const context = {
        metadata: stores.metadata,
        users: stores.users,
        alerts: stores.alerts,
        secrets: openSecretBox(secretsKeyOf(config, true)),
        baseUrl: config.baseUrl,
        webhookAllowHosts: config.webhooks.allowHosts,
        blobs: blobs.open,
      };
      return await runAdminOperation(context, operation, input);
    } finally {
      await stores.close();
      await blobs.close();
    }
  } finally {
    await lock.release();
  }
}

/** Opened on first use: most commands never touch blobs. */
function lazyBlobStore(config: Config): { open(): Promise<BlobStore>; close(): Promise<void> } {
  let opened: Promise<BlobStore> | undefined;
  return {
    open: () => (opened ??= openBlobStore(config)),
    close: async () => {
      if (opened) await (await opened).close();
    },
  };
}
