// Emulated Macs for tests and for trying sandbay without a Mac: each is a network namespace with a
// real OpenSSH server (root login with the control plane's key, as an operator's account on a Mac
// mini) and a `tart` and a `sysctl` on its PATH that answer as a Mac running Tart does. Its images
// are local Tart VMs whose guest authorizes the same key for `admin`. Everything lives under one root
// dir, so `downAll` removes every namespace, process and file the Macs made.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  renameSync,
  existsSync,
  truncateSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { IMAGES, MAC_PROFILES } from '../../../crds/mac-models.ts';
import { API_VERSION, type MacModel } from '../../../crds/meta.ts';
import { currentOwner, ownerAlive, type ClaimOwner } from '../../../hosts/linux/claims.ts';
import { pidAlive } from '../../../hosts/linux/proc.ts';
import { run, signalPid, waitUntil } from '../../../hosts/linux/runner.ts';
import { generateSshKey } from '../../../hosts/linux/sshd.ts';
import { greets } from '../../../hosts/linux/probe.ts';
import { findUser, removeShm, removeUserTempFiles } from '../../../hosts/linux/vm-user.ts';
import {
  claimLink,
  claimedLinks,
  createMacNetwork,
  deleteMacNetwork,
  dropUnreachableRouteIfUnused,
  macLink,
  namespaces,
  readLinkClaim,
  releaseLink,
  type MacLink,
} from './network.ts';
import { scriptCommand } from '../../../fleet/scripts.ts';
import { sshRun } from '../../../fleet/ssh-run.ts';
import { writeGuestEnv } from './guest-env.ts';
import { swiftPretty, VM_SLOTS, type TartConfig } from './tart-store.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../../..');
export const DEFAULT_ROOT = '/var/lib/sandbay-emulated-macs';

export interface EmulatedMac {
  name: string;
  address: string;
  model: MacModel;
  link: number;
  netns: string;
  dir: string;
  /** The Mac's TART_HOME. */
  tartHome: string;
}

export interface Fleet {
  root: string;
  /** The OpenSSH private key that logs into every Mac (as root) and every guest (as admin). */
  privateKey: string;
  macs: EmulatedMac[];
}

/** The key every Mac and guest of the fleet under `root` admits (made once per root). */
function fleetKey(root: string): { privateKey: string; publicKey: string } {
  const file = join(root, 'control_key');
  mkdirSync(root, { recursive: true, mode: 0o755 });
  // Guest users (each VM's own uid) must traverse it to their homes, even under a mkdtemp 0700 dir.
  chmodSync(root, 0o755);
  for (let d = dirname(root); d !== '/'; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) {
      throw new Error(
        `${d} is not searchable by other users: the emulated guests' homes under ${root} would be unreachable`,
      );
    }
  }
  if (!existsSync(file)) {
    const k = generateSshKey('sandbay-control-plane');
    writeFileSync(file, k.privateKey, { mode: 0o600 });
    writeFileSync(`${file}.pub`, `${k.publicKey}\n`);
  }
  return { privateKey: readFileSync(file, 'utf8'), publicKey: readFileSync(`${file}.pub`, 'utf8').trim() };
}

/**
 * Creates `count` more Macs under `root`. They go with `owner`, by default this process
 * (`sweepAbandonedMacs` removes them once it is gone without removing them); `owner: undefined`
 * (`emulated-macs up` by hand) keeps them until `down`.
 */
export async function upMacs(
  root: string,
  count: number,
  model: MacModel = 'm4',
  opts: { owner?: ClaimOwner | undefined; prepared?: boolean } = {},
): Promise<Fleet> {
  const key = fleetKey(root);
  const macs: EmulatedMac[] = [];
  const owner = 'owner' in opts ? opts.owner : currentOwner();
  for (let i = 0; i < count; i++) {
    const mac = await upMac(root, model, key.publicKey, owner);
    macs.push(mac);
    if (opts.prepared !== false) await prepareMac(mac, key.privateKey);
  }
  return { root, privateKey: key.privateKey, macs };
}

