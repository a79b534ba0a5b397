// Attack: a tenant with a shell in their own VM (the linux driver's real desktops) tries to reach
// what is not theirs: the host's listeners (on 0.0.0.0 and on loopback), another VM's sshd, VNC and
// X server, link-local metadata and private ranges, another VM's address, other VMs' temp files.
// Every attempt runs as the VM user over the VM's own SSH, as a tenant would. "No route" is shown
// with route lookups (`ip route get` sends nothing) and with listeners this test opens itself; no
// packet goes to an address outside the VMs' own links. Power-off removes each namespace, link and
// mount, which the last test checks on the machine.
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from '../../hosts/linux/index.ts';
import { run } from '../../hosts/linux/runner.ts';
import { vmLink } from '../../hosts/linux/vm-network.ts';
import { mountNsOf } from '../../hosts/linux/vm-mount-ns.ts';
import { holdNamespace } from '../support/namespace-hold.ts';
import { nsPids } from '../support/pid-namespaces.ts';
import { sshExec } from '../support/vm-ssh.ts';
import { waitFor } from '../support/wait.ts';

const IMAGE = 'base-macos-26';
let dataDir: string;
let driver: LinuxDriver;
let host: LinuxHost;
/** Listeners of the host that a VM must not reach: one on every address, one on loopback. */
const listeners: { server: Server; port: number; accepted: number }[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sandbay-vm-escape-'));
  driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 2 });
  host = driver.host({ name: 'escape', address: '127.0.0.1', model: 'm4' });
  for (const name of ['a', 'b']) await host.createVm({ name, image: IMAGE, cpu: 1, memoryGiB: 2 });
  await Promise.all([host.startVm('a'), host.startVm('b')]);
  for (const address of ['0.0.0.0', '127.0.0.1']) {
    const entry = { server: createServer(), port: 0, accepted: 0 };
    entry.server.on('connection', (s) => {
      entry.accepted++;
      s.destroy();
    });
    await new Promise<void>((resolve) => entry.server.listen(0, address, resolve));
    entry.port = (entry.server.address() as { port: number }).port;
    listeners.push(entry);
  }
});

