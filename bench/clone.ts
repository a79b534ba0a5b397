// Fresh-clone benchmark of the linux driver: how long from "throw this VM away" to "a fresh one
// answers" (deleteVm + createVm + startVm, i.e. X display, desktop session, VNC and SSH all up: the
// clone → warm time of a pool VM), next to a
// naive cycle measured in the same run on the same machine: `pkill -u` the user, `rm -rf` its home,
// `cp -a` the template home back and `chown -R` it (on the disk, no overlay, no cgroup), then boot
// the same desktop. The two alternate, so both see the same machine load.
//
// Memory per warm VM: the proportional set size (PSS, shared pages split between their users)
// summed over every process of the VM's user, once the VM is ready and again 5 s later (a warm VM
// waits in the pool; what its session loads after readiness counts too).
//
// Two images: the driver's own template home (a few KB of desktop configuration), and the same with
// 100 MB of application files in it (1,000 files of 100 KB), closer to a real image's weight.
//
//   node bench/clone.ts            (20 cycles per cycle kind and image, about two minutes)
//   node bench/clone.ts --quick    (5 cycles each)
//
// Runs as root (the driver creates a VM user, mounts and cgroups). Prints a markdown table.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGES } from '../crds/index.ts';
import { createLinuxDriver } from '../hosts/linux/index.ts';
import { SlotRegistry } from '../hosts/linux/claims.ts';
import { ensureTemplate } from '../hosts/linux/image.ts';
import { ProcessTracker, run, waitUntil } from '../hosts/linux/runner.ts';
import { generateSshKey } from '../hosts/linux/sshd.ts';
import { bootDesktop, powerOff, type BootedDesktop } from '../hosts/linux/vm-boot.ts';
import { vmPaths, type VmRecord } from '../hosts/linux/vm-record.ts';
import { ensureVmUser, findUser, liveUserPids } from '../hosts/linux/vm-user.ts';

const QUICK = process.argv.includes('--quick');
const CYCLES = QUICK ? 5 : 20;
const PAYLOADS_MB = [0, 100];
const IMAGE = 'base-macos-26';
const SIZE = { width: 1280, height: 800 };
/** Cycles whose VM's memory is measured (each adds 5 s of settling). */
const PSS_SAMPLES = 3;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

const fmt = (ms: number) => ms.toFixed(0);

interface Result {
  payloadMb: number;
  total: number[];
  discard: number[];
  clone: number[];
  boot: number[];
  naive: number[];
  /** MiB of PSS over the VM user's processes, at readiness and 5 s later. */
  pssReady: number[];
  pssSettled: number[];
}

