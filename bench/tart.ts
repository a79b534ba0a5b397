// The tart driver's guest on an emulated Mac (a network namespace with a real sshd and Tart's CLI
// contract; its VM a real desktop): each operation through the driver next to the naive way, in the
// same run on the same VM. exec: the pooled guest connection jumped through the Mac's pooled
// connection vs a fresh `ssh -J` per call. Screenshot 1280×800: the persistent RFB session vs a new
// tunnelled VNC connection per screenshot. Click and key: RFB events on the persistent session.
// Screenshot encodings: ZRLE (the driver's) vs Raw, each on a persistent session. Disk delta
// (snapshot) export vs copying the whole disk, and applying it onto a fresh clone. Warm create
// through the API on the tart driver (the whole service on a second emulated Mac).
//
//   node bench/tart.ts [--quick] [--no-snapshots]   (as root: it creates the emulated Macs, and removes them)
//
// Prints a markdown table: median and p99 in ms, and the ratio naive median / driver median.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { downAll, upMacs } from '../test/support/emulated-mac/macs.ts';
import { writeCredentials } from '../hosts/tart/credentials.ts';
import { createTartDriver } from '../hosts/tart/index.ts';
import type { TartGuest } from '../hosts/tart/guest.ts';
import { Mac } from '../hosts/tart/mac.ts';
import { RfbClient } from '../hosts/tart/rfb-client.ts';
import { waitFor } from '../test/support/wait.ts';
import { json, startTartStack } from '../test/tart-stack.ts';

const run = promisify(execFile);
const QUICK = process.argv.includes('--quick');
/** Skips the disk delta rows (minutes: the whole-disk copies they compare with). */
const NO_SNAPSHOTS = process.argv.includes('--no-snapshots');
const N = (full: number): number => (QUICK ? Math.max(3, Math.round(full / 10)) : full);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function measure(n: number, op: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(3, n); i++) await op(); // warm-up: connections, sessions
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await op();
    ms.push(performance.now() - start);
  }
  return ms;
}

