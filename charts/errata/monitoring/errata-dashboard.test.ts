// The shipped Grafana dashboard, without a server: every query parses (promtool's PromQL parser),
// reads only recording rules that errata-rules.yaml defines, and every errata_ metric that the
// dashboard or a rule names is one Errata exports. (The distributed suite runs each query against
// a real Prometheus scraping the real roles.)
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { prometheusBinaries } from '../../../test/support/prometheus-binaries.ts';
import { dashboardQueries, DASHBOARD_FILE } from './dashboard-queries.ts';

const run = promisify(execFile);
const RULES = new URL('./errata-rules.yaml', import.meta.url).pathname;
const ROOT = new URL('../../../', import.meta.url).pathname;
const rules = (
  parse(readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Array<{ record?: string; expr: string }> }> }
).groups.flatMap((g) => g.rules);

/** The `errata_` names the code declares (prom-client's `name: '...'`), plus the default process metrics under the prefix. */
function exportedNames(): Set<string> {
  const names = new Set(['errata_process_cpu_seconds_total', 'errata_process_resident_memory_bytes']);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.test.ts'))
        for (const m of readFileSync(path, 'utf8').matchAll(/name: '(errata_[a-z0-9_]+)'/g)) names.add(m[1]!);
    }
  };
  walk(join(ROOT, 'services'));
  walk(join(ROOT, 'operator'));
  return names;
}

/** A histogram's or counter's series names map back to the metric's declared name. */
const metricOf = (series: string) => series.replace(/_(bucket|sum|count)$/, '');

describe('the shipped Grafana dashboard', () => {
  const queries = dashboardQueries();

  it('has a query in every panel, each one PromQL that parses', async () => {
    expect(queries.length).toBeGreaterThanOrEqual(15);
    for (const { panel, expr } of queries) {
      const result = await run(prometheusBinaries().promtool, ['--experimental', 'promql', 'format', expr]).catch(
        (error: { stdout?: string; stderr?: string }) => ({ stdout: '', stderr: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
      );
      expect(result.stderr, `${panel}: ${expr}`).toBe('');
    }
  }, 120_000); // one promtool start per query, beside the other unit files on two cores

  it('reads recording rules that exist and metrics that Errata exports', () => {
    const recorded = new Set(rules.map((r) => r.record).filter(Boolean));
    const exported = exportedNames();
    const texts = [...queries.map((q) => q.expr), ...rules.map((r) => r.expr)];
    for (const text of texts) {
      for (const [name] of text.matchAll(/errata:[a-z0-9_:]+/g)) expect(recorded, `${name} in ${text}`).toContain(name);
      for (const [name] of text.matchAll(/\berrata_[a-z0-9_]+/g))
        expect(exported, `${name} in ${text}`).toContain(metricOf(name));
    }
    expect(readFileSync(DASHBOARD_FILE, 'utf8')).toContain('"uid": "${datasource}"');
  });
});
