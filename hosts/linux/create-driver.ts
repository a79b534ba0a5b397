// The linux host driver: each VM is a real Linux desktop on this machine (see DESIGN.md, hosts/).
// Every host of this driver is this machine (HostRef.address is not used); several hosts, and
// several drivers with different data dirs, share the machine's VM slots (users, loopback addresses).
//
//   const driver = createLinuxDriver({ dataDir: '/var/lib/sandbay/linux' });
//   const host = driver.host({ name: 'local', address: '127.0.0.1', model: 'm4' });
//   await host.createVm({ name: 'vm-1', image: 'base-macos-26', cpu: 5, memoryGiB: 8 });
//   await host.startVm('vm-1');             // desktop, VNC and SSH answer on 198.19.N.2
//   const guest = host.guest('vm-1');       // screenshots, input, exec, files, recordings
//   await driver.close();                   // powers every VM off (discardOnClose: deletes them)
//
// Needs root (users, mounts, cgroups) and the packages of scripts/setup.sh; what is missing is named
// by the first call.
import { getServers } from 'node:dns';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MacModel, MacShape } from '../../crds/index.ts';
import { DriverError, type Driver, type HostRef } from '../driver.ts';
import { detectCgroups } from './cgroups.ts';
import {
  createExclusive,
  currentOwner,
  ownerAlive,
  readJson,
  replaceFile,
  SlotRegistry,
  type ClaimOwner,
} from './claims.ts';
import { linuxEgressSupport } from './egress.ts';
import { LinuxHost } from './host.ts';
import { ProcessTracker, spawnThroughLauncher } from './runner.ts';
import { requireTools } from './tools.ts';
import type { SetupContext } from './vm-setup.ts';
import { ensureVmFirewall } from './vm-network.ts';
import { ensureSharedSocketDir, SHARED_SOCKET_DIRS } from './shared-socket-dirs.ts';

export interface LinuxDriverOptions {
  /** Where the driver keeps images, VM records and keys (one subdir per host). */
  dataDir: string;
  /** The Mac model the host reports (default: the HostRef's model). */
  model?: MacModel;
  /** VMs one host may hold at once (default: its Mac's slots, two unless its Mini sets `vmSlots`). */
  maxVms?: number;
  /** Machine-wide state shared by every linux driver on the machine (default /run/sandbay-linux). */
  globalDir?: string;
  /** Screen size of every VM (default 1280×800). */
  width?: number;
  height?: number;
  /** Ports on each VM's own address (defaults 22 and 5900). */
  sshPort?: number;
  vncPort?: number;
  /** Process limit of each VM's cgroup (default 4096). */
  pidsMax?: number;
  /**
   * VMs reach the internet through NAT on this machine (default off: a VM reaches nothing but its
   * own link). Routes and firewall only: the machine's IPv4 forwarding is the operator's to turn on.
   */
  outboundNat?: boolean;
  /**
   * With `outboundNat`: the egress mode of a sandbox that asks for none (default `all`; `none` keeps
   * every VM offline until its sandbox asks otherwise). docs/isolation.md, Egress.
   */
  egressDefault?: 'none' | 'all';
  /**
   * The resolvers the VMs' DNS answerer asks (egress-dns.ts); default the machine's own
   * (`/etc/resolv.conf`, as Node reads it), which the answerer reaches from the machine.
   */
  dnsUpstreams?: string[];
  /** VM users are `<userPrefix><slot>` (default `sbvm`) with their home in `<homeRoot>` (default /home). */
  userPrefix?: string;
  homeRoot?: string;
  /** Highest slot number, i.e. VMs on the machine across all drivers (default 254: links 198.19.1–254.0/30). */
  maxSlot?: number;
  /** close() deletes every VM instead of only powering them off (tests, benches). */
  discardOnClose?: boolean;
  /** Clock for lastActivity. */
  now?: () => Date;
  /** Where notable events go (adoption, crashed desktops). Default: nowhere. */
  log?: (msg: string) => void;
}

export interface LinuxDriver extends Driver {
  host(ref: HostRef): LinuxHost;
}

const HOST_NAME = /^[a-z0-9]([a-z0-9.-]{0,61}[a-z0-9])?$/;