async function upMac(
  root: string,
  model: MacModel,
  publicKey: string,
  owner: ClaimOwner | undefined,
): Promise<EmulatedMac> {
  const l = claimLink(resolve(root), owner);
  const dir = join(root, 'macs', l.netns);
  const mac: EmulatedMac = {
    name: `emulated-${l.link}`,
    address: l.macIp,
    model,
    link: l.link,
    netns: l.netns,
    dir,
    tartHome: join(dir, 'home', '.tart'),
  };
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'bin'), { recursive: true });
    mkdirSync(join(dir, 'opt', 'homebrew', 'bin'), { recursive: true });
    mkdirSync(mac.tartHome, { recursive: true });
    writeFileSync(join(dir, 'mac.json'), JSON.stringify({ netns: l.netns, link: l.link, model }));
    writeExecutables(mac);
    writeBootTime(mac);
    for (const image of Object.values(IMAGES)) makeImage(root, mac, image.name, image.diskGiB, publicKey);
    await createMacNetwork(l);
    await startMacSshd(mac, l, publicKey);
    return mac;
  } catch (e) {
    await downMac(root, l.link);
    throw e;
  }
}

/**
 * What the fleet's Pulumi program does to a Mac that the driver needs before its first VM: Softnet's
 * SUID bit (fleet/scripts/install-softnet.sh, over SSH as the program runs it). `prepared: false`
 * leaves a Mac as Homebrew installed it, for the tests of that preparation.
 */
async function prepareMac(mac: EmulatedMac, privateKey: string): Promise<void> {
  const r = await sshRun(
    { host: mac.address, port: 22, username: 'root', privateKey },
    scriptCommand('install-softnet', { MAC_NAME: mac.name }),
  );
  if (r.code !== 0) throw new Error(`preparing ${mac.name}: ${r.stderr.trim()}`);
}

/** `sysctl kern.boottime` as macOS prints it: `{ sec = …, usec = … } Tue Nov 24 07:20:00 2026`. */
function writeBootTime(mac: EmulatedMac): void {
  const now = Date.now();
  const d = new Date(now);
  // ctime(3): the day of the month padded with a space ("Nov  4").
  const [day, , month] = d.toUTCString().split(' ');
  const date = String(d.getUTCDate()).padStart(2, ' ');
  const ctime = `${day!.slice(0, 3)} ${month} ${date} ${d.toISOString().slice(11, 19)} ${d.getUTCFullYear()}`;
  const text = `{ sec = ${Math.floor(now / 1000)}, usec = ${(now % 1000) * 1000} } ${ctime}`;
  writeFileSync(join(mac.dir, 'boottime'), `${text}\n`);
}

