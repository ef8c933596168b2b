// Reads a server's own Prometheus metrics the way the suites check them: the sum of every
// series of one metric whose labels include the given ones (0 when none has been recorded).
export async function metricTotal(server: { url: string }, name: string, labels: Record<string, string> = {}): Promise<number> {
  return metricTotalIn(await metricsText(server), name, labels);
}

/** One scrape of the server's /metrics, for figures that must agree with each other. */
export async function metricsText(server: { url: string }): Promise<string> {
  return (await fetch(`${server.url}/metrics`)).text();
}

/** metricTotal over a scrape already taken. */
export function metricTotalIn(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`)))
      total += Number(line.split(' ').pop());
  }
  return total;
}
