// The pure part of the dispatcher's event pipeline, in order: normalize every SDK variant,
// decide in-app frames, name JavaScript modules, (symbolicate, once source maps exist), then
// group and summarize. What comes out is stored and recorded by the dispatcher.
import type { NormalizedEvent } from '../event/event.ts';
import { addJavaScriptModules } from '../event/js-module.ts';
import { normalizeEvent, type NormalizeContext } from '../event/normalize-event.ts';
import { computeGrouping, type Grouping } from '../grouping/compute-grouping.ts';
import { summarizeEvent, type EventSummary } from '../grouping/event-summary.ts';
import { applyInAppRules } from '../grouping/in-app.ts';

export interface ProcessedEvent {
  event: NormalizedEvent;
  grouping: Grouping;
  summary: EventSummary;
}

export function processEvent(raw: unknown, context: NormalizeContext): ProcessedEvent {
  const event = normalizeEvent(raw, context);
  applyInAppRules(event);
  addJavaScriptModules(event);
  return { event, grouping: computeGrouping(event), summary: summarizeEvent(event) };
}