/** Summed PSS (MiB) of every live process of `uid` (smaps_rollup; a process that exits meanwhile counts 0). */
function pssMiB(uid: number): number {
  let kb = 0;
  for (const pid of liveUserPids(uid)) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      kb += Number(m?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/** Adds `mb` MB of application files (100 KB each) to a template home. */
function addPayload(template: string, mb: number): void {
  if (mb === 0) return;
  const dir = join(template, '.local', 'share', 'apps');
  mkdirSync(dir, { recursive: true });
  const chunk = randomBytes(100 * 1024);
  for (let i = 0; i < mb * 10; i++) writeFileSync(join(dir, `f${i}.bin`), chunk);
}

async function measure(payloadMb: number): Promise<Result> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-bench-clone-'));
  const imagesDir = join(dataDir, 'images');
  const template = await ensureTemplate(imagesDir, IMAGE);
  addPayload(template, payloadMb);
  const driver = createLinuxDriver({ dataDir, discardOnClose: true });
  const host = driver.host({ name: 'bench-clone', address: '127.0.0.1', model: 'm4' });
  const spec = { name: 'fresh', image: IMAGE, cpu: 2, memoryGiB: 4 };

  // The naive peer: its own slot (user, address), a plain home dir refilled by cp -a.
  const globalDir = '/run/sandbay-linux';
  const slots = new SlotRegistry(globalDir);
  const naiveTracker = new ProcessTracker();
  const claim = slots.claim({ dataDir, host: 'bench-naive', vm: 'naive', mounts: [] });
  if (!claim) throw new Error('no free VM slot for the naive cycle');
  const naiveUser = `sbvm${claim.slot}`;
  const naiveHome = `/home/${naiveUser}`;
  const u = await ensureVmUser(naiveUser, naiveHome);
  const key = generateSshKey('naive');
  const naive: VmRecord = {
    ...spec,
    diskGiB: IMAGES.split.diskGiB,
    slot: claim.slot,
    user: naiveUser,
    uid: u.uid,
    gid: u.gid,
    home: naiveHome,
    ip: `127.0.1.${claim.slot}`,
    lower: template,
    vncPort: 5900,
    vncPassword: randomBytes(4).toString('hex'),
    sshPort: 22,
    sshPrivateKey: key.privateKey,
    sshPublicKey: key.publicKey,
    state: 'stopped',
    createdAt: new Date().toISOString(),
  };
  const naivePaths = vmPaths(join(dataDir, 'naive'), globalDir, naive);
  mkdirSync(naivePaths.dir, { recursive: true, mode: 0o700 });
  writeFileSync(naivePaths.hostKey, generateSshKey('naive-host').privateKey, { mode: 0o600 });
  writeFileSync(naivePaths.authorizedKeys, `${key.publicKey}\n`, { mode: 0o644 });
  let naiveDesktop: BootedDesktop | undefined;
  const naiveOff = async () => {
    if (!naiveDesktop) return;
    await powerOff({ cgroup: undefined, uid: u.uid, procs: Object.values(naiveDesktop.procs) });
  };

  const naiveCycle = async (): Promise<void> => {
    await run('pkill', ['-KILL', '-u', naiveUser]).catch(() => undefined); // exit 1: nothing to kill
    await waitUntil('naive user gone', () => (liveUserPids(u.uid).length === 0 ? true : undefined), 5000);
    await naiveOff();
    await run('rm', ['-rf', naiveHome]);
    await run('cp', ['-a', template, naiveHome]);
    await run('chown', ['-R', `${u.uid}:${u.gid}`, naiveHome]);
    chmodSync(naiveHome, 0o700);
    naiveDesktop = await bootDesktop(naiveTracker, naive, naivePaths, undefined, SIZE);
  };

  const r: Result = {
    payloadMb,
    total: [],
    discard: [],
    clone: [],
    boot: [],
    naive: [],
    pssReady: [],
    pssSettled: [],
  };
  const vmUid = () => {
    const slot = slots.all().find((c) => c.dataDir === dataDir && c.vm === spec.name)?.slot;
    const uid = slot === undefined ? undefined : findUser(`sbvm${slot}`)?.uid;
    if (uid === undefined) throw new Error('the VM under test has no user');
    return uid;
  };
  try {
    await host.createVm(spec);
    await host.startVm(spec.name);
    await naiveCycle(); // warm-up of both: user, lower copy, page cache
    for (let i = 0; i < CYCLES; i++) {
      const t0 = performance.now();
      await host.deleteVm(spec.name);
      const t1 = performance.now();
      await host.createVm(spec);
      const t2 = performance.now();
      await host.startVm(spec.name);
      const t3 = performance.now();
      r.total.push(t3 - t0);
      r.discard.push(t1 - t0);
      r.clone.push(t2 - t1);
      r.boot.push(t3 - t2);
      if (i < PSS_SAMPLES) {
        const uid = vmUid();
        r.pssReady.push(pssMiB(uid));
        await new Promise((resolve) => setTimeout(resolve, 5000));
        r.pssSettled.push(pssMiB(uid));
      }

      const n0 = performance.now();
      await naiveCycle();
      r.naive.push(performance.now() - n0);
    }
  } finally {
    await naiveOff();
    await naiveTracker.killAll();
    rmSync(naiveHome, { recursive: true, force: true });
    rmSync(naivePaths.authorizedKeys, { force: true });
    slots.release(claim);
    await driver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return r;
}

const results: Result[] = [];
for (const mb of PAYLOADS_MB) results.push(await measure(mb));

console.log(`Fresh-clone cycle, ${CYCLES} cycles of each kind per image, alternating; ms.`);
console.log('');
console.log('| image | cycle | median | p99 | naive median / median |');
console.log('|---|---|---|---|---|');
for (const r of results) {
  const image = r.payloadMb ? `template + ${r.payloadMb} MB` : 'template (few KB)';
  const naiveMedian = percentile(r.naive, 50);
  const row = (name: string, v: number[], ratio = true) => {
    const cells = [fmt(percentile(v, 50)), fmt(percentile(v, 99))];
    const x = ratio ? `${(naiveMedian / percentile(v, 50)).toFixed(2)}×` : '';
    console.log(`| ${image} | ${name} | ${cells.join(' | ')} | ${x} |`);
  };
  row('sandbay: deleteVm + createVm + startVm', r.total);
  row('… deleteVm (cgroup kill, unmount)', r.discard, false);
  row('… createVm (tmpfs + overlay mount, keys, limits)', r.clone, false);
  row('… startVm (Xvfb, session, x11vnc, sshd answering)', r.boot, false);
  row('naive: pkill -u, rm -rf, cp -a + chown -R (ext4), same boot', r.naive);
}
console.log('');
console.log('Memory per warm VM: PSS summed over its processes, MiB (median of the sampled VMs).');
console.log('');
console.log('| image | at readiness | 5 s later |');
console.log('|---|---|---|');
for (const r of results) {
  const image = r.payloadMb ? `template + ${r.payloadMb} MB` : 'template (few KB)';
  console.log(`| ${image} | ${fmt(percentile(r.pssReady, 50))} | ${fmt(percentile(r.pssSettled, 50))} |`);
}
