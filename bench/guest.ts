// Guest (data plane) benchmark of the linux driver: each operation through LinuxGuest next to the
// naive way — one spawned tool per call (ImageMagick `import`, `xdotool`, a fresh `ssh`, `scp`) —
// measured in the same run on the same VM, with an xterm full of text on screen.
//
//   node bench/guest.ts            (under a minute)
//   node bench/guest.ts --quick    (a smoke run)
//
// Runs as root (the linux driver creates a VM user). Prints a markdown table: median and p99 in ms,
// and the ratio naive median / driver median.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Guest } from '../hosts/driver.ts';
import { createLinuxDriver } from '../hosts/linux/index.ts';
import { vmLink } from '../hosts/linux/vm-network.ts';

const run = promisify(execFile);
const QUICK = process.argv.includes('--quick');
const N = (full: number): number => (QUICK ? Math.max(3, Math.round(full / 10)) : full);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function measure(n: number, op: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(3, n); i++) await op(i); // warm-up: connections, keymap, caches
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await op(i);
    ms.push(performance.now() - start);
  }
  return ms;
}

interface Row {
  op: string;
  driver: number[];
  naive: number[];
  naiveHow: string;
}

function table(rows: Row[]): string {
  const f = (v: number): string => (v >= 100 ? v.toFixed(0) : v.toFixed(1));
  const lines = [
    '| operation | driver p50 ms | driver p99 ms | naive p50 ms | naive p99 ms | naive / driver (p50) | naive way |',
    '|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const dp50 = percentile(r.driver, 50);
    const np50 = percentile(r.naive, 50);
    lines.push(
      `| ${r.op} | ${f(dp50)} | ${f(percentile(r.driver, 99))} | ${f(np50)} | ${f(percentile(r.naive, 99))} | ${(np50 / dp50).toFixed(1)}× | ${r.naiveHow} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbay-bench-guest-'));
  const driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 1 });
  try {
    const host = driver.host({ name: 'bench-guest', address: '127.0.0.1', model: 'm4' });
    await host.createVm({ name: 'bench', image: 'base-macos-26', cpu: 2, memoryGiB: 4 });
    await host.startVm('bench');
    const guest: Guest = host.guest('bench');
    const session = (await guest.exec('printf "%s\\n%s" "$DISPLAY" "$XAUTHORITY"')).stdout.split('\n');
    const x = { ...process.env, DISPLAY: session[0] ?? '', XAUTHORITY: session[1] ?? '' };
    // The naive tools reach the display as the VM's own clients do, by its abstract socket in the VM's
    // network namespace (its socket file is in a dir of the VM's X server only): nsenter joins it and
    // execs the tool in place.
    const { record } = host.describe('bench');
    const inVmNet = (tool: string, args: string[]) =>
      ['nsenter', [`--net=${vmLink(record.slot, record.user).netnsPath}`, '--', tool, ...args]] as const;
    const ssh = await guest.ssh();
    const keyFile = join(dataDir, 'bench-key');
    writeFileSync(keyFile, ssh.privateKey, { mode: 0o600 });
    const sshOpts = ['-i', keyFile, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null'];
    sshOpts.push('-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR');
    const upload = randomBytes(10 * 1024 * 1024);
    const uploadFile = join(dataDir, 'upload.bin');
    writeFileSync(uploadFile, upload);

    // Realistic content to encode: an xterm full of text.
    await guest.exec(
      `xterm -geometry 160x50+0+0 -e sh -c 'ls -l /usr/bin; exec sleep 100000' >/dev/null 2>&1 &`,
    );
    const deadline = Date.now() + 10_000;
    while (!(await guest.windows()).some((w) => w.app === 'XTerm')) {
      if (Date.now() > deadline) throw new Error('xterm did not appear');
    }

    const importTool = (args: string[]) => () =>
      run(...inVmNet('import', ['-window', 'root', ...args]), {
        env: x,
        encoding: 'buffer',
        maxBuffer: 64 << 20,
      });
    const rows: Row[] = [];
    const add = async (
      op: string,
      n: number,
      d: (i: number) => Promise<unknown>,
      naiveHow: string,
      nv: (i: number) => Promise<unknown>,
    ) => {
      const driverMs = await measure(n, d);
      const naiveMs = await measure(Math.max(3, Math.round(n / 3)), nv);
      rows.push({ op, driver: driverMs, naive: naiveMs, naiveHow });
      process.stderr.write(`${op}: done\n`);
    };

    await add(
      'screenshot PNG 1280×800',
      N(60),
      () => guest.screenshot(),
      '`import -window root png:-`',
      importTool(['png:-']),
    );
    await add(
      'screenshot JPEG q80',
      N(60),
      () => guest.screenshot({ format: 'jpeg', quality: 80 }),
      '`import -window root -quality 80 jpeg:-`',
      importTool(['-quality', '80', 'jpeg:-']),
    );
    await add(
      'screenshot region 400×300 PNG',
      N(60),
      () => guest.screenshot({ region: { x: 100, y: 100, width: 400, height: 300 } }),
      '`import -window root -crop 400x300+100+100 png:-`',
      importTool(['-crop', '400x300+100+100', 'png:-']),
    );
    await add(
      'click',
      N(150),
      (i) => guest.click(600 + (i % 50), 400),
      '`xdotool mousemove X Y click 1`',
      (i) =>
        run(...inVmNet('xdotool', ['mousemove', String(600 + (i % 50)), '400', 'click', '1']), { env: x }),
    );
    await add(
      'type 20 characters',
      N(60),
      () => guest.type('abcdefghijklmnopqrst'),
      '`xdotool type abcdefghijklmnopqrst`',
      () => run(...inVmNet('xdotool', ['type', 'abcdefghijklmnopqrst']), { env: x }),
    );
    await add(
      'exec `echo hi`',
      N(150),
      () => guest.exec('echo hi'),
      '`ssh user@vm echo hi` (fresh process)',
      () => run('ssh', [...sshOpts, '-p', String(ssh.port), `${ssh.username}@${ssh.host}`, 'echo hi']),
    );
    await add(
      'upload 10 MiB',
      N(15),
      () => guest.putFile('bench-upload.bin', upload),
      '`scp` (fresh process)',
      () =>
        run('scp', [
          ...sshOpts,
          '-P',
          String(ssh.port),
          uploadFile,
          `${ssh.username}@${ssh.host}:bench-scp.bin`,
        ]),
    );

    console.log(table(rows));
  } finally {
    await driver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
