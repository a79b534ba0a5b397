// Emulated Macs for tests and for trying sandbay without a Mac: each is a network namespace with a
// real OpenSSH server (root login with the control plane's key, as an operator's account on a Mac
// mini) and a `tart` and a `sysctl` on its PATH that answer as a Mac running Tart does. Its images
// are local Tart VMs whose guest authorizes the same key for `admin`. Everything lives under one root
// dir, so `downAll` removes every namespace, process and file the Macs made.
import {
  chmodSync,
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
import { run, signalPid, waitUntil, pidAlive } from '../../../hosts/linux/runner.ts';
import { generateSshKey } from '../../../hosts/linux/sshd.ts';
import { greets } from '../../../hosts/linux/probe.ts';
import {
  claimLink,
  claimedLinks,
  createMacNetwork,
  deleteMacNetwork,
  dropUnreachableRouteIfUnused,
  macLink,
  releaseLink,
  type MacLink,
} from './network.ts';
import { swiftPretty, type TartConfig } from './tart-store.ts';

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

/** Creates `count` more Macs under `root`. */
export async function upMacs(root: string, count: number, model: MacModel = 'm4'): Promise<Fleet> {
  const key = fleetKey(root);
  const macs: EmulatedMac[] = [];
  for (let i = 0; i < count; i++) macs.push(await upMac(root, model, key.publicKey));
  return { root, privateKey: key.privateKey, macs };
}

async function upMac(root: string, model: MacModel, publicKey: string): Promise<EmulatedMac> {
  const l = claimLink();
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
    mkdirSync(mac.tartHome, { recursive: true });
    writeFileSync(join(dir, 'mac.json'), JSON.stringify({ netns: l.netns, link: l.link, model }));
    writeExecutables(mac);
    for (const image of Object.values(IMAGES)) makeImage(mac, image.name, image.diskGiB, publicKey);
    await createMacNetwork(l);
    await startMacSshd(mac, l, publicKey);
    return mac;
  } catch (e) {
    await downMac(root, l.link);
    throw e;
  }
}

/** `tart` runs this checkout's emulation under the project's Node; `sysctl` answers as macOS does. */
function writeExecutables(mac: EmulatedMac): void {
  const node = join(REPO, 'node_modules', '.bin', 'node');
  const tart = `#!/bin/sh\nexec ${node} ${join(HERE, 'tart-cli.ts')} "$@"\n`;
  const p = MAC_PROFILES[mac.model];
  const values: Record<string, string> = {
    'hw.ncpu': String(p.cores),
    'hw.memsize': String(p.memoryGiB * 1024 ** 3),
    'hw.model': 'Mac16,10',
    'kern.osproductversion': '15.6',
  };
  const cases = Object.entries(values)
    .map(([k, v]) => `    ${k}) if [ "$n" = 1 ]; then echo ${v}; else echo "${k}: ${v}"; fi ;;`)
    .join('\n');
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
  writeFileSync(join(mac.dir, 'bin', 'tart'), tart);
  writeFileSync(join(mac.dir, 'bin', 'sysctl'), sysctl);
  chmodSync(join(mac.dir, 'bin', 'tart'), 0o755);
  chmodSync(join(mac.dir, 'bin', 'sysctl'), 0o755);
}

/** A local Tart VM standing in for a Cirrus Labs image: config, sparse disk, nvram, the guest's home. */
function makeImage(mac: EmulatedMac, name: string, diskGiB: number, publicKey: string): void {
  const vm = join(mac.tartHome, 'vms', name);
  const emu = join(vm, '.emulation');
  mkdirSync(join(emu, 'home', '.ssh'), { recursive: true });
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
  // Tart reports sizes in 10^9 bytes: the image's disk is sized so that `Disk` reads as diskGiB.
  writeFileSync(join(vm, 'disk.img'), '');
  truncateSync(join(vm, 'disk.img'), diskGiB * 1e9);
  writeFileSync(join(vm, 'nvram.bin'), Buffer.alloc(64));
  writeFileSync(join(emu, 'home', '.ssh', 'authorized_keys'), `${publicKey}\n`);
  const hostKey = generateSshKey(`${name}@emulated-guest`);
  writeFileSync(join(emu, 'ssh_host_ed25519_key'), hostKey.privateKey, { mode: 0o600 });
}

async function startMacSshd(mac: EmulatedMac, l: MacLink, publicKey: string): Promise<void> {
  const ssh = join(mac.dir, 'ssh');
  mkdirSync(ssh, { recursive: true, mode: 0o700 });
  writeFileSync(join(ssh, 'host_key'), generateSshKey(`${mac.name}-host`).privateKey, { mode: 0o600 });
  writeFileSync(join(ssh, 'authorized_keys'), `${publicKey}\n`);
  const home = join(mac.dir, 'home');
  const env = [
    `HOME=${home}`,
    `TART_HOME=${mac.tartHome}`,
    `PATH=${join(mac.dir, 'bin')}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`,
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
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  // Only the network namespace is entered: VM namespaces `tart run` adds must stay visible to `down`.
  await run('nsenter', [`--net=/run/netns/${l.netns}`, '/usr/sbin/sshd', '-f', join(ssh, 'sshd_config')]);
  await waitUntil(
    `sshd of ${mac.name}`,
    async () => ((await greets(l.macIp, 22, 'SSH-2.0-')) ? true : undefined),
    10_000,
    20,
  );
}

/** Every Mac under `root`. */
export function listMacs(root: string): EmulatedMac[] {
  const dir = join(root, 'macs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((netns) => {
    const facts = JSON.parse(readFileSync(join(dir, netns, 'mac.json'), 'utf8')) as {
      link: number;
      model: MacModel;
    };
    const l = macLink(facts.link);
    return {
      name: `emulated-${l.link}`,
      address: l.macIp,
      model: facts.model,
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
  // Every process in the Mac's or its VMs' namespaces: sshd, sessions, `tart run`s and their VMs.
  const pids = await pidsInNamespaces(l.netns);
  for (const pid of pids) signalPid(pid, 'SIGKILL');
  await waitUntil(`processes of ${l.netns} gone`, () => (pids.some(pidAlive) ? undefined : true), 10_000, 20);
  await deleteMacNetwork(l);
  await run('sh', ['-c', `rm -rf /run/sandbay-emulated-macs/rt/${l.netns}-vm*`]);
  rmSync(dir, { recursive: true, force: true });
  for (const slot of [0, 1]) await run('userdel', [`sbemac${link}s${slot}`]).catch(() => {});
  releaseLink(link);
  await dropUnreachableRouteIfUnused();
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
