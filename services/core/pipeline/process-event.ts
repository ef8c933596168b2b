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
import { applyGroupingRules, NO_GROUPING_RULES, type ProjectGroupingRules } from '../grouping/rules/project-grouping-rules.ts';

interface ProcessedEvent {
  event: NormalizedEvent;
  grouping: Grouping;
  summary: EventSummary;
}

export function prepareEvent(raw: unknown, context: NormalizeContext): NormalizedEvent {
  return normalizeEvent(raw, context);
}

/**
 * `rules` are the project's own grouping rules; they apply after the built-in ones, so a
 * project's fingerprint rule overrides a built-in one, as in Sentry.
 */
export function groupEvent(event: NormalizedEvent, rules: ProjectGroupingRules = NO_GROUPING_RULES): ProcessedEvent {
  applyBuiltInFingerprintRules(event);
  applyInAppRules(event);
  addJavaScriptModules(event);
  const { title } = applyGroupingRules(event, rules);
  const summary = summarizeEvent(event);
  return { event, grouping: computeGrouping(event), summary: title ? { ...summary, title } : summary };
}