/** `tart` runs this checkout's emulation under the project's Node; `sysctl` answers as macOS does. */
function writeExecutables(mac: EmulatedMac): void {
  const node = join(REPO, 'node_modules', '.bin', 'node');
  const cli = join(HERE, 'tart-cli.ts');
  // (`tart run` starts each VM in namespaces of its own: tart-run.ts.)
  const tart = `#!/bin/sh
exec ${node} ${cli} "$@"
`;
  const p = MAC_PROFILES[mac.model];
  const values: Record<string, string> = {
    'hw.ncpu': String(p.cores),
    'hw.memsize': String(p.memoryGiB * 1024 ** 3),
    'hw.model': 'Mac16,10',
    'kern.osproductversion': '15.6',
  };
  const cases = [
    ...Object.entries(values).map(
      ([k, v]) => `    ${k}) if [ "$n" = 1 ]; then echo ${v}; else echo "${k}: ${v}"; fi ;;`,
    ),
    // Written at every (emulated) boot: rebootMac.
    `    kern.boottime) b=$(cat ${join(mac.dir, 'boottime')}); if [ "$n" = 1 ]; then echo "$b"; else echo "kern.boottime: $b"; fi ;;`,
  ].join('\n');
  const sysctl = `#!/bin/sh
# sysctl as macOS answers for the emulated ${mac.model}
n=0
for a in "$@"; do
  case "$a" in
    -n) n=1 ;;
${cases}
    *) echo "sysctl: unknown oid '$a'" >&2; exit 1 ;;
  esac
done
`;
  writeGuestEnv(mac.dir);
  // Where Homebrew puts them (`brew install cirruslabs/cli/tart cirruslabs/cli/softnet`).
  const brew = join(mac.dir, 'opt', 'homebrew', 'bin');
  writeFileSync(join(brew, 'tart'), tart);
  chmodSync(join(brew, 'tart'), 0o755);
  // Softnet as `brew install cirruslabs/cli/softnet` leaves it: without its SUID bit (the fleet's
  // preparation sets it). The emulated `tart run --net-softnet` checks the bit and does the filtering.
  writeFileSync(
    join(brew, 'softnet'),
    '#!/bin/sh\necho "softnet: run by tart run --net-softnet" >&2\nexit 64\n',
  );
  chmodSync(join(brew, 'softnet'), 0o755);
  writeFileSync(join(mac.dir, 'bin', 'sysctl'), sysctl);
  chmodSync(join(mac.dir, 'bin', 'sysctl'), 0o755);
}

/**
 * A local Tart VM standing in for a Cirrus Labs image: config, disk, nvram. The guest's files live in
 * its disk.img as on a Mac (an ext4 file system: the guest user's home, its sshd's host key and
 * drop-ins, its password), mounted by `tart run`, so that a disk delta carries them.
 */
function makeImage(root: string, mac: EmulatedMac, name: string, diskGiB: number, publicKey: string): void {
  const vm = join(mac.tartHome, 'vms', name);
  mkdirSync(join(vm, '.emulation'), { recursive: true });
  const config: TartConfig = {
    version: 1,
    os: 'darwin',
    arch: 'arm64',
    ecid: Buffer.from(name).toString('base64'),
    hardwareModel: 'YnBsaXN0MDA=',
    cpuCountMin: 1,
    cpuCount: 4,
    memorySizeMin: 1024 ** 3,
    memorySize: 8 * 1024 ** 3,
    macAddress: '7e:2a:11:00:00:01',
    display: { width: 1024, height: 768 },
    diskFormat: 'raw',
  };
  writeFileSync(join(vm, 'config.json'), swiftPretty(config));
  execFileSync('cp', ['--sparse=always', imageDisk(root, name, diskGiB, publicKey), join(vm, 'disk.img')]);
  writeFileSync(join(vm, 'nvram.bin'), Buffer.alloc(64));
}

/**
 * The image's disk, made once per fleet so that every Mac holds the same bytes (as Macs that pulled
 * one OCI digest do): sparse, sized so that Tart's `Disk` (10^9 bytes) reads as diskGiB, an ext4 file
 * system laid out as the guest's own: `Users/admin` (the fleet key authorized), `etc/ssh` (one host
 * key that every clone shares, as every clone of a Cirrus Labs image does; no drop-ins) and
 * `etc/shadow` with admin's password `admin`, as Cirrus Labs' images ship it.
 */
