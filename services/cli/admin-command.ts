// How an admin command reaches the data. Distributed (ERRATA_POSTGRES_URL set): straight to
// Postgres, which serializes writers itself. Standalone: through the running server's admin
// socket when a server owns the data directory, otherwise by opening the stores itself under
// the instance lock (waiting briefly if another command holds it, or for a starting server to
// listen on its socket). Never two writers on one embedded database.
import { AdminSocketError, callAdminSocket } from '../runtime/admin/socket.ts';
import { runAdminOperation, type AdminOperation } from '../runtime/admin/operations.ts';
import { createSqlStores } from '../adapters/postgres/sql-stores.ts';
import { openSecretBox, secretsKeyOf } from '../runtime/open-secret-box.ts';
import { initializeEmbeddedDatabase, openPostgres, openStores, requireCurrentSchema } from '../runtime/compose.ts';
import type { Config } from '../runtime/config.ts';
import { openPrivateDataDir } from '../runtime/data-dir.ts';
import { createLogger } from '../runtime/logger.ts';
import { acquireInstanceLock, currentHolder, InstanceLockedError } from '../runtime/instance-lock.ts';
import { setTimeout as sleep } from 'node:timers/promises';
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
      // A missing table read as an outage ("unavailable: retry later"), a missing column as a stack trace.
      await requireCurrentSchema(client);
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
  // Log lines go to stderr: stdout is the command's output (--json).
  await openPrivateDataDir(config.dataDir, createLogger(config.logLevel, process.stderr));
  const deadline = Date.now() + SERVER_WAIT_MS;
  for (;;) {
    const holder = await currentHolder(config.dataDir);
    if (holder?.kind === 'server' && holder.socket) {
      try {
        return await callAdminSocket(holder.socket, operation, input);
      } catch (error) {
        // A server still starting takes the directory before its socket listens (the database
        // opens, the queue is replayed): the call is made again once it does.
        if (!(error instanceof AdminSocketError && error.notListening) || Date.now() >= deadline) throw error;
        await sleep(200);
        continue;
      }
    }
    let lock;
    try {
      lock = await acquireInstanceLock(
        config.dataDir,
        { kind: 'cli' },
        { waitMs: Math.max(0, deadline - Date.now()), waitFor: (other) => other.kind === 'cli' },
      );
    } catch (error) {
      // A server took the directory meanwhile: the command goes through its socket.
      if (!(error instanceof InstanceLockedError && error.holder.kind === 'server') || Date.now() >= deadline) throw error;
      await sleep(100);
      continue;
    }
    return runWithLock(config, operation, input, blobs, lock);
  }
}

/** How long a command waits for another command to finish or a starting server to listen. */
const SERVER_WAIT_MS = 30_000;

/** The command on the embedded stores, which it opens itself under the instance lock. */
async function runWithLock(
  config: Config,
  operation: AdminOperation,
  input: Record<string, unknown>,
  blobs: ReturnType<typeof lazyBlobStore>,
  lock: { release(): Promise<void> },
): Promise<unknown> {
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
