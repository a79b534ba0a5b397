// Faults of Macs under the whole service on the tart driver (two emulated Macs, registered with
// kubectl as tart-e2e.test.ts does), each with what an operator should see happen: `tart run` that
// never prints its VNC line (the driver's deadline fails the boot, the VM is stopped and cloned
// again), a Mac that reboots (down while it boots: its sandbox fails with host_down; back with its
// VMs stopped on disk, which are cloned again; a reboot between two probes, where the VMs are lost
// rather than down, is operator-faults.test.ts's on the sim driver), a Mac that drops off the
// network and returns (Ready=False with the reason while gone, its sandbox fails with host_down,
// Ready=True after), one that is cut mid-clone, and one where an operator runs a VM of their own by
// hand, so that Tart refuses sandbay's `tart run` over Apple's licence (the boot waits, creates get
// 503, the Mini's RoomForVMs says why, and the VM boots once theirs stops). After each, the pool is
// full again and Mac and store agree exactly: no VM dir, temp dir or `tart run` left over, nothing
// claimed twice, no sandbox left in a state that never ends.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGES, type Mini, type Sandbox, type VM } from '../crds/index.ts';
import { waitFor } from './api-harness.ts';
import {
  cutMacNetwork,
  killMacSshd,
  rebootMac,
  restartMacSshd,
  restoreMacNetwork,
  type EmulatedMac,
} from './support/emulated-mac/macs.ts';
import { clearFault, faultFile, FAULTS, setFault } from './support/emulated-mac/faults.ts';
import { isTartRun } from './support/emulated-mac/tart-store.ts';
import { onMacOk, runByHand } from './support/emulated-mac/operator-shell.ts';
import { json, startTartStack, type TartStack } from './tart-stack.ts';

/** The driver's boot deadline here: long enough for an emulated VM under load, short for the test. */
const BOOT_TIMEOUT_S = 20;
let stack: TartStack;
/** Each Mac's reservation (one Mac each), so that a sandbox lands on the Mac a test faults. */
const reservationOf = new Map<string, string>();

const mini = async (name: string) => (await stack.store.get<Mini>({ kind: 'Mini', name }))!;
const vmsOf = async (name: string) =>
  (await stack.store.list<VM>('VM', { labelSelector: `sandbay.io/mini=${name}` })).items;
const sandbox = (id: string) => stack.store.get<Sandbox>({ kind: 'Sandbox', namespace: 'mac', name: id });
const readyOf = (m: Mini) => m.status?.conditions?.find((c) => c.type === 'Ready');
const hostOf = (mac: EmulatedMac) =>
  stack.driver.host({
    name: mac.name,
    address: mac.address,
    model: mac.model,
    credentialsRef: 'emulated-macs',
  });

async function sandboxOn(mac: EmulatedMac): Promise<{ id: string; vm: string }> {
  const reservation = reservationOf.get(mac.name)!;
  const created = await waitFor(
    async () => {
      const c = await stack.api('POST', '/v1/sandboxes', { reservation_id: reservation });
      return c.status === 201 ? json(c) : undefined;
    },
    `a sandbox on ${mac.name}`,
    120_000,
  );
  const running = await waitFor(
    async () => {
      const s = await sandbox(created.sandbox_id);
      return s?.status?.phase === 'running' ? s : undefined;
    },
    'the sandbox running',
    120_000,
  );
  expect(running.status?.mini).toBe(mac.name);
  return { id: created.sandbox_id, vm: running.status!.vm! };
}

async function failedWith(id: string): Promise<string | undefined> {
  const failed = await waitFor(
    async () => {
      const s = await sandbox(id);
      return s?.status?.phase === 'failed' ? s : undefined;
    },
    `sandbox ${id} failed`,
    120_000,
  );
  return failed.status?.reason;
}

async function deleteSandbox(id: string): Promise<void> {
  expect((await stack.api('DELETE', `/v1/sandboxes/${id}`)).status).toBeLessThan(300);
  await waitFor(async () => !(await sandbox(id)), `sandbox ${id} gone`, 120_000);
}

/**
 * The Mac's pool is full and the Mac holds exactly what the store says: one running VM per warm
 * slot, nothing else in `~/.tart/vms` but the images, no clone's temp dir, no `tart run` of a VM the
 * store does not run. Returns a description of the difference while there is one.
 */
