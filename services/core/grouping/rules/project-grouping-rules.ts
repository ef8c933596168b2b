// A project's grouping rules: the two texts as the user wrote them (kept verbatim, so they
// read their own text back) and their parsed form, which the dispatcher hands to grouping.
// Parsing happens when the rules are set (so a bad rule is refused then) and again when the
// dispatcher loads them.
import type { NormalizedEvent } from '../../event/event.ts';
import type { GroupingRuleTexts } from '../../ports/tenancy-store.ts';
import { resolveEntry } from '../fingerprint.ts';
import { builtInStackTraceRules } from '../native-stack-trace-rules.ts';
import { applyFingerprintRules } from './apply-fingerprint-rules.ts';
import { applyStackTraceRules } from './apply-stack-trace-rules.ts';
import { parseFingerprintRules, type FingerprintRule } from './fingerprint-rules.ts';
import { parseStackTraceRules, type StackTraceRule } from './stack-trace-rules.ts';

export interface ProjectGroupingRules {
  fingerprint: FingerprintRule[];
  stackTrace: StackTraceRule[];
}

export const NO_GROUPING_RULES: ProjectGroupingRules = { fingerprint: [], stackTrace: [] };

/** Throws RuleSyntaxError (a UserInputError) naming the first bad line of either text. */
export function parseGroupingRules(texts: GroupingRuleTexts): ProjectGroupingRules {
  return { fingerprint: parseFingerprintRules(texts.fingerprintRules), stackTrace: parseStackTraceRules(texts.stackTraceRules) };
}

/**
 * Stack-trace rules first, Sentry's built-in native ones and then the project's in one list as
 * Sentry runs them (they decide in_app, which fingerprint rules may match on), then the first
 * matching fingerprint rule; returns the title that rule sets, if any.
 */
export function applyGroupingRules(event: NormalizedEvent, rules: ProjectGroupingRules): { title?: string } {
  applyStackTraceRules(event, [...builtInStackTraceRules(event), ...rules.stackTrace]);
  const rule = applyFingerprintRules(event, rules.fingerprint);
  return rule?.title ? { title: expandTitle(rule.title, event) } : {};
}

/**
 * A rule's title with each `{{ variable }}` filled as in a fingerprint (Sentry's
 * expand_title_template): `title="Error from Logger {{ logger }}"` names the logger.
 */
function expandTitle(template: string, event: NormalizedEvent): string {
  return template.replace(/\{\{\s*\S+\s*\}\}/g, (variable) => resolveEntry(variable, event));
}
