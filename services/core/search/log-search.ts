// The search syntax for logs (the Logs page): `level:`, `trace:`, `environment:`, free text in
// the message, and every other key an attribute, `key:value` for equality or `key:>250` (also
// `<`, `>=`, `<=`) to compare a number. It makes the part of a LogQuery a search sets; the time
// window and the project are given beside it. search_logs takes the same filters as arguments.
import { setOwn } from '../event/coerce.ts';
import { LOG_LEVELS, type LogLevel } from '../logs/log-record.ts';
import type { AttributeComparison, ComparisonOperator, LogFilter } from '../ports/log-store.ts';
import { parseSearch, SearchSyntaxError, type FilterTerm, type SearchSpec } from './search-syntax.ts';

const LOG_SEARCH: SearchSpec = {
  keys: {
    level: { values: [...LOG_LEVELS, 'warning'], negatable: false },
    trace: { aliases: ['traceId', 'trace_id', 'trace.id'], negatable: false },
    environment: { aliases: ['env'], negatable: false },
  },
  // Attribute names are the SDK's own (`user.id`, `http.status_code`); the stores match them exactly.
  otherKeys: { negatable: false },
};

/**
 * What search_logs takes as arguments, so that a search the Logs page runs, copied as a
 * search_logs call, is one the tool runs too (it refused a 21st attribute, or 201 characters of text).
 */
export const LOG_SEARCH_LIMITS = { filters: 20, text: 200, key: 200, value: 500, environment: 200 } as const;

function tooMany(token: string, what: string): SearchSyntaxError {
  return new SearchSyntaxError(token.slice(0, 60), `a search takes at most ${LOG_SEARCH_LIMITS.filters} ${what}`);
}

/** The part of a LogQuery a search sets. */
export type LogSearch = Pick<LogFilter, 'levels' | 'text' | 'traceId' | 'environment' | 'attributes' | 'comparisons'>;

const TRACE_ID = /^[0-9a-f]{32}$/i;
// `>=` before `>`: the longer operator wins.
const COMPARISON = /^(>=|<=|>|<)(.*)$/;
/**
 * A decimal number as JSON writes one, optionally with an exponent: what a comparison takes,
 * and what the stores' SQL tests an attribute's text against before comparing it as a number.
 */
export const DECIMAL_NUMBER = '^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$';
const NUMBER = new RegExp(DECIMAL_NUMBER);

/** Whether a filter tests records' text or attributes, which no index or per-minute count answers. */
export function searchesContent(filter: Pick<LogFilter, 'text' | 'attributes' | 'comparisons'>): boolean {
  return Boolean(filter.text) || Object.keys(filter.attributes ?? {}).length > 0 || (filter.comparisons ?? []).length > 0;
}

/** The filter `query` sets; throws SearchSyntaxError naming the token and saying what to write instead. */
export function logSearch(query: string): LogSearch {
  const terms = parseSearch(query, LOG_SEARCH);
  const filters = terms.filter((t): t is FilterTerm => t.kind === 'filter');
  const one = (key: string) => {
    const [first, second] = filters.filter((t) => t.key === key);
    if (second) {
      throw new SearchSyntaxError(second.token, `${key}: is given twice (also ${first!.token}); a log search takes one`);
    }
    return first;
  };
  const level = one('level');
  const trace = one('trace');
  if (trace && !TRACE_ID.test(trace.value)) {
    throw new SearchSyntaxError(trace.token, 'a trace id is 32 hex characters, e.g. trace:4bf92f3577b34da6a3ce929d0e0e4736');
  }
  const environmentTerm = one('environment');
  if (environmentTerm && environmentTerm.value.length > LOG_SEARCH_LIMITS.environment) {
    throw new SearchSyntaxError(
      environmentTerm.token.slice(0, 60),
      `an environment is at most ${LOG_SEARCH_LIMITS.environment} characters`,
    );
  }
  const environment = environmentTerm?.value;
  const attributes: Record<string, string> = {};
  const comparisons: AttributeComparison[] = [];
  for (const term of filters) {
    if (Object.hasOwn(LOG_SEARCH.keys, term.key)) continue;
    if (term.key.length > LOG_SEARCH_LIMITS.key || term.value.length > LOG_SEARCH_LIMITS.value) {
      throw new SearchSyntaxError(
        term.token.slice(0, 60),
        `an attribute name is at most ${LOG_SEARCH_LIMITS.key} characters, its value ${LOG_SEARCH_LIMITS.value}`,
      );
    }
    // A quoted value is the text itself: `op:">"` matches the attribute ">".
    const quoted = term.token.slice(term.token.indexOf(':') + 1).startsWith('"');
    const compared = quoted ? null : COMPARISON.exec(term.value);
    if (compared) {
      const [, operator, number] = compared;
      if (!NUMBER.test(number!)) {
        throw new SearchSyntaxError(
          term.token,
          `${operator} compares numbers: write ${term.key}:${operator}250 (for the text itself, quote it: ${term.key}:"${term.value}")`,
        );
      }
      if (comparisons.length === LOG_SEARCH_LIMITS.filters) throw tooMany(term.token, 'comparisons');
      comparisons.push({ key: term.key, operator: operator as ComparisonOperator, value: Number(number) });
      continue;
    }
    if (Object.hasOwn(attributes, term.key)) {
      throw new SearchSyntaxError(term.token, `${term.key}: is given twice; an attribute has one value (compare with > or <)`);
    }
    if (Object.keys(attributes).length === LOG_SEARCH_LIMITS.filters) throw tooMany(term.token, 'attribute filters');
    setOwn(attributes, term.key, term.value);
  }
  const texts = terms.filter((t) => t.kind === 'text');
  const text = texts.map((t) => t.value).join(' ');
  if (text.length > LOG_SEARCH_LIMITS.text) {
    throw new SearchSyntaxError(
      texts[0]!.token.slice(0, 60),
      `the text to find is ${text.length} characters; keep it to ${LOG_SEARCH_LIMITS.text} (filter by attributes for the rest)`,
    );
  }
  const levelValue = level && ((level.value === 'warning' ? 'warn' : level.value) as LogLevel);
  return {
    ...(levelValue ? { levels: [levelValue] } : {}),
    ...(text ? { text } : {}),
    ...(trace ? { traceId: trace.value.toLowerCase() } : {}),
    ...(environment !== undefined ? { environment } : {}),
    ...(Object.keys(attributes).length ? { attributes } : {}),
    ...(comparisons.length ? { comparisons } : {}),
  };
}