function imageDisk(root: string, name: string, diskGiB: number, publicKey: string): string {
  const dir = join(root, 'images');
  const file = join(dir, `${name}.img`);
  if (existsSync(file)) return file;
  const fs = join(dir, `${name}.root`);
  mkdirSync(join(fs, 'Users', 'admin', '.ssh'), { recursive: true });
  writeFileSync(join(fs, 'Users', 'admin', '.ssh', 'authorized_keys'), `${publicKey}\n`);
  mkdirSync(join(fs, 'etc', 'ssh', 'sshd_config.d'), { recursive: true });
  const hostKey = generateSshKey(`${name}@emulated-guest`);
  writeFileSync(join(fs, 'etc', 'ssh', 'ssh_host_ed25519_key'), hostKey.privateKey, { mode: 0o600 });
  writeFileSync(join(fs, 'etc', 'ssh', 'ssh_host_ed25519_key.pub'), `${hostKey.publicKey}\n`);
  const hash = execFileSync('openssl', ['passwd', '-6', '-stdin'], { input: 'admin\n' }).toString().trim();
  writeFileSync(join(fs, 'etc', 'shadow'), `admin:${hash}:19000:0:99999:7:::\n`, { mode: 0o600 });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, '');
  truncateSync(tmp, diskGiB * 1e9);
  // Lazy inode tables and journal: a 100 GB file system takes a few MiB of the sparse file.
  execFileSync('mkfs.ext4', [
    '-q',
    '-F',
    '-m',
    '0',
    '-E',
    'lazy_itable_init=1,lazy_journal_init=1,root_owner=0:0',
    '-d',
    fs,
    tmp,
  ]);
  renameSync(tmp, file);
  rmSync(fs, { recursive: true, force: true });
  return file;
}

/**
 * The PATH of a non-login SSH command on macOS (sshd's default): no Homebrew. `tart` and `softnet`
 * are in /opt/homebrew/bin, which only a login shell's `.zprofile` (brew shellenv) adds.
 */
export const MAC_SSH_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';

/**
 * The Mac's file system as its sshd (and every session, `tart run` included) sees it: a mount
 * namespace of its own in which /opt is the Mac's own (`/opt/homebrew/bin/{tart,softnet}`, as
 * Homebrew installs them on Apple silicon) and /usr/sbin/sysctl is the Mac's (macOS' answers).
 * Mounts made later on the machine still reach it (slave propagation).
 */
const MAC_MOUNTS = `set -e
mount -t tmpfs -o mode=0755 sbmac-opt /opt
mkdir -p /opt/homebrew
mount --bind "$1/opt/homebrew" /opt/homebrew
mount --bind "$1/bin/sysctl" /usr/sbin/sysctl
shift
exec "$@"`;

async function startMacSshd(mac: EmulatedMac, l: MacLink, publicKey: string): Promise<void> {
  const ssh = join(mac.dir, 'ssh');
  mkdirSync(ssh, { recursive: true, mode: 0o700 });
  writeFileSync(join(ssh, 'host_key'), generateSshKey(`${mac.name}-host`).privateKey, { mode: 0o600 });
  writeFileSync(join(ssh, 'authorized_keys'), `${publicKey}\n`);
  const home = join(mac.dir, 'home');
  const env = [
    `HOME=${home}`,
    `TART_HOME=${mac.tartHome}`,
    `PATH=${MAC_SSH_PATH}`,
    `SANDBAY_EMULATED_MAC=${mac.dir}`,
  ];
  const config = [
    `ListenAddress ${l.macIp}:22`,
    `HostKey ${join(ssh, 'host_key')}`,
    `PidFile ${join(mac.dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(ssh, 'authorized_keys')}`,
    'PermitRootLogin prohibit-password',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'UseDNS no',
    'AllowTcpForwarding yes',
    'MaxSessions 64',
    'MaxStartups 64:30:128',
    'LogLevel ERROR',
    `SetEnv ${env.join(' ')}`,
    '',
  ].join('\n');
  writeFileSync(join(ssh, 'sshd_config'), config);
  await runMacSshd(mac);
}

/**
 * Starts the Mac's OpenSSH server (it detaches) in the Mac's network namespace and a mount namespace
 * of its own (MAC_MOUNTS); only the network namespace is shared with the Mac's other processes, so
 * that the VM namespaces `tart run` adds stay visible to `down`.
 */
