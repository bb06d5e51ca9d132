/** Reads a service process's GET /metrics (Prometheus text format) on its metrics port. */

export interface Scrape {
  status: number;
  contentType: string | null;
  text: string;
  /** The value of one sample, its labels given in full and in the order the service writes them; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

export async function scrapeMetrics(port: number): Promise<Scrape> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
    value(name, labels = {}) {
      const pairs = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
      const series = pairs.length > 0 ? `${name}{${pairs.join(',')}}` : name;
      const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    },
  };
}
