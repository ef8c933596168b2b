// The queries of the shipped Grafana dashboard (errata-dashboard.json), as Prometheus would
// receive them: Grafana's variables replaced by what they stand for with every namespace and project
// selected. Read by the dashboard's unit test and by the distributed suite, which runs each
// against a real Prometheus.
import { readFileSync } from 'node:fs';

export const DASHBOARD_FILE = new URL('./errata-dashboard.json', import.meta.url).pathname;

interface Panel {
  title: string;
  type: string;
  targets?: Array<{ expr: string }>;
}

export function dashboardQueries(rateInterval = '1m'): Array<{ panel: string; expr: string }> {
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: Panel[] };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      panel: panel.title,
      expr: target.expr.replaceAll('$__rate_interval', rateInterval).replaceAll('$namespace', '.*').replaceAll('$project', '.*'),
    })),
  );
}