async function runMacSshd(mac: EmulatedMac): Promise<void> {
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  await run('nsenter', [
    `--net=/run/netns/${mac.netns}`,
    'unshare', '--mount', '--propagation', 'slave',
    'sh', '-c', MAC_MOUNTS, 'sbmac-mounts', mac.dir,
    '/usr/sbin/sshd', '-f', join(mac.dir, 'ssh', 'sshd_config'),
  ]); // prettier-ignore
  await waitUntil(
    `sshd of ${mac.name}`,
    async () => ((await greets(mac.address, 22, 'SSH-2.0-')) ? true : undefined),
    10_000,
    20,
  );
}

/**
 * Kills the Mac's OpenSSH server and every connection it serves (a Mac whose sshd died, or that
 * rebooted its network side); VMs and their detached `tart run`s stay.
 */
export async function killMacSshd(mac: EmulatedMac): Promise<void> {
  const { stdout } = await run('ip', ['netns', 'pids', mac.netns]);
  const pids = stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sshd';
      } catch {
        return false;
      }
    });
  for (const pid of pids) signalPid(pid, 'SIGKILL');
  await waitUntil(`sshd of ${mac.name} gone`, () => (pids.some(pidAlive) ? undefined : true), 10_000, 20);
}

/** Starts the Mac's OpenSSH server again with its own config (and host key). */
export async function restartMacSshd(mac: EmulatedMac): Promise<void> {
  await runMacSshd(mac);
}

/** Every Mac under `root`. */
export function listMacs(root: string): EmulatedMac[] {
  const dir = join(root, 'macs');
  if (!existsSync(dir)) return [];
  // The link number comes from the dir's name, so that a Mac whose files were half removed is still found.
  return readdirSync(dir)
    .filter((netns) => /^sbmac\d+$/.test(netns))
    .map((netns) => {
      let model: MacModel = 'm4';
      try {
        model = (JSON.parse(readFileSync(join(dir, netns, 'mac.json'), 'utf8')) as { model: MacModel }).model;
      } catch {
        // half removed: the model does not matter for `down`
      }
      const l = macLink(Number(netns.slice('sbmac'.length)));
      return {
        name: `emulated-${l.link}`,
        address: l.macIp,
        model,
        link: l.link,
        netns,
        dir: join(dir, netns),
        tartHome: join(dir, netns, 'home', '.tart'),
      };
    });
}

/** Stops the Mac's sshd and every process in its namespaces, removes its network and its files. */
export async function downMac(root: string, link: number): Promise<void> {
  const l = macLink(link);
  const dir = join(root, 'macs', l.netns);
  await powerOff(l);
  await deleteMacNetwork(l);
  rmSync(dir, { recursive: true, force: true });
  for (const slot of VM_SLOTS) {
    const user = findUser(`sbemac${link}s${slot}`);
    if (user) await run('userdel', [user.user]).catch(() => {});
  }
  releaseLink(link);
  await dropUnreachableRouteIfUnused();
}

/**
 * What a power cut leaves of a Mac: every process in its and its VMs' namespaces killed (sshd,
 * sessions, `tart run`s and their VMs), the VMs' networks and runtime dirs gone; the disk (its
 * `~/.tart`, VMs stopped) kept.
 */
async function powerOff(l: MacLink): Promise<void> {
  const pids = await pidsInNamespaces(l.netns);
  for (const pid of pids) signalPid(pid, 'SIGKILL');
  await waitUntil(`processes of ${l.netns} gone`, () => (pids.some(pidAlive) ? undefined : true), 10_000, 20);
  for (const ns of await namespaces()) {
    if (ns.startsWith(`${l.netns}-`)) await run('ip', ['netns', 'del', ns]).catch(() => {});
  }
  await run('sh', [
    '-c',
    `rm -rf /run/sandbay-emulated-macs/rt/${l.netns}-vm* /run/sandbay-emulated-macs/rt/${l.netns}-keepers`,
  ]);
  for (const slot of VM_SLOTS) {
    const user = findUser(`sbemac${l.link}s${slot}`);
    if (!user) continue;
    // The SIGKILLed VMs' shared-memory segments (x11vnc's ~40) outlive them, and once the user is
    // gone nothing would ever remove them (4096 on the whole machine).
    await removeShm(user.uid).catch(() => {});
    // And their Xvfb's socket and lock in the machine's /tmp (an X socket of a user that no longer exists).
    removeUserTempFiles(user.uid);
  }
}

