// What a page inside an organization is handed: the request, who is signed in (and as which
// actor the capabilities judge), the organization its address names, and the few things every
// page does (refuse what the role may not do, read a posted form with its CSRF checks, send a
// page, redirect). Routes (routes/*.ts) are lists of OrganizationRoute, matched in
// organization-routes.ts against the path after /organizations/{org}/.
import type { AgentCallLimiter } from '../core/auth/agent-rate-limit.ts';
import type Koa from 'koa';
import type { JSX } from 'preact';
import type { AlertManagementDeps } from '../core/alerts/alert-management.ts';
import { can, type Actor, type Capability } from '../core/auth/capabilities.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { EventStore } from '../core/ports/event-store.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { MetadataStore, Organization } from '../core/ports/metadata-store.ts';
import type { User } from '../core/ports/user-store.ts';
import type { Logger } from '../runtime/logger.ts';
import type { AssetSet } from './assets/asset-store.ts';
import type { Signed } from './auth/current-session.ts';
import type { SignInDeps } from './sign-in-routes.ts';

/** The stores and settings the organization's pages read and change, the same ones the MCP tools and the management API use. */
export interface OrganizationDeps extends SignInDeps, AlertManagementDeps {
  metadata: MetadataStore;
  events: EventStore;
  logs: LogStore;
  /** Uploaded source files and maps: a project's Source maps page deletes them. */
  blobs: BlobStore;
  /** The widest log search window, in minutes (the retention period). */
  maxLogWindowMinutes: number;
  /** This process's count of MCP messages per token this minute, as whoami reports it. */
  agentCalls: AgentCallLimiter;
  /** ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE: a project's limit when it sets none (its Keys tab shows it). */
  defaultEventsPerMinute: number;
  /**
   * Called after a page changed DSN keys or a rate limit, so ingest's key cache forgets them at
   * once (standalone, where ingest shares the process); elsewhere ingest sees the change within
   * its cache's refresh time.
   */
  keysChanged?: (publicKey?: string) => void;
  /** The server's log: a project's delete is written there with who deleted it. */
  logger: Logger;
  now?: () => number;
}

export interface OrganizationPage {
  ctx: Koa.Context;
  assets: AssetSet;
  deps: OrganizationDeps;
  signed: Signed;
  /** The signed-in person (their time zone and theme shape every page). */
  viewer: User;
  /** What the capabilities judge: the person's human role. */
  actor: Actor;
  organization: Organization;
  /** The CSRF token every form of this session carries (hidden field `csrf`, or the X-Errata-CSRF header htmx sends). */
  csrf: string;
  /** True for an htmx request, which gets the part of the page it swaps, not the whole page. */
  partial: boolean;
  /** /organizations/{org}/ followed by the segments, each URL-encoded. */
  href(...segments: string[]): string;
  /** Throws ForbiddenError (a 403 page naming the role needed) unless the person's role has the capability. */
  require(capability: Capability): void;
  can(capability: Capability): boolean;
  /** The posted form if it came from our own pages; otherwise the 403 page is sent and this answers undefined. */
  form(): Promise<URLSearchParams | undefined>;
  send(status: number, element: JSX.Element): void;
  /** 303 to a path of ours (after a form post, so a reload does not post again). */
  seeOther(path: string): void;
  now(): Date;
}

export interface OrganizationRoute {
  /** GET also answers HEAD. */
  method: 'GET' | 'POST';
  /** Matched against the path after /organizations/{org}/ (no leading slash), anchored, e.g. /^issues\/([^/]+)$/; its groups are `params`, decoded. */
  path: RegExp;
  handle(page: OrganizationPage, params: string[]): Promise<void>;
}

/** Which roles have a capability, for a refusal that says who could do it. */
export function rolesWith(capability: Capability): string {
  const roles = (['owner', 'admin', 'member'] as const).filter((role) => can({ kind: 'user', role }, capability));
  return roles.join(' or ');
}