export function createLinuxDriver(opts: LinuxDriverOptions): LinuxDriver {
  // A boot's programs are forked by the small launcher process, never by this (large) one.
  spawnThroughLauncher();
  const dataDir = resolve(opts.dataDir);
  const globalDir = resolve(opts.globalDir ?? '/run/sandbay-linux');
  const tracker = new ProcessTracker();
  const hosts = new Map<string, { host: LinuxHost; lockFile: string }>();
  let closed = false;
  // Checked once per driver; every host reports the same failure.
  const preflight = (async () => {
    requireTools();
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // VM users must reach authorized_keys under it (sshd reads it as the user), nothing else.
    mkdirSync(globalDir, { recursive: true, mode: 0o711 });
    for (const dir of SHARED_SOCKET_DIRS) ensureSharedSocketDir(dir);
    // Before any VM's link exists: the rules that keep VMs from opening connections to the host.
    await ensureVmFirewall();
  })();
  preflight.catch(() => undefined);

  const macOf = (ref: HostRef): MacShape => ({
    model: opts.model ?? ref.model,
    ...(ref.vmSlots !== undefined && { vmSlots: ref.vmSlots }),
  });

  return {
    kind: 'linux',
    host(ref: HostRef): LinuxHost {
      if (closed) throw new DriverError('invalid_argument', 'linux driver is closed');
      const known = hosts.get(ref.name);
      if (known) {
        known.host.reshape(macOf(ref));
        return known.host;
      }
      if (!HOST_NAME.test(ref.name)) throw new DriverError('invalid_argument', `bad host name ${ref.name}`);
      const hostDir = join(dataDir, 'hosts', ref.name);
      const lockFile = join(hostDir, 'owner.json');
      const ready = preflight.then(() => {
        const cgroups = detectCgroups();
        if ('missing' in cgroups)
          throw new DriverError('missing_tool', `linux driver: missing ${cgroups.missing}`);
        mkdirSync(hostDir, { recursive: true, mode: 0o700 });
        lockHostDir(lockFile);
        const ctx: SetupContext = {
          dataDir,
          hostName: ref.name,
          hostDir,
          globalDir,
          imagesDir: join(dataDir, 'images'),
          cgroups,
          slots: new SlotRegistry(globalDir, opts.maxSlot ?? 254),
          userPrefix: opts.userPrefix ?? 'sbvm',
          homeRoot: opts.homeRoot ?? '/home',
          sshPort: opts.sshPort ?? 22,
          vncPort: opts.vncPort ?? 5900,
          pidsMax: opts.pidsMax ?? 4096,
          outboundNat: opts.outboundNat ?? false,
        };
        return ctx;
      });
      const host = new LinuxHost(ready, tracker, {
        mac: macOf(ref),
        ...(opts.maxVms !== undefined && { maxVms: opts.maxVms }),
        width: opts.width ?? 1280,
        height: opts.height ?? 800,
        now: opts.now ?? (() => new Date()),
        log: opts.log ?? (() => undefined),
        egress: linuxEgressSupport(opts.outboundNat ?? false, opts.egressDefault ?? 'all'),
        dnsUpstreams: opts.dnsUpstreams ?? getServers(),
      });
      hosts.set(ref.name, { host, lockFile });
      return host;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      await Promise.all([...hosts.values()].map((h) => h.host.shutdown(opts.discardOnClose ?? false)));
      await tracker.killAll();
      for (const h of hosts.values()) unlockHostDir(h.lockFile);
    },
  };
}

/**
 * One live driver per host dir: a second one would fight the first over the same VMs. A lock left
 * by a dead process (or by an earlier driver of this same process, as in a restart test) is taken.
 */
function lockHostDir(file: string): void {
  const me = currentOwner();
  if (createExclusive(file, me)) return;
  const holder = readJson<ClaimOwner>(file);
  if (holder && holder.pid !== me.pid && ownerAlive(holder)) {
    throw new DriverError('command_failed', `host dir ${file} is in use by process ${holder.pid}`);
  }
  replaceFile(file, me);
}

function unlockHostDir(file: string): void {
  const holder = readJson<ClaimOwner>(file);
  if (holder?.pid === process.pid) rmSync(file, { force: true });
}