async function settledDifference(mac: EmulatedMac): Promise<string | undefined> {
  const m = await mini(mac.name);
  if (readyOf(m)?.status !== 'True') return `Ready is ${JSON.stringify(readyOf(m))}`;
  const vms = (await vmsOf(mac.name)).filter((vm) => !vm.metadata.deletionTimestamp);
  const slots = m.status?.warmProfile?.length ?? 0;
  const running = (vm: VM) =>
    vm.status?.phase === 'warm' || (vm.status?.phase === 'occupied' && vm.status.sandbox === vm.spec.sandbox);
  if (vms.length !== slots || !vms.every(running))
    return `VMs ${JSON.stringify(vms.map((vm) => [vm.metadata.name, vm.status?.phase]))} for ${slots} slots`;
  const names = vms.map((vm) => vm.metadata.name).sort();
  const onHost = await hostOf(mac).listVms();
  if (
    JSON.stringify(onHost.map((v) => [v.name, v.state])) !== JSON.stringify(names.map((n) => [n, 'running']))
  )
    return `the Mac runs ${JSON.stringify(onHost.map((v) => [v.name, v.state]))}, the store ${JSON.stringify(names)}`;
  const dirs = readdirSync(path.join(mac.tartHome, 'vms')).sort();
  const expected = [...Object.values(IMAGES).map((i) => i.name), ...names].sort();
  if (JSON.stringify(dirs) !== JSON.stringify(expected)) return `VM dirs ${JSON.stringify(dirs)}`;
  const tmp = path.join(mac.tartHome, 'tmp');
  if (existsSync(tmp) && readdirSync(tmp).length > 0) return `temp dirs ${JSON.stringify(readdirSync(tmp))}`;
  const claims = vms.flatMap((vm) => (vm.spec.sandbox ? [vm.spec.sandbox] : []));
  if (new Set(claims).size !== claims.length) return `a sandbox claims two VMs: ${JSON.stringify(claims)}`;
  return undefined;
}

