// The pure part of the dispatcher's event pipeline, in order: normalize every SDK variant
// (prepareEvent); then the dispatcher symbolicates JS frames with the maps it loads
// (core/sourcemaps/symbolicate.ts); then apply the built-in fingerprint rules, decide in-app
// frames, name JavaScript modules, group and summarize (groupEvent), so all of these see the
// original frames. What comes out is stored and recorded.
import type { NormalizedEvent } from '../event/event.ts';
import { addJavaScriptModules } from '../event/js-module.ts';
import { normalizeEvent, type NormalizeContext } from '../event/normalize-event.ts';
import { applyBuiltInFingerprintRules } from '../grouping/built-in-fingerprints.ts';
import { computeGrouping, type Grouping } from '../grouping/compute-grouping.ts';
import { summarizeEvent, type EventSummary } from '../grouping/event-summary.ts';
import { applyInAppRules } from '../grouping/in-app.ts';

interface ProcessedEvent {
  event: NormalizedEvent;
  grouping: Grouping;
  summary: EventSummary;
}

export function prepareEvent(raw: unknown, context: NormalizeContext): NormalizedEvent {
  return normalizeEvent(raw, context);
}

export function groupEvent(event: NormalizedEvent): ProcessedEvent {
  applyBuiltInFingerprintRules(event);
  applyInAppRules(event);
  addJavaScriptModules(event);
  return { event, grouping: computeGrouping(event), summary: summarizeEvent(event) };
}
