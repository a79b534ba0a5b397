// The Host lifecycle contract of hosts/driver.ts, as one suite every driver runs (linux, sim, tart):
//
//   runDriverSuite({ name: 'sim', newDriver: () => createSimDriver({ timings: { bootMs: 0 } }), hostRef });
//
// Each test starts from a host without VMs and removes the VMs it made. Files inside a VM are
// written and read through its guest (putFile/getFile), the one way into a VM every driver offers.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IMAGES, MAC_PROFILES } from '../crds/mac-models.ts';
import { createHash } from 'node:crypto';
import { DriverError, type Driver, type Host, type HostRef, type VmCreateSpec } from './driver.ts';

export interface DriverSuiteOptions {
  /** Shown in the test names. */
  name: string;
  /** A fresh driver; the suite closes it at the end. */
  newDriver: () => Driver | Promise<Driver>;
  /** The host the suite works on (or how to find it once set up); it must start without VMs. */
  hostRef: HostRef | (() => HostRef);
  /**
   * Parts the driver does not offer yet: the suite then checks that it says so (`missing_tool`)
   * instead of the behaviour. Say so in the driver's docs too.
   */
  notImplemented?: 'delta'[];
  /** Each test's limit (default: the suite-wide 60 s), for drivers whose VMs take long to boot and stop. */
  testTimeoutMs?: number;
}

const SPLIT = IMAGES.split.name;
const WHOLE = IMAGES.whole.name;

/**
 * Calls on the host and its guests still awaited, for a test that times out: vitest names only the
 * test, and a hang in a suite of a dozen steps is otherwise found by guesswork. (Seen once in a soak
 * run: the linux driver's stop-and-boot test timed out at 60 s, with no step named.)
 */
class PendingCalls {
  readonly #calls = new Map<number, { what: string; since: number }>();
  #seq = 0;

  /** `target` with each method call that returns a promise recorded until it settles. */
  trace<T extends object>(target: T, label: string): T {
    return new Proxy(target, {
      get: (t, prop) => {
        const value = Reflect.get(t, prop, t) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const out = (value as (...a: unknown[]) => unknown).apply(t, args);
          const what = `${label}.${String(prop)}(${args.filter((a) => typeof a === 'string').join(', ')})`;
          if (prop === 'guest' && out && typeof out === 'object') return this.trace(out, what);
          return out instanceof Promise ? this.track(what, out) : out;
        };
      },
    });
  }

  /** `promise`, recorded as `what` until it settles. */
  track<T>(what: string, promise: Promise<T>): Promise<T> {
    const id = ++this.#seq;
    this.#calls.set(id, { what, since: Date.now() });
    const done = () => this.#calls.delete(id);
    promise.then(done, done);
    return promise;
  }

  /** One line per call still awaited, with how long. */
  describe(): string {
    const now = Date.now();
    return [...this.#calls.values()].map((c) => `${c.what}: awaited for ${now - c.since} ms`).join('\n');
  }
}

const pending = new PendingCalls();

/** Reads a guest stream to its end and until it has closed (releasing whatever it held in the VM). */
function readAll(r: Readable): Promise<string> {
  return pending.track(
    'reading a guest stream to its close',
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(Buffer.from(c)));
      r.on('error', reject);
      r.on('close', () => resolve(Buffer.concat(chunks).toString()));
    }),
  );
}

