// Errata's alerting and recording rules, from the one copy in the chart
// (charts/errata/monitoring/errata-rules.yaml), for the PrometheusRule the operator makes. From
// source it is read there; the bundle (dist/operator.mjs) reads the copy `npm run build` puts
// beside it in dist/monitoring/, which is what the image carries.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const RULES_FILE = fileURLToPath(
  import.meta.url.endsWith('.ts')
    ? new URL('../../charts/errata/monitoring/errata-rules.yaml', import.meta.url)
    : new URL('./monitoring/errata-rules.yaml', import.meta.url),
);

interface RuleGroups {
  groups: Array<{ name: string; rules: Array<Record<string, unknown>> }>;
}

let cached: RuleGroups | undefined;

/** The rule groups, parsed once per process (a PrometheusRule's spec is exactly this shape). */
export function monitoringRules(): RuleGroups {
  cached ??= parse(readFileSync(RULES_FILE, 'utf8')) as RuleGroups;
  return cached;
}
