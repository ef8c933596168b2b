// The shipped rules with promtool (built from the Go module proxy by test/setup/provision.sh):
// `check rules` finds no error, `test rules` passes errata-rules.test.yaml, and that file makes
// every alert both fire and stay quiet; every alert has a severity, a `for`, a summary and a
// runbook_url whose anchor is a heading of docs/monitoring.md.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { prometheusBinaries } from '../../../test/support/prometheus-binaries.ts';

const run = promisify(execFile);
const here = (file: string) => new URL(file, import.meta.url).pathname;
const RULES = here('./errata-rules.yaml');
const TESTS = here('./errata-rules.test.yaml');
const DOCS = here('../../../docs/monitoring.md');

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const groups = (parse(readFileSync(RULES, 'utf8')) as { groups: Array<{ rules: Array<Partial<AlertRule>> }> }).groups;
const alerts = groups.flatMap((g) => g.rules).filter((r): r is AlertRule => typeof r.alert === 'string');

/** promtool's exit status and output; a failure is returned, not thrown, so its text is in the assertion. */
async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(prometheusBinaries().promtool, args, { cwd: here('.') });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('the shipped Prometheus rules', () => {
  it('pass promtool check rules', async () => {
    const result = await promtool('check', 'rules', RULES);
    expect(result.output).toContain('SUCCESS');
    expect(result.code, result.output).toBe(0);
  });

  it('pass their promtool unit tests', async () => {
    const result = await promtool('test', 'rules', TESTS);
    expect(result.code, result.output).toBe(0);
  });

  it('each alert is tested firing and not firing', () => {
    const cases = (
      parse(readFileSync(TESTS, 'utf8')) as {
        tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
      }
    ).tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const { alert } of alerts) {
      expect(
        cases.some((c) => c.alertname === alert && c.exp_alerts.length > 0),
        `${alert} firing`,
      ).toBe(true);
      expect(
        cases.some((c) => c.alertname === alert && c.exp_alerts.length === 0),
        `${alert} quiet`,
      ).toBe(true);
    }
  });

  it('each alert has a severity, a for, a summary and a runbook in docs/monitoring.md', () => {
    const anchors = new Set(
      [...readFileSync(DOCS, 'utf8').matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    expect(alerts.length).toBeGreaterThanOrEqual(14);
    for (const rule of alerts) {
      expect(['critical', 'warning', 'info'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(rule.annotations?.summary, rule.alert).toBeTruthy();
      const url = rule.annotations?.runbook_url ?? '';
      expect(url, rule.alert).toMatch(/^https:\/\/github\.com\/errata-dev\/errata\/blob\/main\/docs\/monitoring\.md#/);
      expect(anchors, `${rule.alert}: docs/monitoring.md has no heading for ${url}`).toContain(url.split('#')[1]);
    }
  });
});
