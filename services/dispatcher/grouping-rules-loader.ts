// The project grouping rules a batch of events is grouped with (issue 19): read from the
// metadata store once per project per batch and parsed, so rules set through the API or the
// CLI apply from the next batch on, to new events only. Nothing else in the dispatcher caches
// project settings; one small query per project per batch keeps it that simple.
import type { TenancyStore } from '../core/ports/tenancy-store.ts';
import { RuleSyntaxError } from '../core/grouping/rules/rule-scanner.ts';
import { parseFingerprintRules } from '../core/grouping/rules/fingerprint-rules.ts';
import type { ProjectGroupingRules } from '../core/grouping/rules/project-grouping-rules.ts';
import { parseStackTraceRules } from '../core/grouping/rules/stack-trace-rules.ts';
import type { Logger } from '../runtime/logger.ts';

export type GroupingRulesFor = (projectId: number) => Promise<ProjectGroupingRules>;

/** A loader for one batch: each project's rules are read at most once. */
export function groupingRulesLoader(store: Pick<TenancyStore, 'getGroupingRules'>, logger: Logger): GroupingRulesFor {
  const loaded = new Map<number, Promise<ProjectGroupingRules>>();
  return (projectId) => {
    let rules = loaded.get(projectId);
    if (!rules) {
      rules = store.getGroupingRules(projectId).then((texts) => ({
        fingerprint: parseOrNone(() => parseFingerprintRules(texts.fingerprintRules), projectId, logger),
        stackTrace: parseOrNone(() => parseStackTraceRules(texts.stackTraceRules), projectId, logger),
      }));
      loaded.set(projectId, rules);
    }
    return rules;
  };
}

// Texts are checked when set, so this only happens if a later version reads a rule differently:
// the events still group (by default for that kind of rule) and the log says which project.
function parseOrNone<T>(parse: () => T[], projectId: number, logger: Logger): T[] {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof RuleSyntaxError)) throw error;
    logger.warn({ projectId, reason: error.message }, 'stored grouping rules do not parse; grouping without them');
    return [];
  }
}
