// An event as a batch hands it to an EventStore (NewEvent), for store tests about ids, issues and
// times rather than an event's contents: `fields` replace the defaults, and the payload (by
// default only the event's id) is encoded as `store` keeps it.
import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent } from '../../services/core/ports/event-store.ts';

type Required = Pick<NewEvent, 'projectId' | 'issueId' | 'timestamp'>;

export function newEvent(
  store: Pick<EventStore, 'encodePayload'>,
  fields: Required & Partial<NewEvent>,
  payload?: object,
): NewEvent {
  const eventId = fields.eventId ?? randomUUID().replace(/-/g, '');
  return {
    eventId,
    receivedAt: fields.timestamp + 1,
    level: 'error',
    title: 'Error',
    culprit: 'run(app.js)',
    platform: 'node',
    environment: null,
    release: null,
    traceId: null,
    userKey: null,
    encodedPayload: store.encodePayload(JSON.stringify(payload ?? { event_id: eventId })),
    ...fields,
  };
}