/**
 * The Mac reboots: a power cut (every VM gone from memory, stopped on disk); once `whileOff` has
 * seen what it waits for (a real reboot takes minutes), macOS is up again: a new boot time, its
 * sshd answering. Tart does not restart VMs on boot.
 */
export async function rebootMac(mac: EmulatedMac, whileOff: () => Promise<void>): Promise<void> {
  await powerOff(macLink(mac.link));
  try {
    await whileOff();
  } finally {
    writeBootTime(mac);
    await restartMacSshd(mac);
  }
}

/**
 * The Mac drops off the network (a cable pulled, a switch port down): its own end of the link goes
 * down, so packets to it are dropped on this machine (the host's route to its /30 stays, without a
 * carrier) and connections hang as to a vanished machine; nothing on the Mac is touched.
 */
export async function cutMacNetwork(mac: EmulatedMac): Promise<void> {
  await run('ip', ['-n', mac.netns, 'link', 'set', 'eth0', 'down']);
  // The host's route must still lead into the link: a packet to the Mac never leaves the machine.
  const { stdout } = await run('ip', ['route', 'get', mac.address]);
  if (!stdout.includes(`dev sbmac${mac.link} `)) {
    await restoreMacNetwork(mac);
    throw new Error(`with the Mac's link down, ${mac.address} would route elsewhere: ${stdout.trim()}`);
  }
}

export async function restoreMacNetwork(mac: EmulatedMac): Promise<void> {
  await run('ip', ['-n', mac.netns, 'link', 'set', 'eth0', 'up']);
}

async function pidsInNamespaces(netns: string): Promise<number[]> {
  const { stdout } = await run('ip', ['netns', 'pids', netns]).catch(() => ({ stdout: '' }));
  const pids = new Set(stdout.split('\n').filter(Boolean).map(Number));
  const { stdout: all } = await run('ip', ['netns', 'list']);
  for (const line of all.split('\n')) {
    const ns = line.split(' ')[0];
    if (ns?.startsWith(`${netns}-`)) {
      const { stdout: p } = await run('ip', ['netns', 'pids', ns]).catch(() => ({ stdout: '' }));
      for (const pid of p.split('\n').filter(Boolean)) pids.add(Number(pid));
    }
  }
  // X servers, window managers and VNC servers of the VMs live in the Mac's namespace already; the
  // parent-death signal takes them with their `tart run`, but a kill here makes that certain.
  return [...pids];
}

/**
 * Removes the Macs of processes that are gone without removing them (a test or a bench killed
 * before its cleanup): their namespaces, processes, guest users, files and link claims. Macs of
 * live processes and those made by hand (no owner) are left. Returns the links removed.
 */
export async function sweepAbandonedMacs(): Promise<number[]> {
  const removed: number[] = [];
  for (const link of claimedLinks()) {
    const claim = readLinkClaim(link);
    if (!claim?.owner || ownerAlive(claim.owner)) continue;
    await downMac(claim.root, link);
    removed.push(link);
  }
  return removed;
}

/** Removes every Mac under `root`, and the root. */
export async function downAll(root: string): Promise<void> {
  for (const mac of listMacs(root)) await downMac(root, mac.link);
  rmSync(root, { recursive: true, force: true });
}

/** The fleet's Mini resources (what `sandbay apply -f` takes). */
export function miniYaml(macs: EmulatedMac[], credentialsRef: string): string {
  return macs
    .map((m) =>
      stringify({
        apiVersion: API_VERSION,
        kind: 'Mini',
        metadata: { name: m.name },
        spec: { address: m.address, model: m.model, driver: 'tart', credentialsRef, schedulable: true },
      }),
    )
    .join('---\n');
}

export { claimedLinks };
