// Fleet gauges for the admin /metrics: Macs by phase, VMs by phase, and warm VMs per Mac model,
// read from the operator's caches at scrape time (nothing to keep in step with the reconcilers).
import { Gauge, type Registry } from 'prom-client';
import { MINI_PHASES, VM_PHASES } from '../crds/index.ts';
import type { Informers } from './context.ts';

export function registerFleetMetrics(registry: Registry, informers: Informers): void {
  new Gauge({
    name: 'sandbay_minis',
    help: 'Mac minis by phase (a Mac being deleted counts in its phase until it is gone).',
    labelNames: ['phase'] as const,
    registers: [registry],
    collect() {
      const counts = zeroed([...MINI_PHASES, 'unknown']);
      for (const m of informers.minis.list()) {
        const phase = m.status?.phase ?? 'unknown';
        counts.set(phase, (counts.get(phase) ?? 0) + 1);
      }
      for (const [phase, n] of counts) this.set({ phase }, n);
    },
  });
  new Gauge({
    name: 'sandbay_vms',
    help: 'VM slots by phase (cloning, warm, occupied, stopped aside, down).',
    labelNames: ['phase'] as const,
    registers: [registry],
    collect() {
      const counts = zeroed([...VM_PHASES, 'unknown']);
      for (const vm of informers.vms.list()) {
        const phase = vm.status?.phase ?? 'unknown';
        counts.set(phase, (counts.get(phase) ?? 0) + 1);
      }
      for (const [phase, n] of counts) this.set({ phase }, n);
    },
  });
  new Gauge({
    name: 'sandbay_warm_vms',
    help: 'Warm VMs no sandbox has claimed, per Mac model: what the next creates boot from.',
    labelNames: ['model'] as const,
    registers: [registry],
    collect() {
      const models = new Map(informers.minis.list().map((m) => [m.metadata.name, m.spec.model]));
      const counts = zeroed([...new Set(models.values())]);
      for (const vm of informers.vms.list()) {
        const model = models.get(vm.spec.mini);
        if (model === undefined || vm.status?.phase !== 'warm' || vm.spec.sandbox) continue;
        counts.set(model, (counts.get(model) ?? 0) + 1);
      }
      for (const [model, n] of counts) this.set({ model }, n);
    },
  });
}

function zeroed(keys: readonly string[]): Map<string, number> {
  return new Map(keys.map((k) => [k, 0]));
}
