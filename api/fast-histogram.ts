// A Prometheus histogram for the request path, registered in a prom-client registry and scraped
// like its own Histogram. Why not prom-client's: its `observe`, even through a `labels()` child,
// allocates a label object and a hash string and validates the labels on every call; the API
// observes every request. Here each series is fixed when it is first seen and an observation is a
// bucket search and three additions on plain numbers.
import type { Registry } from 'prom-client';

/** One line of a scrape, as prom-client's registry formats it. */
interface ScrapedValue {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/** One label set's counts; `observe` is all the per-request path calls. */
export class HistogramSeries {
  /** Per bucket (not cumulative), the last one for `+Inf`. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  readonly labels: Readonly<Record<string, string>>;
  readonly #bounds: readonly number[];

  constructor(labels: Readonly<Record<string, string>>, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

export class FastHistogram {
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  readonly #bounds: readonly number[];
  readonly #series: HistogramSeries[] = [];
  readonly name: string;
  readonly help: string;

  constructor(name: string, help: string, buckets: readonly number[], registry: Registry) {
    this.name = name;
    this.help = help;
    this.#bounds = [...buckets].sort((a, b) => a - b);
    // The registry asks only for `name`, `get()` and `reset()` (what it calls); its type names
    // prom-client's own four classes.
    registry.registerMetric(this as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** A new series for `labels`: the caller keeps it (a second call makes a second series). */
  series(labels: Record<string, string>): HistogramSeries {
    const series = new HistogramSeries(labels, this.#bounds);
    this.#series.push(series);
    return series;
  }

  /** The same shape as prom-client's Histogram: cumulative `_bucket` with `le`, `_sum`, `_count`. */
  async get(): Promise<{
    name: string;
    help: string;
    type: 'histogram';
    values: ScrapedValue[];
    aggregator: 'sum';
  }> {
    const values: ScrapedValue[] = [];
    for (const s of this.#series) {
      let acc = 0;
      for (let i = 0; i <= this.#bounds.length; i++) {
        acc += s.counts[i]!;
        const le = i < this.#bounds.length ? this.#bounds[i]! : '+Inf';
        values.push({ labels: { le, ...s.labels }, value: acc, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    for (const s of this.#series) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
