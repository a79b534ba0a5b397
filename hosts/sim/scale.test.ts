// The sim must carry the operator's scale target (1,000 Macs, 2,000 VMs) cheaply.
import { describe, expect, it } from 'vitest';
import { IMAGES } from '../../crds/index.ts';
import { createSimDriver } from './index.ts';

describe('sim at fleet scale', () => {
  it('runs 2,000 VMs on 1,000 Macs in a few MiB of heap', async () => {
    const before = process.memoryUsage().heapUsed;
    const sim = createSimDriver({
      timings: { cloneMs: 2, bootMs: 5, resizeMs: 1, stopMs: 1, deleteMs: 1, exportMs: 1, importMs: 1 },
    });
    const hosts = Array.from({ length: 1000 }, (_, i) =>
      sim.host({ name: `mini-${i}`, address: `10.0.${i >> 8}.${i & 255}`, model: 'm4' }),
    );
    await Promise.all(
      hosts.flatMap((host, i) =>
        [0, 1].map(async (slot) => {
          const name = `vm-${i}-${slot}`;
          await host.createVm({ name, image: IMAGES.split.name, cpu: 5, memoryGiB: 8 });
          await host.startVm(name);
        }),
      ),
    );
    const running = (await Promise.all(hosts.map((h) => h.listVms())))
      .flat()
      .filter((v) => v.state === 'running');
    expect(running).toHaveLength(2000);
    // Generous bound (no forced GC here): measured ~2 MiB with --expose-gc.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 2 ** 20);
    await sim.close();
  });
});
