// The linux host on real desktops: every claim is checked by its effect on the machine (a display
// that answers, sockets bound where they should be, an SSH login, cgroup files, /proc, the home).
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverError } from '../driver.ts';
import { createLinuxDriver, type LinuxDriver, type LinuxHost } from './index.ts';
import { isMounted } from './overlay.ts';
import { greets } from './probe.ts';
import { generateSshKey } from './sshd.ts';
import { liveUserPids } from './vm-user.ts';
import { XProbe } from './x-probe.ts';
import { holdNamespace } from '../../test/support/namespace-hold.ts';
import { nsPids } from '../../test/support/pid-namespaces.ts';
import { sshExec } from '../../test/support/vm-ssh.ts';

const IMAGE = 'base-macos-26';
let dataDir: string;
let driver: LinuxDriver;
let host: LinuxHost;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sandbay-linux-host-'));
  driver = createLinuxDriver({ dataDir, discardOnClose: true, maxVms: 3 });
  host = driver.host({ name: 'test', address: '127.0.0.1', model: 'm4' });
  await Promise.all([
    host.createVm({ name: 'a', image: IMAGE, cpu: 2, memoryGiB: 4 }),
    host.createVm({ name: 'b', image: IMAGE, cpu: 2, memoryGiB: 4 }),
  ]);
  await host.startVm('a');
  await host.startVm('b');
});

afterAll(async () => {
  await driver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function ssh(name: string, command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return sshExec(host.describe(name).record, command);
}

/** A login as `user` with `sshPrivateKey` at the VM's address (a key or user that is not the VM's). */
function sshAs(ip: string, sshPort: number, user: string, sshPrivateKey: string, command: string) {
  return sshExec({ ip, sshPort, user, sshPrivateKey }, command);
}

/** Listening TCP sockets (address:port) of a process, from /proc (IPv4 and IPv6). */
function listeningSockets(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const m = /^socket:\[(\d+)\]$/.exec(safeReadlink(`/proc/${pid}/fd/${fd}`));
    if (m) inodes.add(m[1]!);
  }
  const out: string[] = [];
  // The process's own network namespace's table (the VM's, not this test's).
  for (const [file, v6] of [
    [`/proc/${pid}/net/tcp`, false],
    [`/proc/${pid}/net/tcp6`, true],
  ] as const) {
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] !== '0A' || !inodes.has(f[9]!)) continue; // 0A = LISTEN
      const [addr, port] = f[1]!.split(':') as [string, string];
      const ip = v6 ? `v6:${addr}` : Buffer.from(addr, 'hex').reverse().join('.');
      out.push(`${ip}:${parseInt(port, 16)}`);
    }
  }
  return out;
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** A process that exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

function safeReadlink(p: string): string {
  try {
    return readlinkSync(p);
  } catch {
    return '';
  }
}

/** Reads the server's RFB version and, after answering it, the security types it offers. */
function rfbSecurityTypes(ip: string, port: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: ip, port });
    let buf = Buffer.alloc(0);
    let sentVersion = false;
    s.on('data', (b: Buffer) => {
      buf = Buffer.concat([buf, b]);
      if (!sentVersion && buf.length >= 12) {
        expect(buf.subarray(0, 4).toString()).toBe('RFB ');
        s.write('RFB 003.008\n');
        sentVersion = true;
        buf = buf.subarray(12);
      }
      if (sentVersion && buf.length >= 1 && buf.length >= 1 + buf[0]!) {
        s.destroy();
        resolve([...buf.subarray(1, 1 + buf[0]!)]);
      }
    });
    s.on('error', reject);
  });
}

/** The ids of the objects in a /proc/sysvipc table (`shm`, `sem`) whose owner is `uid`. */
function ipcIdsOf(table: string, uid: number): string[] {
  const [head = '', ...rows] = table.trim().split('\n');
  const uidColumn = head.trim().split(/\s+/).indexOf('uid');
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter((f) => Number(f[uidColumn]) === uid)
    .map((f) => f[1]!);
}

/** Owner and permission bits of `path` itself (never a link's target). */
function ownerAndMode(path: string): { uid: number; mode: number } {
  const st = lstatSync(path);
  return { uid: st.uid, mode: st.mode & 0o7777 };
}

