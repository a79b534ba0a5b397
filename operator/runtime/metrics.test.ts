import { describe, expect, it } from 'vitest';
import { waitFor } from '../../test/support/wait.ts';
import { FakeClock } from './clock.ts';
import { ControllerMetrics } from './metrics.ts';
import { WorkQueue } from './workqueue.ts';

async function value(metrics: ControllerMetrics, name: string, labels: Record<string, string>) {
  const metric = await metrics.registry.getSingleMetric(name)!.get();
  const match = metric.values.find((v) =>
    Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
  );
  return match?.value;
}

describe('ControllerMetrics', () => {
  it("counts a queue's adds, runs by result, errors, retries and times under controller-runtime's names", async () => {
    const metrics = new ControllerMetrics();
    let failedOnce = false;
    const q = new WorkQueue({
      name: 'sandbox',
      clock: new FakeClock(),
      observer: metrics.observer('sandbox'),
      process: async (key) => {
        if (key === 'waits') return { requeueAfterMs: 60_000 };
        if (key === 'flaky' && !failedOnce) {
          failedOnce = true;
          throw new Error('host busy');
        }
        return undefined;
      },
    });
    metrics.track(q);
    for (const key of ['ok', 'waits', 'flaky', 'ok']) q.add(key);
    const c = (result: string) =>
      value(metrics, 'controller_runtime_reconcile_total', { controller: 'sandbox', result });
    await waitFor(async () => (await c('success')) === 2, 'the retried key to succeed');
    expect(await c('requeue_after')).toBe(1);
    expect(await c('error')).toBe(1);
    expect(await value(metrics, 'controller_runtime_reconcile_errors_total', { controller: 'sandbox' })).toBe(
      1,
    );
    expect(await value(metrics, 'workqueue_retries_total', { name: 'sandbox' })).toBe(1);
    // Three distinct adds ('ok' twice while waiting is one), then the retry's add.
    expect(await value(metrics, 'workqueue_adds_total', { name: 'sandbox' })).toBe(4);
    expect(await value(metrics, 'workqueue_depth', { name: 'sandbox' })).toBe(0);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/controller_runtime_reconcile_time_seconds_count\{controller="sandbox"\} 4/);
    expect(text).toMatch(/workqueue_work_duration_seconds_count\{name="sandbox"\} 4/);
    expect(text).toMatch(/workqueue_queue_duration_seconds_count\{name="sandbox"\} 4/);
    await q.shutdown();
  });

  it('reports the depth of a queue that holds keys', async () => {
    const metrics = new ControllerMetrics();
    const q = new WorkQueue({ name: 'pool', paused: true, process: async () => undefined });
    metrics.track(q);
    q.add('a');
    q.add('b');
    expect(await value(metrics, 'workqueue_depth', { name: 'pool' })).toBe(2);
    await q.shutdown();
  });
});