async function settled(mac: EmulatedMac): Promise<void> {
  let last: string | undefined;
  await waitFor(
    async () => {
      last = await settledDifference(mac).catch((e: Error) => `listing failed: ${e.message}`);
      return last === undefined;
    },
    `${mac.name} settled`,
    240_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; still: ${last}`);
  });
}

beforeAll(async () => {
  stack = await startTartStack('sandbay-tart-faults-', { macs: 2, bootTimeoutS: BOOT_TIMEOUT_S });
  for (const mac of stack.macs) {
    await waitFor(async () => readyOf(await mini(mac.name))?.status === 'True', `${mac.name} Ready`, 60_000);
    const r = json(
      await stack.api('POST', '/v1/reservations', { hours: 24, mini_count: 1, mac_model: 'm4' }),
    );
    expect(r.status).toBe('active');
    const held = await waitFor(
      async () => {
        for (const m of stack.macs) {
          if ((await mini(m.name)).status?.reservation === `mac/${r.id}` && !reservationOf.has(m.name))
            return m;
        }
        return undefined;
      },
      'the reservation bound to a Mac',
      60_000,
    );
    reservationOf.set(held.name, r.id);
  }
  for (const mac of stack.macs) await settled(mac);
}, 400_000);

afterAll(async () => {
  await stack?.close();
}, 120_000);

describe('Mac faults under the whole service (tart driver, emulated Macs)', () => {
  it(
    '`tart run` never prints its VNC line: the deadline fails the boot, the VM is stopped and the pool refills',
    { timeout: 400_000 },
    async () => {
      const mac = stack.macs[0]!;
      const sb = await sandboxOn(mac);
      setFault(mac.dir, FAULTS.withholdVncLine);
      // Deleting the sandbox re-clones its VM; that clone's `tart run` is the one that stays silent.
      await deleteSandbox(sb.id);
      const taken = await waitFor(
        () =>
          readdirSync(path.join(mac.dir, 'faults')).find((f) =>
            f.startsWith(`${FAULTS.withholdVncLine}.taken-`),
          ),
        'a `tart run` withholding its VNC line',
        120_000,
      );
      await settled(mac);
      // The silent run was stopped by the driver (not left running beside the new one)…
      const pid = Number(taken.split('.taken-')[1]);
      expect(isTartRun(pid)).toBe(false);
      // …after the driver's deadline, which the pool reported as the reason of its retry.
      expect(
        stack.logs.some(
          (l) =>
            l.fields.controller === 'pool' &&
            String(l.fields.err).includes(`tart run: no VNC line within ${BOOT_TIMEOUT_S} s`),
        ),
      ).toBe(true);
    },
  );

  it(
    'a Mac that reboots: down while it boots, the sandbox on it fails with host_down, its stopped VMs rebuilt',
    { timeout: 400_000 },
    async () => {
      const mac = stack.macs[0]!;
      const sb = await sandboxOn(mac);
      const vmsBefore = (await vmsOf(mac.name)).map((vm) => vm.metadata.name).sort();
      await rebootMac(mac, async () => {
        const down = await waitFor(
          async () => {
            const m = await mini(mac.name);
            return m.status?.phase === 'down' ? m : undefined;
          },
          `${mac.name} down`,
          120_000,
        );
        expect(readyOf(down)).toMatchObject({ status: 'False', reason: 'HostUnreachable' });
        expect(await failedWith(sb.id)).toBe('host_down');
      });
      // Back with every VM stopped on its disk: each is cloned again under its name, none adopted.
      await waitFor(
        async () => readyOf(await mini(mac.name))?.status === 'True',
        'Ready=True again',
        120_000,
      );
      expect((await mini(mac.name)).status?.reservation).toBe(`mac/${reservationOf.get(mac.name)}`);
      await deleteSandbox(sb.id);
      await settled(mac);
      expect((await vmsOf(mac.name)).map((vm) => vm.metadata.name).sort()).toEqual(vmsBefore);
    },
  );

  it(
    'a Mac that drops off the network and returns: Ready=False with the reason, host_down, then Ready=True',
    { timeout: 400_000 },
    async () => {
      const mac = stack.macs[1]!;
      const sb = await sandboxOn(mac);
      await cutMacNetwork(mac);
      try {
        const gone = await waitFor(
          async () => {
            const m = await mini(mac.name);
            return readyOf(m)?.status === 'False' ? m : undefined;
          },
          'Ready=False',
          120_000,
        );
        expect(gone.status?.phase).toBe('down');
        expect(readyOf(gone)).toMatchObject({
          reason: 'HostUnreachable',
          message: expect.stringMatching(new RegExp(`${mac.name}|${mac.address}`)),
        });
        expect(await failedWith(sb.id)).toBe('host_down');
      } finally {
        await restoreMacNetwork(mac);
      }
      await waitFor(
        async () => readyOf(await mini(mac.name))?.status === 'True',
        'Ready=True again',
        120_000,
      );
      // Still this reservation's Mac, and only its: sold once.
      expect((await mini(mac.name)).status?.phase).toBe('reserved');
      expect((await mini(mac.name)).status?.reservation).toBe(`mac/${reservationOf.get(mac.name)}`);
      await deleteSandbox(sb.id);
      await settled(mac);
      const ready = await stack.kubectl([
        'wait',
        '--for=condition=Ready',
        `mini/${mac.name}`,
        '--timeout=30s',
      ]);
      expect(ready.code, ready.stderr).toBe(0);
    },
  );

  it(
    'a Mac gone in the middle of a clone: the clone fails as unreachable, the Mac goes down, and is rebuilt on return',
    { timeout: 400_000 },
    async () => {
      const mac = stack.macs[1]!;
      const sb = await sandboxOn(mac);
      setFault(mac.dir, FAULTS.holdClone);
      await deleteSandbox(sb.id);
      await waitFor(() => existsSync(faultFile(mac.dir, FAULTS.cloneHeld)), 'a clone under way', 120_000);
      await killMacSshd(mac);
      try {
        await waitFor(
          async () => (await mini(mac.name)).status?.phase === 'down',
          `${mac.name} down`,
          120_000,
        );
        expect(readyOf(await mini(mac.name))).toMatchObject({ status: 'False', reason: 'HostUnreachable' });
        // Its VMs are marked down by the next pool pass (a write of its own, after the Mini's).
        await waitFor(
          async () => (await vmsOf(mac.name)).every((vm) => vm.status?.phase === 'down'),
          `${mac.name}'s VMs down`,
          60_000,
        );
      } finally {
        // The orphaned clone on the Mac finishes on its own (as a `tart clone` whose SSH session died does).
        clearFault(mac.dir, FAULTS.holdClone);
        await waitFor(
          () => !existsSync(faultFile(mac.dir, FAULTS.cloneHeld)),
          'the orphaned clone done',
          60_000,
        );
        await restartMacSshd(mac);
      }
      await settled(mac);
      const again = await sandboxOn(mac);
      await deleteSandbox(again.id);
      await settled(mac);
    },
  );

  it(
    'a VM run by hand takes a licence slot: the refused boot waits (503 meanwhile), RoomForVMs says why, and it boots once stopped',
    { timeout: 400_000 },
    async () => {
      const mac = stack.macs[0]!;
      const byHand = 'operators-own';
      await onMacOk(mac, `tart clone ${IMAGES.split.name} ${byHand}`);
      const sb = await sandboxOn(mac);
      // Deleting the sandbox re-clones its VM; while that clone is held, the operator runs their own
      // VM over SSH, so the Mac runs two macOS VMs, one of them not sandbay's.
      setFault(mac.dir, FAULTS.holdClone);
      try {
        await deleteSandbox(sb.id);
        await waitFor(() => existsSync(faultFile(mac.dir, FAULTS.cloneHeld)), 'a clone under way', 120_000);
        await runByHand(mac, byHand);
      } finally {
        clearFault(mac.dir, FAULTS.holdClone);
      }
      try {
        const refused = await waitFor(
          async () => {
            const c = (await mini(mac.name)).status?.conditions?.find((c) => c.type === 'RoomForVMs');
            return c?.status === 'False' ? c : undefined;
          },
          'RoomForVMs=False',
          120_000,
        );
        expect(refused.reason).toBe('HostRefusedStart');
        expect(refused.message).toContain("Apple's licence allows two macOS VMs per Mac");
        expect(refused.message).toContain(`not started by sandbay: ${byHand}.`);
        expect(refused.message).toContain(`\`tart stop ${byHand}\``);
        // Waiting, not failing: the Mac stays Ready, the refused VM stays cloning (never offered as
        // warm nor claimed cold), the other still warm.
        expect(readyOf(await mini(mac.name))?.status).toBe('True');
        const phases = (await vmsOf(mac.name)).map((vm) => vm.status?.phase).sort();
        expect(phases).toEqual(['cloning', 'warm']);
        // A customer: the warm VM is handed over; the next create is answered as no capacity (503).
        const first = await stack.api('POST', '/v1/sandboxes', {
          reservation_id: reservationOf.get(mac.name),
        });
        expect(first.status).toBe(201);
        const second = await stack.api('POST', '/v1/sandboxes', {
          reservation_id: reservationOf.get(mac.name),
        });
        expect(second.status).toBe(503);
        expect(json(second).error).toBe('no_warm_vm');
        await deleteSandbox(json(first).sandbox_id);
      } finally {
        // The operator stops their VM: sandbay's boots in the freed slot.
        await onMacOk(mac, `tart stop ${byHand} -t 5`);
      }
      await waitFor(
        async () =>
          (await mini(mac.name)).status?.conditions?.find((c) => c.type === 'RoomForVMs')?.status === 'True',
        'RoomForVMs=True again',
        120_000,
      );
      // sandbay never touched the operator's VM: still on the Mac, stopped, until they delete it.
      const list = JSON.parse(await onMacOk(mac, 'tart list --format json')) as {
        Name: string;
        State: string;
      }[];
      expect(list.find((v) => v.Name === byHand)?.State).toBe('stopped');
      await onMacOk(mac, `tart delete ${byHand}`);
      await settled(mac);
      expect(stack.logs.some((l) => l.msg === 'boot failed')).toBe(false);
    },
  );

  it('leaves no sandbox behind', async () => {
    expect((await stack.store.list<Sandbox>('Sandbox', { namespace: 'mac' })).items).toEqual([]);
  });
});