export function runDriverSuite(o: DriverSuiteOptions): void {
  const limit = o.testTimeoutMs === undefined ? {} : { timeout: o.testTimeoutMs };
  describe(`${o.name} driver: Host lifecycle contract`, limit, () => {
    let driver: Driver;
    let host: Host;
    let tmp: string;
    const vm = (name: string, extra: Partial<VmCreateSpec> = {}): VmCreateSpec => ({
      name,
      image: SPLIT,
      cpu: 2,
      memoryGiB: 4,
      ...extra,
    });

    beforeAll(async () => {
      tmp = mkdtempSync(join(tmpdir(), `sandbay-suite-${o.name}-`));
      driver = await o.newDriver();
      host = pending.trace(driver.host(typeof o.hostRef === 'function' ? o.hostRef() : o.hostRef), 'host');
      expect(await host.listVms()).toEqual([]);
    });

    afterEach(async (ctx) => {
      const stuck = pending.describe();
      if (ctx.task.result?.state === 'fail' && stuck !== '') {
        process.stderr.write(`${o.name} driver suite, "${ctx.task.name}": still awaited\n${stuck}\n`);
      }
      for (const v of await host.listVms()) await host.deleteVm(v.name);
    });

    afterAll(async () => {
      await driver?.close();
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    });

    it('reports its Mac model: cores, memory, images with their disk sizes, and its VM limit', async () => {
      const info = await host.info();
      const profile = MAC_PROFILES[info.model];
      expect(info).toMatchObject({
        cores: profile.cores,
        memoryGiB: profile.memoryGiB,
        diskGiB: profile.diskGiB,
      });
      expect(info.images).toEqual(
        expect.arrayContaining([
          { name: SPLIT, diskGiB: IMAGES.split.diskGiB },
          { name: WHOLE, diskGiB: IMAGES.whole.diskGiB },
        ]),
      );
      expect(info.maxVms).toBeGreaterThanOrEqual(1);
    });

    it('clones a VM stopped, with the size asked for, and lists it', async () => {
      const info = await host.createVm(vm('v1', { cpu: 3, memoryGiB: 5 }));
      expect(info).toMatchObject({ name: 'v1', image: SPLIT, cpu: 3, memoryGiB: 5, state: 'stopped' });
      expect(await host.listVms()).toEqual([info]);
    });

    it('boots a VM to running with an address; starting it again changes nothing', async () => {
      await host.createVm(vm('v1'));
      const running = await host.startVm('v1');
      expect(running).toMatchObject({ name: 'v1', state: 'running' });
      expect(running.ip).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(await host.startVm('v1')).toEqual(running);
      expect(await host.listVms()).toEqual([running]);
    });

    it('boots two VMs at once, each listed meanwhile without failing the other', async () => {
      await host.createVm(vm('v1'));
      await host.createVm(vm('v2'));
      // Each start looks at the host's other VMs (room) while the other is half booted.
      const listing = (async () => {
        for (let i = 0; i < 20; i++) await host.listVms();
      })();
      const [a, b] = await Promise.all([host.startVm('v1'), host.startVm('v2'), listing]);
      expect([a.state, b.state]).toEqual(['running', 'running']);
      expect((await host.listVms()).map((v) => [v.name, v.state])).toEqual([
        ['v1', 'running'],
        ['v2', 'running'],
      ]);
    });

    it('stops a VM keeping its disk, and boots it again', async () => {
      await host.createVm(vm('v1'));
      await host.startVm('v1');
      await host.guest('v1').putFile('kept.txt', Buffer.from('still here'));
      await host.stopVm('v1');
      expect((await host.listVms())[0]).toMatchObject({ name: 'v1', state: 'stopped' });
      await host.startVm('v1');
      expect(await readAll(await host.guest('v1').getFile('kept.txt'))).toBe('still here');
    });

    it('resizes a stopped VM and refuses to resize a running one', async () => {
      await host.createVm(vm('v1'));
      await host.resizeVm('v1', { cpu: 4, memoryGiB: 6 });
      expect((await host.listVms())[0]).toMatchObject({ cpu: 4, memoryGiB: 6 });
      await host.startVm('v1');
      await expect(host.resizeVm('v1', { cpu: 2, memoryGiB: 4 })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      expect((await host.listVms())[0]).toMatchObject({ cpu: 4, memoryGiB: 6 });
    });

    it('discards a VM of the same name on create: the fresh clone has none of its files', async () => {
      await host.createVm(vm('v1'));
      await host.startVm('v1');
      await host.guest('v1').putFile('dirty.txt', Buffer.from('x'));
      expect(await host.createVm(vm('v1'))).toMatchObject({ state: 'stopped' });
      await host.startVm('v1');
      await expect(host.guest('v1').getFile('dirty.txt')).rejects.toBeInstanceOf(DriverError);
    });

    it('deletes a VM idempotently; every call on a deleted VM is not_found', async () => {
      await host.createVm(vm('v1'));
      await host.startVm('v1');
      await host.deleteVm('v1');
      await host.deleteVm('v1');
      expect(await host.listVms()).toEqual([]);
      for (const call of [
        () => host.startVm('v1'),
        () => host.stopVm('v1'),
        () => host.resizeVm('v1', { cpu: 2, memoryGiB: 4 }),
        () => host.exportDelta('v1', join(tmp, 'x.delta')),
        () => host.importDelta('v1', join(tmp, 'x.delta')),
      ]) {
        await expect(call()).rejects.toMatchObject({ code: 'not_found' });
      }
      expect(() => host.guest('v1')).toThrow(DriverError);
    });

    it('never runs more than maxVms VMs at once: the one too many is refused with capacity', async () => {
      const { maxVms } = await host.info();
      let refused = 0;
      for (let i = 0; i <= maxVms; i++) {
        try {
          // A driver may refuse at create (linux: a VM user per VM) or at start (a Mac's VM limit).
          await host.createVm(vm(`v${i}`, { memoryGiB: 2 }));
          await host.startVm(`v${i}`);
        } catch (e) {
          expect(e).toMatchObject({ code: 'capacity' });
          refused++;
        }
      }
      expect(refused).toBe(1);
      expect((await host.listVms()).filter((v) => v.state === 'running')).toHaveLength(maxVms);
    });

    it('rejects bad input with a DriverError and changes nothing', async () => {
      await host.createVm(vm('v1'));
      const before = await host.listVms();
      const { cores, memoryGiB } = await host.info();
      await expect(host.createVm(vm('Not A Name'))).rejects.toMatchObject({ code: 'invalid_argument' });
      await expect(host.createVm(vm('v2', { image: 'no-such-image' }))).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(host.createVm(vm('v2', { cpu: cores + 1 }))).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(host.createVm(vm('v2', { cpu: 1.5 }))).rejects.toMatchObject({ code: 'invalid_argument' });
      await expect(host.createVm(vm('v2', { memoryGiB: memoryGiB + 1 }))).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(host.resizeVm('v1', { cpu: 0, memoryGiB: 4 })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      expect(await host.listVms()).toEqual(before);
    });

    it('carries a disk delta to a stopped VM of the same image, and only of that image', async () => {
      if (o.notImplemented?.includes('delta')) {
        await host.createVm(vm('src'));
        await expect(host.exportDelta('src', join(tmp, 'src.delta'))).rejects.toMatchObject({
          code: 'missing_tool',
        });
        await expect(host.importDelta('src', join(tmp, 'src.delta'))).rejects.toMatchObject({
          code: 'missing_tool',
        });
        return;
      }
      await host.createVm(vm('src'));
      await host.startVm('src');
      await host.guest('src').putFile('docs/delta.txt', Buffer.from('carried'));
      const file = join(tmp, 'src.delta');
      const delta = await host.exportDelta('src', file);
      const bytes = readFileSync(file);
      expect(delta).toEqual({
        bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
      await host.deleteVm('src');

      await host.createVm(vm('dst'));
      await host.importDelta('dst', file);
      await host.startVm('dst');
      expect(await readAll(await host.guest('dst').getFile('docs/delta.txt'))).toBe('carried');
      await expect(host.importDelta('dst', file)).rejects.toMatchObject({ code: 'invalid_argument' });
      await host.deleteVm('dst');

      await host.createVm(vm('other', { image: WHOLE }));
      await expect(host.importDelta('other', file)).rejects.toMatchObject({ code: 'invalid_argument' });
    });

    it("forks a running VM on its host: the fork has the source's files, the source runs on", async () => {
      await host.createVm(vm('src'));
      await host.startVm('src');
      await host.guest('src').putFile('docs/fork.txt', Buffer.from('forked'));
      expect(await host.forkVm('src', vm('fork'))).toMatchObject({ name: 'fork', state: 'stopped', cpu: 2 });
      expect((await host.listVms()).find((v) => v.name === 'src')).toMatchObject({ state: 'running' });
      await host.startVm('fork');
      expect(await readAll(await host.guest('fork').getFile('docs/fork.txt'))).toBe('forked');
      await host.guest('fork').putFile('docs/fork.txt', Buffer.from('changed in the fork'));
      expect(await readAll(await host.guest('src').getFile('docs/fork.txt'))).toBe('forked');
      await host.deleteVm('fork');
      await expect(host.forkVm('src', vm('other', { image: WHOLE }))).rejects.toMatchObject({
        code: 'invalid_argument',
      });
      await expect(host.forkVm('nope', vm('other'))).rejects.toMatchObject({ code: 'not_found' });
    });

    it('pauses a running VM and resumes it (a second pause or resume changes nothing), or says it cannot', async () => {
      await host.createVm(vm('p'));
      await host.startVm('p');
      if (driver.unsupported?.pause !== undefined) {
        await expect(host.pauseVm('p')).rejects.toMatchObject({ code: 'not_supported' });
        return;
      }
      // A process of the guest's: a pause keeps it (the VM's memory), as a resume finds it. (The sim
      // guest's shell runs no processes.)
      const processes = driver.kind !== 'sim';
      const pid = processes
        ? (await host.guest('p').exec('nohup sleep 600 > /dev/null 2>&1 & echo $!')).stdout.trim()
        : '';
      if (processes) expect(pid).toMatch(/^\d+$/);
      await host.pauseVm('p');
      await host.pauseVm('p');
      expect((await host.listVms()).find((v) => v.name === 'p')).toMatchObject({
        state: 'running',
        paused: true,
      });
      await host.resumeVm('p');
      await host.resumeVm('p');
      expect((await host.listVms()).find((v) => v.name === 'p')?.paused).toBeUndefined();
      expect((await host.guest('p').displayInfo()).width).toBeGreaterThan(0);
      if (processes) {
        expect((await host.guest('p').exec(`kill -0 ${pid} && echo alive`)).stdout).toBe('alive\n');
      }
    });

    it('gives a guest only for a running VM', async () => {
      await host.createVm(vm('v1'));
      expect(() => host.guest('v1')).toThrow(DriverError);
      await host.startVm('v1');
      const g = host.guest('v1');
      expect((await g.displayInfo()).width).toBeGreaterThan(0);
      await host.stopVm('v1');
      expect(() => host.guest('v1')).toThrow(DriverError);
    });

    it('never runs more vCPU or memory than the Mac has', async () => {
      const { cores, memoryGiB } = await host.info();
      await host.createVm(vm('big', { cpu: cores, memoryGiB }));
      await host.createVm(vm('small'));
      await host.startVm('big');
      await expect(host.startVm('small')).rejects.toMatchObject({ code: 'capacity' });
      expect((await host.listVms()).find((v) => v.name === 'small')).toMatchObject({ state: 'stopped' });
      await host.stopVm('big');
      expect(await host.startVm('small')).toMatchObject({ state: 'running' });
    });
  });
}