const root = mkdtempSync(join(tmpdir(), 'sandbay-bench-tart-'));
chmodSync(root, 0o755);
const rows: string[] = [];
const notes: string[] = [];
function add(op: string, driverMs: number[], naiveMs?: number[]): void {
  const d50 = percentile(driverMs, 50);
  const n50 = naiveMs ? percentile(naiveMs, 50) : undefined;
  rows.push(
    `| ${op} | ${d50.toFixed(1)} | ${percentile(driverMs, 99).toFixed(1)} | ${n50 === undefined ? '–' : n50.toFixed(1)} | ${n50 === undefined ? '–' : `${(n50 / d50).toFixed(1)}×`} |`,
  );
}
try {
  const fleet = await upMacs(join(root, 'macs'), 1);
  const em = fleet.macs[0]!;
  const data = join(root, 'data');
  writeCredentials(data, 'bench', { username: 'root', privateKey: fleet.privateKey });
  const keyFile = join(root, 'key');
  writeFileSync(keyFile, fleet.privateKey, { mode: 0o600 });
  const driver = createTartDriver({ dataDir: data });
  const ref = { name: 'bench', address: em.address, model: 'm4' as const, credentialsRef: 'bench' };
  const host = driver.host(ref);
  // A base image with content, as a real one has (~31 GB allocated of a Cirrus Labs base image):
  // 512 MiB of files written into the image's file system, so the whole-disk copy has something
  // to copy that the delta leaves out.
  const imageDisk = join(em.tartHome, 'vms', 'base-macos-26', 'disk.img');
  await run('unshare', [
    '--mount',
    'sh',
    '-c',
    `d=$(mktemp -d) && mount -o loop "$1" "$d" && head -c 536870912 /dev/urandom > "$d/base-content.bin" && umount "$d" && rmdir "$d"`,
    'sh',
    imageDisk,
  ]);
  await host.createVm({ name: 'vm', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
  const vm = await host.startVm('vm');
  const guest = host.guest('vm') as TartGuest;
  await guest.exec(
    'xsetroot -solid "#336699"; (xterm -geometry 120x40+10+10 -e "ls -lR /usr/share/doc | head -2000; sleep 1000" >/dev/null 2>&1 &)',
  );

  const ssh = [
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-i',
    keyFile,
  ];
  const mac = new Mac(ref, () => ({ username: 'root', privateKey: fleet.privateKey }), join(root, 'kh'));
  add(
    'exec `echo hi` (driver: pooled, jump via the Mac; naive: fresh `ssh -J`)',
    await measure(N(200), () => guest.exec('echo hi')),
    await measure(N(20), () =>
      run('ssh', [
        ...ssh,
        '-o',
        `ProxyCommand=ssh ${ssh.join(' ')} -W %h:%p root@${em.address}`,
        `admin@${vm.ip}`,
        'echo hi',
      ]),
    ),
  );
  add(
    'screenshot 1280×800 PNG (driver: persistent RFB; naive: new tunnelled VNC per shot)',
    await measure(N(100), () => guest.screenshot()),
    await measure(N(20), async () => {
      const c = await RfbClient.connect(
        await mac.forward(guest.vm.vnc.host, guest.vm.vnc.port),
        guest.vm.vnc.password,
      );
      const f = await c.capture();
      c.close();
      await sharp(f.data, { raw: { width: f.width, height: f.height, channels: 4 } })
        .removeAlpha()
        .png({ compressionLevel: 1, adaptiveFiltering: false })
        .toBuffer();
    }),
  );
  // The encoding: the driver's session gets ZRLE (asked for first); a second persistent session on
  // the same screen asks for Raw alone (what the driver had before ZRLE). Bytes per full update are
  // counted on each session's tunnel.
  const tunnelled = async (encodings: 'zrle' | 'raw') => {
    const stream = await mac.forward(guest.vm.vnc.host, guest.vm.vnc.port);
    let bytes = 0;
    stream.on('data', (b: Buffer) => (bytes += b.length));
    const c = await RfbClient.connect(stream, guest.vm.vnc.password, encodings);
    return { c, bytes: () => bytes };
  };
  const png = (f: { data: Buffer; width: number; height: number }) =>
    sharp(f.data, { raw: { width: f.width, height: f.height, channels: 4 } })
      .removeAlpha()
      .png({ compressionLevel: 1, adaptiveFiltering: false })
      .toBuffer();
  const zrle = await tunnelled('zrle');
  const raw = await tunnelled('raw');
  const perUpdate = async (s: typeof zrle) => {
    await s.c.capture();
    const before = s.bytes();
    await s.c.capture();
    return s.bytes() - before;
  };
  const [zrleBytes, rawBytes] = [await perUpdate(zrle), await perUpdate(raw)];
  if (![...zrle.c.encodingsUsed].includes(16)) throw new Error('the server did not use ZRLE');
  add(
    'screenshot 1280×800 PNG over a persistent session: ZRLE (driver) vs Raw (naive column)',
    await measure(N(100), () => guest.screenshot()),
    await measure(N(100), async () => png(await raw.c.capture())),
  );
  add(
    'full framebuffer update 1280×800, decoded (no PNG): ZRLE vs Raw (naive column)',
    await measure(N(100), () => zrle.c.capture()),
    await measure(N(100), () => raw.c.capture()),
  );
  notes.push(
    `bytes per full update through the tunnel: ZRLE ${(zrleBytes / 1024).toFixed(0)} KiB, Raw ${(rawBytes / 1024).toFixed(0)} KiB (x11vnc in the emulated Mac; the screen: a desktop with an xterm full of text)`,
  );
  zrle.c.close();
  raw.c.close();
  add(
    'screenshot 1280×800 JPEG q80 (persistent RFB)',
    await measure(N(100), () => guest.screenshot({ format: 'jpeg' })),
  );
  add('click (RFB pointer events)', await measure(N(200), () => guest.click(400, 300)));
  add('key (RFB key events)', await measure(N(200), () => guest.press('shift')));

  if (!NO_SNAPSHOTS) {
    // Snapshots: the delta of a VM that wrote 20 MiB (random, incompressible) over a base image
    // holding 512 MiB, against copying its whole disk (its allocated blocks: sparse tar, gzip -1,
    // through the same SSH connection).
    await guest.exec('head -c 20971520 /dev/urandom > work.bin && sync');
    const deltaFile = join(root, 'vm.delta');
    let deltaBytes = 0;
    const deltaMs = await measure(N(10), async () => {
      deltaBytes = (await host.exportDelta('vm', deltaFile)).bytes;
    });
    let wholeBytes = 0;
    const wholeMs = await measure(N(10), async () => {
      const r = await run(
        'sh',
        [
          '-c',
          `ssh ${ssh.join(' ')} root@${em.address} 'cd "$TART_HOME/vms/vm" && tar -cSf - disk.img | gzip -1' > ${join(root, 'whole.tgz')} && stat -c %s ${join(root, 'whole.tgz')}`,
        ],
        { maxBuffer: 1024 },
      );
      wholeBytes = Number(r.stdout.trim());
    });
    add('disk delta after 20 MiB written (naive: the whole disk, sparse tar + gzip)', deltaMs, wholeMs);
    notes.push(
      `delta ${(deltaBytes / 2 ** 20).toFixed(1)} MiB vs whole disk ${(wholeBytes / 2 ** 20).toFixed(1)} MiB (base image seeded with 512 MiB; a Cirrus Labs base image allocates ~31 GB)`,
    );
    await host.stopVm('vm');
    await host.createVm({ name: 'dst', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
    const importMs: number[] = [];
    for (let i = 0; i < N(10); i++) {
      await host.createVm({ name: 'dst', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
      const start = performance.now();
      await host.importDelta('dst', deltaFile);
      importMs.push(performance.now() - start);
    }
    add('apply that delta onto a fresh clone', importMs);
  }
  mac.close();
  await driver.close();
  await benchWarmCreate();
} finally {
  await downAll(join(root, 'macs'));
  rmSync(root, { recursive: true, force: true });
}
/**
 * Warm create through the API on the tart driver: the whole service (operator, customer API) on an
 * emulated Mac registered with kubectl (test/tart-stack.ts), POST /v1/sandboxes → 201 with a warm
 * VM waiting; each sandbox deleted again and the pool refilled before the next create.
 */
async function benchWarmCreate(): Promise<void> {
  const stack = await startTartStack('sandbay-bench-tart-api-', { macs: 1 });
  try {
    await waitFor(
      async () =>
        (json(await stack.api('GET', '/v1/platforms')).models as { available_minis: number }[]).some(
          (m) => m.available_minis > 0,
        ),
      'the emulated Mac for sale',
      120_000,
    );
    const r = json(
      await stack.api('POST', '/v1/reservations', { hours: 24, mini_count: 1, mac_model: 'm4' }),
    );
    if (r.status !== 'active') throw new Error(`reservation: ${JSON.stringify(r)}`);
    const warm = async () =>
      (json(await stack.api('GET', `/v1/platforms?reservation_id=${r.id}`)).reservation?.minis[0]?.warm_vms
        .length ?? 0) as number;
    const ms: number[] = [];
    let cold = 0;
    for (let i = 0; i < N(20) + 2; i++) {
      await waitFor(async () => (await warm()) >= 1, 'a warm VM', 180_000);
      const t = performance.now();
      const c = await stack.api('POST', '/v1/sandboxes', { reservation_id: r.id });
      const took = performance.now() - t;
      if (c.status !== 201) throw new Error(`create: ${c.status} ${c.bytes.toString()}`);
      const sb = json(c);
      if (i >= 2) ms.push(took); // two warm-ups
      if (sb.boot !== 'warm') cold++;
      await stack.api('DELETE', `/v1/sandboxes/${sb.sandbox_id}`);
    }
    add(
      `warm create through the API, POST /v1/sandboxes → 201 (tart driver${cold ? `; ${cold} cold` : ''})`,
      ms,
    );
  } finally {
    await stack.close();
  }
}

console.log('| operation | driver p50 ms | driver p99 ms | naive p50 ms | naive / driver |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
for (const n of notes) console.log(`\n${n}`);