afterAll(async () => {
  for (const l of listeners) l.server.close();
  await driver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A command as the VM's user, over its own SSH login. */
function sh(name: string, command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = host.describe(name).record;
  return sshExec(r, command);
}

/** A process's command line, for messages ('' once it is gone). */
function commandLine(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** The IPC namespace a process is in (`ipc:[inode]`). */
const ipcNsOf = (pid: number) => readlinkSync(`/proc/${pid}/ns/ipc`);

/** A TCP connect from inside the VM: prints `open` or the error (bash's /dev/tcp, 2 s bound). */
const tcpProbe = (ip: string, port: number) =>
  `timeout 2 bash -c 'exec 3<>/dev/tcp/${ip}/${port}' 2>&1 && echo open || echo "refused $?"`;

it("cannot open a connection to the host's listeners, on its link's address or on loopback", async () => {
  const a = host.describe('a').record;
  const hostEnd = vmLink(a.slot, a.user).hostIp;
  const [anyAddr, loopback] = listeners;
  // The listeners are real: the host itself reaches both.
  for (const [ip, port] of [
    [hostEnd, anyAddr!.port],
    ['127.0.0.1', loopback!.port],
  ] as const) {
    const r = await run('bash', ['-c', `exec 3<>/dev/tcp/${ip}/${port}`]);
    expect(r.stderr).toBe('');
  }
  await waitFor(() => listeners.reduce((n, l) => n + l.accepted, 0) === 2, 'the host at its own listeners');
  const r = await sh(
    'a',
    [
      tcpProbe(hostEnd, anyAddr!.port),
      tcpProbe('127.0.0.1', anyAddr!.port),
      tcpProbe('127.0.0.1', loopback!.port),
    ].join('; '),
  );
  const lines = r.stdout.trim().split('\n');
  expect(lines.filter((l) => l === 'open')).toEqual([]);
  // The host end answers "no route" (the firewall's admin-prohibited), loopback is the VM's own.
  expect(r.stdout).toMatch(/No route to host/);
  expect(listeners.reduce((n, l) => n + l.accepted, 0)).toBe(2);
});

it('has no route to another VM, to link-local metadata, to private ranges or off the machine', async () => {
  const b = host.describe('b').record;
  const targets = [
    b.ip,
    vmLink(b.slot, b.user).hostIp,
    '169.254.169.254',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '192.0.2.1',
    '8.8.8.8',
  ];
  const r = await sh('a', targets.map((t) => `/usr/sbin/ip route get ${t} 2>&1`).join('; '));
  expect(r.stdout.trim().split('\n')).toEqual(targets.map(() => 'RTNETLINK answers: Network is unreachable'));
  // Its whole routing table: its own link, nothing else (no default route), and no IPv6 address.
  const a = host.describe('a').record;
  const routes = await sh(
    'a',
    '/usr/sbin/ip -4 route show; /usr/sbin/ip -6 addr show scope global; /usr/sbin/ip -6 addr show scope link',
  );
  expect(routes.stdout.trim()).toBe(`198.19.${a.slot}.0/30 dev eth0 proto kernel scope link src ${a.ip}`);
  // And the other VM's sshd and VNC, tried anyway: unreachable.
  const tries = await sh('a', [tcpProbe(b.ip, b.sshPort), tcpProbe(b.ip, b.vncPort)].join('; '));
  expect(tries.stdout).not.toMatch(/open/);
  expect(tries.stdout).toMatch(/Network is unreachable/);
});

it("cannot bind another VM's address, nor its own service ports", async () => {
  const b = host.describe('b').record;
  const a = host.describe('a').record;
  const bind = (ip: string, port: number) =>
    `/usr/bin/python3 -c "import socket; s=socket.socket(); s.bind(('${ip}', ${port})); print('bound')" 2>&1 | tail -1`;
  const r = await sh('a', [bind(b.ip, 0), bind(a.ip, a.sshPort), bind(a.ip, a.vncPort)].join('; '));
  const [other, ssh, vnc] = r.stdout.trim().split('\n');
  expect(other).toMatch(/Cannot assign requested address/);
  expect(ssh).toMatch(/Permission denied/);
  expect(vnc).toMatch(/Address already in use/);
});

it("reaches no other VM's X server, while its own desktop answers through its namespace", async () => {
  const b = host.describe('b');
  const connect = (path: string) =>
    `/usr/bin/python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${path}'); print('connected')" 2>&1 | tail -1`;
  // B's cookie file, byte for byte: with it, any server of B's would let A in.
  const bCookie = [...readFileSync(b.paths.xauthority)]
    .map((x) => `\\x${x.toString(16).padStart(2, '0')}`)
    .join('');
  const r = await sh(
    'a',
    [
      'ls -A /tmp/.X11-unix | wc -l',
      // B's socket file, by the path the driver uses.
      connect(b.record.xSocket!),
      'xdpyinfo >/dev/null && echo own-display-ok',
      // Every VM's display is :0; the one A reaches (its namespace's abstract socket) is A's own.
      `printf '${bCookie}' > /tmp/b-cookie`,
      `XAUTHORITY=/tmp/b-cookie DISPLAY=${b.record.display} xdpyinfo >/dev/null 2>&1 && echo b-cookie-let-in || echo b-cookie-refused`,
    ].join('; '),
  );
  const [count, fsSocket, own, withBCookie] = r.stdout.trim().split('\n');
  expect(count).toBe('0');
  expect(fsSocket).toMatch(/No such file|Permission denied/);
  expect(own).toBe('own-display-ok');
  expect(withBCookie).toBe('b-cookie-refused');
});

it('keeps /tmp, /var/tmp, /run/lock and /dev/shm private to each VM, on its own disk, and nothing (files, message queues) past a reboot', async () => {
  const a = host.describe('a');
  const mark = `escape-${Date.now()}`;
  const w = await sh(
    'a',
    `for d in /tmp /var/tmp /run/lock /dev/shm; do echo secret > $d/${mark}; done; echo ok`,
  );
  expect(w.stdout.trim()).toBe('ok');
  const seen = await sh(
    'b',
    `ls /tmp/${mark} /var/tmp/${mark} /run/lock/${mark} /dev/shm/${mark} 2>&1 | grep -c 'No such file'`,
  );
  expect(seen.stdout.trim()).toBe('4');
  for (const d of ['/tmp', '/var/tmp', '/run/lock', '/dev/shm'])
    expect(existsSync(join(d, mark))).toBe(false);
  // On the VM's bounded disk, where the host sees it.
  expect(readFileSync(join(a.paths.disk, 'tmp', mark), 'utf8')).toBe('secret\n');
  // A POSIX message queue outlives its creator, as files do: the next boot (the same user) finds none.
  const mq = (flags: string) =>
    `/usr/bin/python3 -c "import ctypes, os; rt = ctypes.CDLL('librt.so.1', use_errno=True); ` +
    `fd = rt.mq_open(b'/${mark}', ${flags}, 0o600, None); print(fd if fd >= 0 else os.strerror(ctypes.get_errno()))"`;
  expect((await sh('a', mq('os.O_CREAT | os.O_RDWR'))).stdout.trim()).toMatch(/^\d+$/);
  expect((await sh('a', mq('os.O_RDWR'))).stdout.trim()).toMatch(/^\d+$/);
  await host.stopVm('a');
  await host.startVm('a');
  const after = await sh('a', `ls -A /tmp /var/tmp /dev/shm | grep -c ${mark} || true`);
  expect(after.stdout.trim()).toBe('0');
  expect((await sh('a', mq('os.O_RDWR'))).stdout.trim()).toBe('No such file or directory');
});

it("cannot fill the machine's disks: its runtime dir is a bounded tmpfs of its own, charged to it", async () => {
  const a = host.describe('a');
  const runtime = a.paths.runtimeDir;
  // From the machine: a tmpfs owned by the VM user, sized at a tenth of the VM's memory.
  const mount = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((l) => l.split(' ')[4] === runtime);
  expect(mount).toMatch(/ - tmpfs sandbay-run /);
  const df = await sh('a', 'df -k --output=fstype,size "$XDG_RUNTIME_DIR" | tail -1');
  const [fstype, sizeKiB] = df.stdout.trim().split(/\s+/);
  expect(fstype).toBe('tmpfs');
  expect(Number(sizeKiB)).toBe(Math.floor((a.record.memoryGiB * 1024) / 10) * 1024);
  // Writing past it fails in the VM (ENOSPC), and the machine's root disk is where it was.
  const before = statfsSync('/').bfree;
  const fill = await sh(
    'a',
    '{ head -c 2G /dev/zero > "$XDG_RUNTIME_DIR/fill"; } 2>&1; echo "$?"; rm -f "$XDG_RUNTIME_DIR/fill"',
  );
  expect(fill.stdout).toMatch(/No space left on device\n1\n$/);
  expect(Math.abs(statfsSync('/').bfree - before) * statfsSync('/').bsize).toBeLessThan(256 * 1024 * 1024);
});

it("keeps each VM's SysV shared memory and message queues and its POSIX queues out of every other VM's sight", async () => {
  // Made world-readable and writable by VM a, under a fixed key and name: only the namespace can
  // keep VM b (another user, but mode 0666 would let it in) and the machine from finding them.
  const key = 0x5bc0_0000 + (Date.now() % 0xffff);
  const name = `/escape-${key}`;
  const ipc = (create: boolean) =>
    `/usr/bin/python3 -c "` +
    `import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); rt = ctypes.CDLL('librt.so.1', use_errno=True); ` +
    `flags = (0o1000 | 0o666) if ${create ? 'True' : 'False'} else 0; ` +
    `out = lambda r: str(r) if r >= 0 else os.strerror(ctypes.get_errno()); ` +
    `print(out(libc.shmget(${key}, 4096 if flags else 0, flags))); ` +
    `print(out(libc.msgget(${key}, flags))); ` +
    `print(out(rt.mq_open(b'${name}', (os.O_CREAT | os.O_RDWR) if flags else os.O_RDWR, 0o666, None)))"`;
  const made = (await sh('a', ipc(true))).stdout.trim().split('\n');
  expect(made).toHaveLength(3);
  for (const id of made) expect(id).toMatch(/^\d+$/);
  // VM a finds its own again (each call its own process: the objects outlive their creator).
  for (const id of (await sh('a', ipc(false))).stdout.trim().split('\n')) expect(id).toMatch(/^\d+$/);
  // VM b finds none of them, and its own listing shows none of VM a's.
  expect((await sh('b', ipc(false))).stdout.trim().split('\n')).toEqual([
    'No such file or directory',
    'No such file or directory',
    'No such file or directory',
  ]);
  const keyHex = `0x${key.toString(16).padStart(8, '0')}`;
  expect((await sh('b', 'ipcs -m -q')).stdout).not.toContain(keyHex);
  // Nor does the machine: they live in VM a's IPC namespace, which is not the machine's.
  expect((await run('ipcs', ['-m', '-q'])).stdout).not.toContain(keyHex);
  expect((await sh('a', 'ipcs -m -q')).stdout).toContain(keyHex);
  const a = host.describe('a');
  expect(ipcNsOf(a.procs.sshd!)).toMatch(/^ipc:\[\d+\]$/);
  expect(ipcNsOf(a.procs.sshd!)).not.toBe(ipcNsOf(process.pid));
  expect(ipcNsOf(a.procs.sshd!)).not.toBe(ipcNsOf(host.describe('b').procs.sshd!));
  // The X server is in it too, so x11vnc's MIT-SHM segments (SysV, by id) mean the same to both:
  // each is attached twice, by x11vnc and by Xvfb.
  expect(ipcNsOf(a.procs.xvfb!)).toBe(ipcNsOf(a.procs.sshd!));
  expect(ipcNsOf(a.procs.vnc!)).toBe(ipcNsOf(a.procs.sshd!));
  const shared = (await sh('a', 'ipcs -m')).stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[2] === a.record.user && Number(f[5]) >= 2);
  expect(shared.length).toBeGreaterThan(0);
});

it("sees only its own processes: not the other VM's, not the machine's, not its own X server", async () => {
  const [a, b] = [host.describe('a'), host.describe('b')];
  const list = await sh('a', 'ps -e -o pid=,user=,comm=');
  const rows = list.stdout
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/));
  const users = new Set(rows.map((r) => r[1]));
  // Its own user's desktop and root's parts of the VM (PID 1, its sshd): nobody else's.
  expect([...users].sort()).toEqual([a.record.user, 'root'].sort());
  const programs = rows.map((r) => r[2]);
  expect(programs).toEqual(expect.arrayContaining(['tini', 'sshd', 'xfce4-session', 'x11vnc']));
  expect(programs).not.toContain('Xvfb');
  // PID 1 is the VM's own init; /proc holds its processes only.
  expect(rows.find((r) => r[0] === '1')?.[2]).toBe('tini');
  // The machine's PIDs of the other VM's processes and of its own X server name nothing in it: no
  // such process to signal or to trace (by PID: a number that happens to be one of its own is not checked).
  const ownPids = new Set(rows.map((r) => Number(r[0])));
  const foreign = [b.procs.sshd!, b.procs.session!, b.procs.xvfb!, a.procs.xvfb!, process.pid].filter(
    (pid) => !ownPids.has(pid),
  );
  expect(foreign.length).toBeGreaterThan(0);
  const probe = await sh(
    'a',
    foreign
      .map(
        (pid) =>
          `kill -0 ${pid} 2>/dev/null && echo "${pid} reachable"; [ -e /proc/${pid} ] && echo "${pid} in /proc"`,
      )
      .join('\n') + '\ntrue',
  );
  expect(probe.stdout).toBe('');
  // Seen from the machine: the VM's processes are in a PID namespace of their own, one per VM.
  expect(nsPids(a.procs.sshd!)).toHaveLength(2);
  const pidNs = (pid: number) => readlinkSync(`/proc/${pid}/ns/pid`);
  expect(pidNs(a.procs.sshd!)).not.toBe(pidNs(b.procs.sshd!));
  expect(pidNs(a.procs.session!)).toBe(pidNs(a.procs.sshd!));
  expect(pidNs(a.procs.xvfb!)).toBe(pidNs(process.pid));
});

