// The synthetic test event the install guides send: a message with this tag, so
// verify_installation can tell "the SDK can reach Errata" from "the application had an error".
import type { NormalizedEvent } from '../event/event.ts';

export const TEST_EVENT_TAG = 'errata.test_event';
export const TEST_EVENT_MESSAGE = 'Errata test event: the SDK is installed and can reach Errata';

export function isTestEvent(event: NormalizedEvent): boolean {
  return event.tags[TEST_EVENT_TAG] === 'true';
}
