// What each role runs on: the ports compose.ts opens for it, whichever mode picked the
// adapters. A role's builder (ingest/ingest-role.ts, mcp/mcp-role.ts,
// dispatcher/dispatcher-role.ts) takes exactly its type, so every port it needs is there;
// nothing is optional. Standalone's main thread has the ingest and mcp ports at once; its
// backend thread, like `errata serve dispatcher`, the dispatcher's.
import type { SecretBox } from '../core/alerts/secret-box.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { Queue } from '../core/ports/queue.ts';
import type { UserStore } from '../core/ports/user-store.ts';
import type { HealthCheck } from './http.ts';

/** Authenticates DSN keys and upload tokens, publishes to the queue, keeps uploads. */
export interface IngestPorts {
  metadata: MetadataStore;
  queue: Queue;
  blobs: BlobStore;
}

/**
 * Reads every store; manages alert channels (their secrets sealed) and uploaded maps; signs
 * people in to the dashboard it serves (users).
 */
export interface McpPorts {
  metadata: MetadataStore;
  users: UserStore;
  events: EventStore;
  logs: LogStore;
  alerts: AlertStore;
  secrets: SecretBox;
  blobs: BlobStore;
}

/** Consumes the queue into the stores, symbolicates from the blobs, delivers alerts. */
export interface DispatcherPorts {
  queue: Queue;
  metadata: MetadataStore;
  /** For retention: expired sessions and codes. */
  users: UserStore;
  events: EventStore;
  logs: LogStore;
  alerts: AlertStore;
  secrets: SecretBox;
  blobs: BlobStore;
}

/** What a process does with the ports it was given, besides using them. */
export interface Opened {
  /** The dependencies /healthz asks, by name. */
  health: HealthCheck[];
  close(): Promise<void>;
}