it('leaves no namespace, link or mount of a VM after power-off', async () => {
  const a = host.describe('a');
  const link = vmLink(a.record.slot, a.record.user);
  // The VM's mount namespace is the one its sshd runs in, not the machine's.
  // Held open, so that no other VM's namespace can get its number meanwhile (namespace-hold.ts).
  const mountNs = holdNamespace(a.procs.sshd!, 'mnt');
  expect(mountNs).toMatch(/^mnt:\[\d+\]$/);
  expect(mountNs).not.toBe(mountNsOf(process.pid));
  const present = async () => ({
    netns: (await run('ip', ['netns', 'list'])).stdout.includes(link.netns),
    link: (await run('ip', ['-o', 'link', 'show'])).stdout.includes(`${link.hostIf}@`),
    // The processes still in it, by pid and name (empty once it is gone), so a failure says which.
    mountNs: readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid) && mountNsOf(Number(pid)) === mountNs)
      .map((pid) => `${pid} ${commandLine(pid)}`),
    sshdDir: existsSync(`/run/sandbay-linux/sshd/${a.record.user}`),
  });
  const running = await present();
  expect(running).toMatchObject({ netns: true, link: true, sshdDir: true });
  expect(running.mountNs.length).toBeGreaterThan(0);
  await host.stopVm('a');
  expect(await present()).toEqual({ netns: false, link: false, mountNs: [], sshdDir: false });
});
