// A tag's value as Sentry's server-side grouping sees it: Sentry's event manager tags every
// event with its level, logger, environment and transaction before fingerprints are resolved, so
// `{{ tags.environment }}` and a `tags.environment:` rule work though no SDK sends such a tag.
import { ownValue } from '../event/coerce.ts';
import type { NormalizedEvent } from '../event/event.ts';

export function eventTag(event: NormalizedEvent, name: string): string | undefined {
  const sent = ownValue(event.tags, name);
  if (sent !== undefined) return sent;
  switch (name) {
    case 'level':
      return event.level;
    case 'logger':
      return event.logger;
    case 'environment':
      return event.environment;
    case 'transaction':
      return event.transaction;
    default:
      return undefined;
  }
}