describe('linux host', () => {
  it('boots a desktop whose display answers only with its cookie, managed by a window manager', async () => {
    const { record, paths } = host.describe('a');
    const cookie = readFileSync(paths.xauthority).subarray(-16);
    const x = await XProbe.connect(record.xSocket!, cookie);
    const owner = await x.selectionOwner(await x.internAtom('WM_S0'));
    x.close();
    expect(owner).not.toBe(0);
    await expect(XProbe.connect(record.xSocket!, Buffer.alloc(16))).rejects.toThrow(/refused/);
    // The X socket dir is the driver's (root, world-writable and sticky), not the first VM user's.
    expect(ownerAndMode('/tmp/.X11-unix')).toEqual({ uid: 0, mode: 0o1777 });
    // The VM's socket file is not in it (a root X server started later would unlink it there), but
    // in a dir of the VM's that only root can reach (fresh-tmp.test.ts starts such a server).
    expect(record.xSocket).toBe(join(paths.xTmpDir, '.X11-unix', 'X0'));
    expect(ownerAndMode(dirname(record.xSocket!))).toEqual({ uid: 0, mode: 0o1777 });
    expect(ownerAndMode(paths.xTmpDir)).toEqual({ uid: 0, mode: 0o1777 });
    expect(ownerAndMode(dirname(paths.xTmpDir))).toEqual({ uid: 0, mode: 0o700 });
    expect(
      readdirSync('/tmp/.X11-unix').filter((f) => statSync(`/tmp/.X11-unix/${f}`).uid === record.uid),
    ).toEqual([]);
  });

  it('serves VNC with a password on the VM address only', async () => {
    const { record, procs } = host.describe('a');
    expect(await greets(record.ip, record.vncPort, 'RFB ')).toBe(true);
    expect(await rfbSecurityTypes(record.ip, record.vncPort)).toEqual([2]); // VNC authentication, no "None"
    expect(listeningSockets(procs.vnc!)).toEqual([`${record.ip}:${record.vncPort}`]);
    expect(await greets('127.0.0.1', record.vncPort, 'RFB ')).toBe(false);
  });

  it('lets the VM key log in over SSH into the desktop session, and no other key', async () => {
    const { record } = host.describe('a');
    const r = await ssh('a', 'id -un; pwd; echo "$DISPLAY"; echo "$XDG_RUNTIME_DIR"');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      record.user,
      record.home,
      record.display,
      `/run/user/${record.uid}`,
      '',
    ]);
    const stranger = generateSshKey('stranger');
    await expect(sshAs(record.ip, record.sshPort, record.user, stranger.privateKey, 'true')).rejects.toThrow(
      /authentication/i,
    );
    const other = host.describe('b').record;
    await expect(sshAs(record.ip, record.sshPort, other.user, other.sshPrivateKey, 'true')).rejects.toThrow(
      /authentication/i,
    );
  });

  it('ships a terminal and a text editor that open windows on the desktop', async () => {
    // A window shows in the tree as `"title": ("instance" "Class")`; the shell retitles a terminal, so match classes.
    const waitForWindow = (text: string) =>
      `(for i in $(seq 200); do xwininfo -root -tree | grep -qF '${text}' && exit 0; sleep 0.1; done; exit 1) || { echo "no ${text} window" >&2; exit 1; }`;
    const r = await ssh(
      'a',
      [
        'setsid -f mousepad ~/Desktop/README.txt >/dev/null 2>&1 </dev/null',
        'setsid -f xfce4-terminal >/dev/null 2>&1 </dev/null',
        waitForWindow('("mousepad" "Mousepad")'),
        waitForWindow('("xfce4-terminal" "Xfce4-terminal")'),
      ].join('\n'),
    );
    expect(r).toMatchObject({ code: 0, stderr: '' });
  });

  it('sets the cgroup limits it is given and refuses to resize a running VM', async () => {
    expect(host.describe('a').cgroup.readLimits()).toMatchObject({ cpu: 2, memoryGiB: 4 });
    await expect(host.resizeVm('a', { cpu: 3, memoryGiB: 6 })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await host.createVm({ name: 'c', image: IMAGE, cpu: 2, memoryGiB: 4 });
    await host.resizeVm('c', { cpu: 3, memoryGiB: 6 });
    expect(host.describe('c').cgroup.readLimits()).toEqual({ cpu: 3, memoryGiB: 6, pidsMax: 4096 });
    await host.deleteVm('c');
  });

  it('boots a VM at the lowest CPU weight and gives it the default once it runs', async () => {
    await host.createVm({ name: 'c', image: IMAGE, cpu: 2, memoryGiB: 4 });
    const cgroup = host.describe('c').cgroup;
    expect(cgroup.cpuWeight()).toBe(100);
    let booted = false;
    const boot = host.startVm('c').finally(() => (booted = true));
    // The weight drops before the boot's first process starts and holds until the boot returns.
    const seen = new Set<number>();
    while (!booted) {
      seen.add(cgroup.cpuWeight());
      await delay(5);
    }
    await boot;
    expect(seen).toContain(1);
    expect(cgroup.cpuWeight()).toBe(100);
    await host.deleteVm('c');
  });

  it('keeps each home private to its VM, screen included', async () => {
    const a = host.describe('a').record;
    const b = host.describe('b').record;
    const r = await ssh(
      'a',
      `ls ${b.home}; cat ${b.home}/Desktop/README.txt; cat /run/user/${b.uid}/Xauthority`,
    );
    expect(r.stdout).toBe('');
    // The other home is not even mounted in this VM's mount namespace (`ls` lists an empty mount
    // point), and the other runtime dir is the other user's.
    expect(r.stderr.match(/Permission denied|No such file/g)?.length).toBe(2);
    const own = await ssh('a', `cat ${a.home}/Desktop/README.txt`);
    expect(own.stdout).toContain('sandbay desktop');
  });

  it('leaves no process, temp file or IPC object of the VM after delete, even ones that left its session', async () => {
    // A process that leaves the session (its own session, no terminal), files in shared temp dirs,
    // and System V IPC objects: all outlive their creator unless the driver sweeps them.
    const made = await ssh(
      'b',
      [
        `setsid sh -c 'echo $$ > /tmp/b-sleeper; exec sleep 600' >/dev/null 2>&1 < /dev/null &`,
        'for i in $(seq 100); do [ "$(cat /proc/$(cat /tmp/b-sleeper 2>/dev/null)/comm 2>/dev/null)" = sleep ] && break; sleep 0.05; done',
        'echo secret > /dev/shm/b-note',
        `perl -e 'print shmget(0, 4096, 0600 | 01000), " ", semget(0, 1, 0600 | 01000), " "'`,
        'cat /tmp/b-sleeper',
      ].join('\n'),
    );
    const [shmId, semId, sleeperInVm] = made.stdout.trim().split(' ');
    const { record, pids, cgroup } = host.describe('b');
    // The VM's shell sees its own PID namespace: its PID is the machine's NSpid entry of a member.
    const sleeperPid = cgroup.pids().find((p) => nsPids(p).at(-1) === Number(sleeperInVm));
    expect(comm(Number(sleeperPid))).toBe('sleep');
    const sleeper = [Number(sleeperPid)];
    const members = cgroup.pids();
    expect(members).toEqual(expect.arrayContaining([...pids, ...sleeper]));
    // The segment lives in the VM's own IPC namespace: seen from inside it, not from the machine's.
    // (By owner: ids are numbered per namespace, and the machine's has other desktops' segments.)
    // Held open, so that no other VM's namespace can get its number meanwhile (namespace-hold.ts).
    const vmIpc = holdNamespace(Number(sleeperPid), 'ipc');
    expect(vmIpc).not.toBe(readlinkSync('/proc/self/ns/ipc'));
    const inVm = (table: string) =>
      execFileSync('nsenter', [`--ipc=/proc/${sleeperPid}/ns/ipc`, 'cat', `/proc/sysvipc/${table}`], {
        encoding: 'utf8',
      });
    expect(ipcIdsOf(inVm('shm'), record.uid)).toContain(shmId);
    expect(ipcIdsOf(inVm('sem'), record.uid)).toContain(semId);
    const onMachine = (table: string) => ipcIdsOf(readFileSync(`/proc/sysvipc/${table}`, 'utf8'), record.uid);
    expect([onMachine('shm'), onMachine('sem')]).toEqual([[], []]);

    const a = host.describe('a');
    const aSocket = a.record.xSocket!;
    const bSocket = record.xSocket!;
    expect(existsSync(aSocket) && existsSync(bSocket)).toBe(true);

    await host.deleteVm('b');
    // b's power-off took b's X socket (and its dir) only: the machine's socket dir and a's socket (and display) stay.
    expect(ownerAndMode('/tmp/.X11-unix')).toEqual({ uid: 0, mode: 0o1777 });
    expect(existsSync(bSocket)).toBe(false);
    expect(existsSync(aSocket)).toBe(true);
    const x = await XProbe.connect(a.record.xSocket!, readFileSync(a.paths.xauthority).subarray(-16));
    x.close();
    expect(liveUserPids(record.uid)).toEqual([]);
    expect(members.filter(alive)).toEqual([]);
    expect(isMounted(record.home)).toBe(false);
    expect(existsSync('/tmp/b-sleeper') || existsSync('/dev/shm/b-note')).toBe(false);
    // No process is left in the VM's IPC namespace, so the namespace and every object in it are gone;
    // and none of them was ever in the machine's.
    expect(processesInNamespace(vmIpc)).toEqual([]);
    expect([onMachine('shm'), onMachine('sem')]).toEqual([[], []]);
    expect((await host.listVms()).map((v) => v.name)).toEqual(['a']);
  });

  it('gives a fresh clone the template home again', async () => {
    await ssh('a', 'echo mine > ~/Desktop/note.txt && rm ~/Desktop/README.txt');
    expect((await ssh('a', 'ls ~/Desktop')).stdout).toBe('note.txt\n');
    await host.deleteVm('a');
    await host.createVm({ name: 'a', image: IMAGE, cpu: 2, memoryGiB: 4 });
    await host.startVm('a');
    expect((await ssh('a', 'ls ~/Desktop')).stdout).toBe('README.txt\n');
  });

  it('carries a disk delta (new, changed and deleted files) to another VM of the same image', async () => {
    await ssh(
      'a',
      'mkdir -p ~/work && echo delta > ~/work/f.txt && rm ~/Desktop/README.txt && echo x >> ~/.bashrc',
    );
    const file = join(dataDir, 'a.tgz');
    const info = await host.exportDelta('a', file);
    expect(info.bytes).toBe(readFileSync(file).length);
    expect(info.sha256).toMatch(/^[0-9a-f]{64}$/);
    await host.createVm({ name: 'd', image: IMAGE, cpu: 2, memoryGiB: 4 });
    await host.importDelta('d', file);
    await host.startVm('d');
    const r = await ssh('d', 'cat ~/work/f.txt; ls ~/Desktop; tail -1 ~/.bashrc; stat -c %U ~/work/f.txt');
    expect(r.stdout).toBe(`delta\nx\n${host.describe('d').record.user}\n`);
    await expect(host.importDelta('d', file)).rejects.toMatchObject({ code: 'invalid_argument' });
    await host.createVm({ name: 'd', image: 'base-macos-26-whole', cpu: 2, memoryGiB: 4 });
    await expect(host.importDelta('d', file)).rejects.toThrow(/image base-macos-26/);
    await host.deleteVm('d');
  });

  it("exports a running VM's delta as of one instant, the VM frozen while it is read", async () => {
    // A writer appends the same line to one file, then the other, without end: at any one instant
    // the first holds as many lines as the second, or one more. A copy read while it runs (the
    // second file read later than the first) holds more lines in the second.
    await ssh(
      'a',
      'mkdir -p ~/pit && head -c 20000000 /dev/urandom > ~/pit/bulk && ' +
        "{ nohup sh -c 'while :; do echo line >> ~/pit/1; echo line >> ~/pit/2; done' </dev/null >/dev/null 2>&1 & } && " +
        'while [ ! -s ~/pit/2 ]; do sleep 0.01; done; echo started',
    );
    const { cgroup } = host.describe('a');
    let sawFrozen = false;
    const look = setInterval(() => (sawFrozen ||= cgroup.frozen()), 1);
    const file = join(dataDir, 'pit.tgz');
    try {
      await host.exportDelta('a', file);
    } finally {
      clearInterval(look);
    }
    expect(sawFrozen).toBe(true);
    expect(cgroup.frozen()).toBe(false);
    const lines = (name: string) =>
      execFileSync('tar', ['-xzOf', file, `upper/pit/${name}`], { maxBuffer: 1 << 30 })
        .toString()
        .split('\n').length - 1;
    const [first, second] = [lines('1'), lines('2')];
    expect(first - second).toBeGreaterThanOrEqual(0);
    expect(first - second).toBeLessThanOrEqual(1);
    // Thawed: the VM answers and its writer goes on.
    const after = await ssh('a', 'wc -l < ~/pit/1; pkill -u "$(id -u)" -f "while :"; rm -rf ~/pit');
    expect(Number(after.stdout.trim())).toBeGreaterThanOrEqual(first);
  });

  it('rejects bad input without changing anything', async () => {
    const before = await host.listVms();
    const bad = [
      { name: 'Bad_Name', image: IMAGE, cpu: 2, memoryGiB: 4 },
      { name: 'e', image: 'no-such-image', cpu: 2, memoryGiB: 4 },
      { name: 'e', image: IMAGE, cpu: 11, memoryGiB: 4 },
      { name: 'e', image: IMAGE, cpu: 2, memoryGiB: 0 },
    ];
    for (const spec of bad) await expect(host.createVm(spec)).rejects.toBeInstanceOf(DriverError);
    await expect(host.startVm('nope')).rejects.toMatchObject({ code: 'not_found' });
    expect(await host.listVms()).toEqual(before);
  });

  it('kills every process it started when the driver closes', async () => {
    const { record, pids } = host.describe('a');
    await driver.close();
    expect(liveUserPids(record.uid)).toEqual([]);
    expect(pids.filter(alive)).toEqual([]);
    expect(isMounted(record.home)).toBe(false);
  });
});

/** PIDs of the processes whose IPC namespace is `ns` (a /proc/PID/ns/ipc link text). */
function processesInNamespace(ns: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readlinkSync(`/proc/${d}/ns/ipc`) === ns;
      } catch {
        return false; // exited meanwhile
      }
    })
    .map(Number);
}
