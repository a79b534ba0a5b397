import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastHistogram } from './fast-histogram.ts';

describe('FastHistogram', () => {
  it("scrapes exactly as prom-client's Histogram given the same observations", async () => {
    const buckets = [0.001, 0.01, 0.1, 1];
    const ours = new Registry();
    const theirs = new Registry();
    const fast = new FastHistogram('t_seconds', 'Help text.', buckets, ours);
    const reference = new Histogram({
      name: 't_seconds',
      help: 'Help text.',
      labelNames: ['route'],
      buckets,
      registers: [theirs],
    });
    const a = fast.series({ route: '/a' });
    const b = fast.series({ route: '/b "quoted"' });
    // On a bound, between bounds, above the last one (+Inf), zero.
    for (const v of [0.001, 0.005, 0.5, 3, 0]) {
      a.observe(v);
      reference.observe({ route: '/a' }, v);
    }
    b.observe(0.02);
    reference.observe({ route: '/b "quoted"' }, 0.02);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain('t_seconds_bucket{le="0.001",route="/a"} 2');

    ours.resetMetrics();
    reference.reset();
    reference.zero({ route: '/a' });
    reference.zero({ route: '/b "quoted"' });
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});
