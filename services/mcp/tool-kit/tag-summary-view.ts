// An issue's tag summary (counted over every event of the issue as they were recorded, with
// environment and release among the tags) split in two for get_issue_context: the values are
// text events wrote, so they go under untrustedData; the counts are Errata's own facts. The two
// lists line up by index, as activity and agentWrittenData.activity do.
import type { TagSummary } from '../../core/ports/issue-store.ts';

interface TagSummaryLimits {
  /** Tag keys shown besides environment and release. */
  keys: number;
  /** Values shown per key (environments and releases included). */
  values: number;
}

interface TagSummaryView {
  facts: {
    eventsPerEnvironment: number[];
    eventsPerRelease: number[];
    tagCounts: Array<{ events: number; counts: number[]; otherValuesEvents?: number }>;
    /** Cuts said as counts, each present only when something was left out. */
    leftOut: {
      /** Events in environments, and releases, beyond the commonest shown. */
      otherEnvironmentsEvents?: number;
      otherReleasesEvents?: number;
      /** Tag keys beyond the ones shown (a lower bound when the store was asked for no more). */
      tagKeys?: number;
    };
  };
  untrusted: {
    environments: string[];
    releases: string[];
    tags: Array<{ key: string; values: string[] }>;
  };
}

/**
 * How many keys to ask the store for. Environment and release are shown whatever their rank,
 * but keys carried by as many events tie with them and sort by name, so a few more than shown
 * could leave `release` out; the store reads every key of the issue to rank them anyway, so
 * asking for many costs a few more rows, not another scan.
 */
export const TAG_KEYS_READ = 100;

export function tagSummaryView(summary: TagSummary[], limits: TagSummaryLimits): TagSummaryView {
  const values = (key: string) => summary.find((s) => s.key === key)?.values.slice(0, limits.values) ?? [];
  const allOthers = summary.filter((s) => s.key !== 'environment' && s.key !== 'release');
  const others = allOthers.slice(0, limits.keys);
  const otherEvents = (key: string) => {
    const entry = summary.find((s) => s.key === key);
    return entry ? uncounted(entry.total, values(key)) : 0;
  };
  return {
    facts: {
      eventsPerEnvironment: values('environment').map((v) => v.count),
      eventsPerRelease: values('release').map((v) => v.count),
      tagCounts: others.map((s) => {
        const shown = s.values.slice(0, limits.values);
        const rest = uncounted(s.total, shown);
        return { events: s.total, counts: shown.map((v) => v.count), ...(rest > 0 && { otherValuesEvents: rest }) };
      }),
      leftOut: {
        ...(otherEvents('environment') > 0 && { otherEnvironmentsEvents: otherEvents('environment') }),
        ...(otherEvents('release') > 0 && { otherReleasesEvents: otherEvents('release') }),
        ...(allOthers.length > others.length && { tagKeys: allOthers.length - others.length }),
      },
    },
    untrusted: {
      environments: values('environment').map((v) => v.value),
      releases: values('release').map((v) => v.value),
      tags: others.map((s) => ({ key: s.key, values: s.values.slice(0, limits.values).map((v) => v.value) })),
    },
  };
}

/** The events carrying a key whose values are not among those shown (an event carries one value per key). */
function uncounted(total: number, shown: Array<{ count: number }>): number {
  return Math.max(0, total - shown.reduce((sum, v) => sum + v.count, 0));
}
