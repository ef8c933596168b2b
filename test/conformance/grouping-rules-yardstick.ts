// A yardstick run by hand, never by the tests: the inputs of Sentry's grouping test corpus that
// carry per-project grouping rules, grouped with those rules through Errata's own parser and
// pipeline, against the hashes Sentry computes for them. The corpus (its expected.json and
// inputs/) lives outside this repository; pass its directory:
//
//   npm run conformance:grouping-rules -- /path/to/sentry-grouping
//
// A measuring script that groups the corpus without rules cannot match these inputs; this one
// gives them the rules a Sentry project would have. Fingerprint rules come in the corpus as
// structured matchers and are written back as the text a user would type; stack-trace rules
// come as text, except where the corpus keeps them compiled (base64 of zlib of msgpack), which
// this leaves out and says so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupEvent, prepareEvent } from '../../services/core/pipeline/process-event.ts';
import { parseGroupingRules } from '../../services/core/grouping/rules/project-grouping-rules.ts';

interface CorpusCase {
  input: string;
  hashes?: string[];
  variants?: Array<{ name: string; hash: string | null }>;
}

interface RuleCarrying {
  _fingerprinting_rules?: Array<{
    matchers: Array<[string, string]>;
    fingerprint: string[];
    attributes?: Record<string, string>;
  }>;
  _grouping?: { enhancements?: string };
  grouping_config?: { enhancements?: string };
  event_id?: string;
}

const corpus = process.argv[2];
if (!corpus) {
  console.error('usage: npm run conformance:grouping-rules -- <directory holding the corpus expected.json and inputs/>');
  process.exit(2);
}
const expected = JSON.parse(readFileSync(join(corpus, 'expected.json'), 'utf8')) as { cases: Record<string, CorpusCase> };

/** A corpus fingerprint rule as the line a user writes: `type:X -> a b`, quoting what needs it. */
function fingerprintLine(rule: NonNullable<RuleCarrying['_fingerprinting_rules']>[number]): string {
  const quote = (value: string) => (/[\s"#,]/.test(value) ? JSON.stringify(value) : value);
  const matchers = rule.matchers.map(([key, value]) => `${key}:${quote(value)}`).join(' ');
  const attributes = Object.entries(rule.attributes ?? {}).map(([key, value]) => ` ${key}=${JSON.stringify(value)}`);
  return `${matchers} -> ${rule.fingerprint.map(quote).join(', ')}${attributes.join('')}`;
}

/** Compiled enhancements start with zlib's header in base64 (`eJ`); text rules never do. */
const isCompiled = (text: string) => /^eJ[\w-]+$/.test(text.trim());

let carrying = 0;
let matched = 0;
const skipped: string[] = [];
for (const [name, expectation] of Object.entries(expected.cases)) {
  const raw = JSON.parse(readFileSync(join(corpus, expectation.input), 'utf8')) as RuleCarrying;
  const enhancements = raw._grouping?.enhancements ?? raw.grouping_config?.enhancements ?? '';
  const fingerprintRules = (raw._fingerprinting_rules ?? []).map(fingerprintLine).join('\n');
  if (!enhancements && !fingerprintRules) continue;
  carrying++;
  if (isCompiled(enhancements)) {
    skipped.push(name);
    console.log(`  SKIP  ${name}: its stack-trace rules are kept compiled, not as text`);
    continue;
  }
  const rules = parseGroupingRules({ fingerprintRules, stackTraceRules: enhancements });
  const eventId =
    typeof raw.event_id === 'string' && /^[0-9a-f]{32}$/i.test(raw.event_id) ? raw.event_id.toLowerCase() : '0'.repeat(32);
  const { grouping } = groupEvent(prepareEvent(raw, { eventId, receivedAt: Math.floor(Date.now() / 1000) }), rules);
  const primary = (expectation.variants ?? []).find((variant) => variant.hash)?.hash;
  const same = grouping.hashes[0] === primary;
  if (same) matched++;
  console.log(`  ${same ? 'SAME' : 'DIFF'}  ${name}${same ? '' : `: Errata ${grouping.hashes[0]}, Sentry ${primary}`}`);
}
console.log(
  `inputs carrying project rules: ${carrying}; given their rules, ${matched} hash as in Sentry` +
    (skipped.length ? ` (${skipped.length} left out: rules kept compiled)` : ''),
);
