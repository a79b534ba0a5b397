// One Mac's VMs through Tart's command line over SSH. The driver's own record of a VM lives in its
// Tart directory (`sandbay-image`: the image it was cloned from; `sandbay-run.log`: what `tart run`
// printed), so a control plane that restarts finds everything again with `tart list`/`tart get`.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { IMAGES, MAC_PROFILES } from '../../crds/mac-models.ts';
import {
  DriverError,
  type DeltaInfo,
  type Guest,
  type Host,
  type HostInfo,
  type VmCreateSpec,
  type VmInfo,
} from '../driver.ts';
import { delay } from '../linux/runner.ts';
import { shellQuote } from '../linux/ssh-client.ts';
import { validateCreate, validateSize } from '../linux/vm-spec.ts';
import { exportDelta, importDelta, PRISTINE_FILE } from './delta.ts';
import { cloneForFork } from './fork.ts';
import { isSuspendable, notSuspendable, SUSPENDABLE_FILE, suspendVm } from './suspend.ts';
import { TartGuest, type RunningVm } from './guest.ts';
import { pollTartGet, tartLine, untilMacClock, vmDirWord, type Mac } from './mac.ts';
import { tartError, unexpectedOutput } from './tart-errors.ts';
import { parseBootTime, parseGet, parseIp, parseList, parseVncLine } from './tart-json.ts';
import { TART_EGRESS } from './egress.ts';

/** Apple's licence: two macOS VMs at once per Mac. */
export const MAX_VMS_PER_MAC = 2;
/** Readings of `tart list` before its failure is the listing's (#listLocal). */
const LIST_ATTEMPTS = 3;
/** Display in pixels, so that one macOS point is one pixel and coordinates need no scaling. */
export const DISPLAY = { width: 1280, height: 800 };
/** Tart 2.x: the JSON fields this driver reads (List/Get) and `--vnc-experimental`. */
const TART_MAJOR = 2;
const IMAGE_NAMES: string[] = Object.values(IMAGES).map((i) => i.name);
const RUN_LOG = 'sandbay-run.log';
/** The guest user's password of this VM (guest-seal.ts), 0600 in the VM's dir; its presence: sealed. */
const PASSWORD_FILE = 'sandbay-guest-password';
const IMAGE_FILE = 'sandbay-image';
/** How long `tart run` may take to print its VNC line, and the guest to get an address and answer. */
export const BOOT_TIMEOUT_S = 60;
/** How long a guest has to shut itself down before `tart stop` cuts its power. */
export const SHUTDOWN_TIMEOUT_S = 60;
/**
 * The stopped copy of a running VM that a snapshot diffs (`tart clone`: APFS clonefile, instant)
 * while the VM runs again. Never listed as a VM of sandbay's.
 */
export const SNAPSHOT_SUFFIX = '-sandbay-snapshot';

export interface TartHostOptions {
  guestCredentials: () => { username: string; privateKey: string };
  /** Where a VM's recordings live on the control plane. */
  recordingsDir: (vm: string) => string;
  /** Each boot step's deadline (default BOOT_TIMEOUT_S). */
  bootTimeoutS?: number;
}

export class TartHost implements Host {
  readonly #mac: Mac;
  readonly #opts: TartHostOptions;
  /** Running VMs as last seen (guest() must answer synchronously). */
  readonly #running = new Map<string, TartGuest>();
  /**
   * VMs whose `tart run` this driver is starting: running to Tart before their VNC line is written,
   * so a listing meanwhile (another VM's start checks the room) must not adopt them.
   */
  readonly #starting = new Set<string>();
  /**
   * Running VMs that exportDelta stopped for a point-in-time copy and starts again after, as they
   * were before: a listing meanwhile shows them so. Shown stopped, the pool takes the VM for lost and
   * makes it again from its image under the same name, and the copy is then of that fresh clone.
   */
  readonly #capturing = new Map<string, VmInfo>();

  constructor(mac: Mac, opts: TartHostOptions) {
    this.#mac = mac;
    this.#opts = opts;
  }

  get #bootS(): number {
    return this.#opts.bootTimeoutS ?? BOOT_TIMEOUT_S;
  }

  get #profile() {
    return MAC_PROFILES[this.#mac.ref.model];
  }

  async info(): Promise<HostInfo> {
    const r = await this.#mac.sh(
      `sysctl -n hw.ncpu hw.memsize kern.boottime && tart --version && ${tartLine(['list', '--format', 'json'])}`,
    );
    if (r.code !== 0) throw tartError('sysctl/tart --version/tart list', r.code, r.stderr, r.stdout);
    const [ncpu, memsize, boottime, version, ...rest] = r.stdout.split('\n');
    const cores = Number(ncpu);
    const memBytes = Number(memsize);
    if (!Number.isInteger(cores) || !Number.isInteger(memBytes)) {
      throw unexpectedOutput('sysctl -n hw.ncpu hw.memsize', 'not two integers', `${ncpu}\n${memsize}`);
    }
    const major = Number(/^(\d+)\./.exec(version ?? '')?.[1]);
    if (major !== TART_MAJOR) {
      throw new DriverError(
        'missing_tool',
        `tart ${version?.trim() || '(no version)'} on ${this.#mac.ref.name}: sandbay needs Tart ${TART_MAJOR}.x`,
        'tart --version',
      );
    }
    const images = parseList(rest.join('\n'))
      .filter((e) => IMAGE_NAMES.includes(e.Name))
      .map((e) => ({ name: e.Name, diskGiB: e.Disk }));
    return {
      model: this.#mac.ref.model,
      cores,
      memoryGiB: Math.round(memBytes / 1024 ** 3),
      // The nominal SSD of the model: the Mac's free space changes with every clone.
      diskGiB: this.#profile.diskGiB,
      images,
      maxVms: MAX_VMS_PER_MAC,
      egress: TART_EGRESS,
      bootedAt: parseBootTime(boottime ?? ''),
    };
  }

  async listVms(): Promise<VmInfo[]> {
    const entries = parseList(await this.#listLocal());
    const ours = entries.filter((e) => !IMAGE_NAMES.includes(e.Name) && !e.Name.endsWith(SNAPSHOT_SUFFIX));
    const infos = await Promise.all(ours.map((e) => this.#vmInfo(e.Name).catch(notFoundAsUndefined)));
    const vms = infos
      .filter((v): v is VmInfo => v !== undefined)
      .map((v) => this.#capturing.get(v.name) ?? v);
    for (const name of this.#running.keys()) {
      if (!vms.some((v) => v.name === name && v.state === 'running')) this.#forget(name);
    }
    return vms.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * `tart list` of the Mac's local VMs. It reads every VM's directory (its disk's size), and a VM
   * deleted meanwhile (a snapshot's copy, a clone replaced) fails the whole listing, as Tart's own
   * does (Commands/List.swift: `try vmDir.sizeGB()` per VM): it is read again, at most twice more.
   */
  async #listLocal(): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#mac.tart(['list', '--format', 'json', '--source', 'local']);
      } catch (e) {
        if (attempt >= LIST_ATTEMPTS || !(e instanceof DriverError) || e.code !== 'command_failed') throw e;
        await delay(100 * attempt);
      }
    }
  }

  /** The VM as Tart reports it; for a running one also its address and VNC (adopted after a restart). */
  async #vmInfo(name: string): Promise<VmInfo | undefined> {
    const d = vmDirWord(name);
    // One round trip: Tart's answer (its exit code kept), then the image this driver recorded.
    const r = await this.#mac.sh(
      `out=$(${tartLine(['get', name, '--format', 'json'])}) || exit $?\n` +
        `printf '%s\\n---\\n' "$out"; cat ${d}/${IMAGE_FILE} 2>/dev/null; true`,
    );
    if (r.code !== 0) throw tartError('tart get', r.code, r.stderr, r.stdout);
    const [json, image] = r.stdout.split('\n---\n');
    const got = parseGet(json ?? '');
    const imageName = image?.trim();
    if (!imageName) return undefined; // not a VM of sandbay's (an operator's own)
    const suspended = got.State === 'suspended';
    const info: VmInfo = {
      name,
      image: imageName,
      cpu: got.CPU,
      memoryGiB: Math.round(got.Memory / 1024),
      // A suspended VM is paused: it keeps its place (cores, memory) until resumed or deleted.
      state: got.Running || suspended ? 'running' : 'stopped',
      ...(suspended && { paused: true }),
    };
    if (!got.Running) {
      this.#forget(name);
      return info;
    }
    const known = this.#running.get(name);
    if (known) return { ...info, ip: known.vm.ip };
    if (this.#starting.has(name)) return info;
    const vm = await this.#adopt(name);
    return { ...info, ip: vm.ip };
  }

  /** A running VM found on the Mac: its VNC line from the run log, its address from `tart ip`. */
  async #adopt(name: string): Promise<RunningVm> {
    const log = await this.#mac.sh(`cat ${vmDirWord(name)}/${RUN_LOG}`);
    const vnc = parseVncLine(log.stdout);
    if (!vnc)
      throw unexpectedOutput('tart run', `no VNC line in ${RUN_LOG} of running VM ${name}`, log.stdout);
    const ip = parseIp(
      await this.#mac.tart(['ip', name, '--wait', String(this.#bootS)], (this.#bootS + 10) * 1000),
    );
    const vm: RunningVm = { name, ip, vnc, display: DISPLAY };
    this.#running.set(name, this.#guestOf(vm));
    return vm;
  }

  #forget(name: string): void {
    this.#running.get(name)?.close();
    this.#running.delete(name);
  }

  async createVm(spec: VmCreateSpec): Promise<VmInfo> {
    validateCreate(spec, this.#profile);
    await this.#discard(spec.name);
    await this.#mac.tart(['clone', spec.image, spec.name], 600_000);
    await this.#mac.tart(['set', spec.name, ...setArgs(spec)]);
    await this.#mac
      .sh(
        `printf '%s\\n' ${shellQuote(spec.image)} > ${vmDirWord(spec.name)}/${IMAGE_FILE} && ` +
          `: > ${vmDirWord(spec.name)}/${PRISTINE_FILE}`,
      )
      .then((r) => {
        if (r.code !== 0) throw tartError('record image', r.code, r.stderr);
      });
    return { name: spec.name, image: spec.image, cpu: spec.cpu, memoryGiB: spec.memoryGiB, state: 'stopped' };
  }

  async resizeVm(name: string, size: { cpu: number; memoryGiB: number }): Promise<void> {
    validateSize(size, this.#profile);
    const vm = await this.#require(name);
    if (vm.state === 'running')
      throw new DriverError('invalid_argument', `VM ${name} is running: stop it to resize`);
    await this.#mac.tart(['set', name, ...sizeArgs(size)]);
  }

  async startVm(name: string): Promise<VmInfo> {
    const vm = await this.#require(name);
    if (vm.state === 'running') return vm;
    await this.#checkRoom(vm);
    const ip = await this.#run(name);
    return { ...vm, state: 'running', ip };
  }

  /**
   * `tart run` (which restores a suspended VM), then the guest's address and its sshd; returns the
   * address. The guest is sealed at its first boot.
   */
  async #run(name: string): Promise<string> {
    this.#starting.add(name);
    try {
      return await this.#boot(name);
    } finally {
      this.#starting.delete(name);
    }
  }

  async #boot(name: string): Promise<string> {
    const d = vmDirWord(name);
    // Detached from the SSH session (its own session, stdin from /dev/null, output to a file in the
    // VM's dir) so it survives a dropped connection and a control-plane restart. macOS has no
    // setsid(1); perl, which it ships, makes the new session.
    const script = [
      // From here on the disk is no longer the fresh clone a delta may be applied onto.
      `rm -f ${d}/${RUN_LOG} ${d}/${PRISTINE_FILE}`,
      // This run can be suspended (pauseVm): suspend.ts.
      `: > ${d}/${SUSPENDABLE_FILE}`,
      // --net-softnet: the VM may reach the Mac's gateway and the internet, no private address (no
      // other VM); Softnet needs its SUID bit, set by the fleet's preparation (docs/mac.md).
      // --suspendable: `tart suspend` can save it (Tart then leaves out the audio and entropy
      // devices, and gives the VM only a Mac keyboard and trackpad).
      `nohup perl -MPOSIX -e 'POSIX::setsid(); exec @ARGV' ${tartLine(['run', name, '--no-graphics', '--vnc-experimental', '--net-softnet', '--suspendable'])} > ${d}/${RUN_LOG} 2>&1 < /dev/null &`,
      'pid=$!',
      ...untilMacClock(
        this.#bootS,
        [
          `grep -q '^VNC server is running at ' ${d}/${RUN_LOG} && break`,
          'kill -0 $pid 2>/dev/null || break',
        ],
        0.1,
      ),
      'if kill -0 $pid 2>/dev/null; then echo alive; else echo dead; fi',
      `cat ${d}/${RUN_LOG}`,
    ].join('\n');
    const r = await this.#mac.sh(script, (this.#bootS + 30) * 1000);
    const [status, ...log] = r.stdout.split('\n');
    const text = log.join('\n');
    const vnc = parseVncLine(text);
    if (status !== 'alive' || !vnc) {
      if (status === 'alive') {
        await this.#mac.tart(['stop', name, '-t', '5']).catch(() => {});
        throw unexpectedOutput('tart run', `no VNC line within ${this.#bootS} s`, text);
      }
      const err = tartError('tart run', 1, text);
      throw err.code === 'capacity' ? await this.#licenceRefusal(name, err) : err;
    }
    const ip = parseIp(
      await this.#mac.tart(['ip', name, '--wait', String(this.#bootS)], (this.#bootS + 10) * 1000),
    );
    const running: RunningVm = { name, ip, vnc, display: DISPLAY };
    let guest = this.#guestOf(running);
    try {
      await guest.waitReady(this.#bootS * 1000);
      if (await this.#seal(name, guest)) {
        // The guest has a new host key: a new connection pins it.
        guest.close();
        guest = this.#guestOf(running);
        await guest.waitReady(this.#bootS * 1000);
      }
    } catch (e) {
      guest.close();
      await this.#mac.tart(['stop', name, '-t', '5']).catch(() => {});
      throw e;
    }
    this.#running.set(name, guest);
    return ip;
  }

  #guestOf(vm: RunningVm): TartGuest {
    return new TartGuest(this.#mac, vm, this.#opts.guestCredentials, this.#opts.recordingsDir(vm.name));
  }

  /**
   * Seals the guest on the first boot of a fresh clone (guest-seal.ts); whether it did. Its password
   * is kept on the Mac once the guest took it, and marks the VM sealed.
   */
  async #seal(name: string, guest: TartGuest): Promise<boolean> {
    const file = `${vmDirWord(name)}/${PASSWORD_FILE}`;
    const sealed = await this.#mac.sh(`test -s ${file}`);
    if (sealed.code === 0) return false;
    const password = randomBytes(18).toString('base64url');
    await guest.seal(password);
    const r = await this.#mac.sh(`umask 077 && printf '%s\\n' ${shellQuote(password)} > ${file}`);
    if (r.code !== 0) throw tartError('keeping the guest password', r.code, r.stderr);
    return true;
  }

  /** Running VMs never add up to more vCPU or memory than the Mac has (Tart itself does not check). */
  async #checkRoom(vm: VmInfo): Promise<void> {
    const running = (await this.listVms()).filter((v) => v.state === 'running' && v.name !== vm.name);
    const cpu = running.reduce((n, v) => n + v.cpu, vm.cpu);
    const mem = running.reduce((n, v) => n + v.memoryGiB, vm.memoryGiB);
    const p = this.#profile;
    if (cpu > p.cores || mem > p.memoryGiB) {
      throw new DriverError(
        'capacity',
        `starting ${vm.name} would use ${cpu} of ${p.cores} cores and ${mem} of ${p.memoryGiB} GiB`,
      );
    }
  }

  /**
   * Tart refused `tart run` over Apple's licence although sandbay's own VMs leave room: VMs it did
   * not start run on the Mac (an operator's by hand). The error names them and what frees the slot.
   */
  async #licenceRefusal(name: string, refused: DriverError): Promise<DriverError> {
    const running = parseList(await this.#mac.tart(['list', '--format', 'json', '--source', 'local']))
      .filter((e) => e.Running)
      .map((e) => e.Name);
    const ours = new Set((await this.listVms()).map((v) => v.name));
    const foreign = running.filter((n) => !ours.has(n));
    if (foreign.length === 0) return refused;
    const them = foreign.length === 1 ? 'it' : 'them';
    return new DriverError(
      'capacity',
      `${name} cannot start on ${this.#mac.ref.name}: Apple's licence allows two macOS VMs ` +
        `per Mac and it runs ${running.join(', ')}; not started by sandbay: ${foreign.join(', ')}. ` +
        `Stop ${them} (${foreign.map((n) => `\`tart stop ${n}\``).join(', ')}) to free the slot; ` +
        `sandbay starts ${name} then`,
      'tart run',
    );
  }

  /**
   * The guest shuts itself down (`sudo shutdown -h now`) and the driver waits for `tart run` to exit;
   * only a guest that does not within SHUTDOWN_TIMEOUT_S gets `tart stop`, which is a power cut
   * (Virtualization.framework's `stop()`: whatever the guest had not written is lost).
   */
  async stopVm(name: string): Promise<void> {
    await this.#require(name);
    const guest = this.#running.get(name);
    await guest?.recorder.stopAll();
    const down = guest ? await this.#shutDown(name, guest) : false;
    this.#forget(name);
    if (!down) await this.#mac.tart(['stop', name, '-t', '30'], 60_000).catch(ignoreNotRunning);
  }

  /** Whether the guest shut down on its own within SHUTDOWN_TIMEOUT_S (false: it refused or hangs). */
  async #shutDown(name: string, guest: TartGuest): Promise<boolean> {
    if (!(await guest.requestShutdown())) return false;
    const r = await this.#mac.sh(
      pollTartGet(name, `*'"Running" : false'*) exit 0 ;;`, SHUTDOWN_TIMEOUT_S),
      (SHUTDOWN_TIMEOUT_S + 30) * 1000,
    );
    if (r.code === 0) return true;
    if (r.code === 124) return false;
    throw tartError('tart get', r.code, r.stderr, r.stdout);
  }

  async deleteVm(name: string): Promise<void> {
    await this.#discard(name);
  }

  /** Stops and deletes the VM (and a snapshot copy a crash left) if it exists; nothing if it does not. */
  async #discard(name: string): Promise<void> {
    await this.#running.get(name)?.recorder.stopAll();
    this.#forget(name);
    await rm(this.#opts.recordingsDir(name), { recursive: true, force: true });
    await this.#mac.tart(['stop', name, '-t', '10'], 60_000).catch(ignoreNotRunning).catch(ignoreNotFound);
    await this.#mac.tart(['delete', name]).catch(ignoreNotFound);
    await this.#mac.tart(['delete', `${name}${SNAPSHOT_SUFFIX}`]).catch(ignoreNotFound);
  }

  async #require(name: string): Promise<VmInfo> {
    const vm = await this.#vmInfo(name).catch(notFoundAsUndefined);
    if (!vm) throw new DriverError('not_found', `VM ${name} not found on ${this.#mac.ref.name}`);
    return vm;
  }

  /**
   * The VM's disk delta against its image (delta.ts), as of one point in time. A running VM is shut
   * down cleanly first (stopVm: its file system unmounted after its last write), its stopped disk
   * copied (`tart clone`, copy-on-write) and the VM booted again at once; the delta is taken from the
   * copy while the VM runs. A disk read while its guest writes would be no point in time at all
   * (chunks from different moments, APFS metadata torn), and a guest's `sync` returns on macOS
   * before the data is on disk. The VM's processes do not survive: the sandbox goes on after a boot.
   */
  async exportDelta(name: string, file: string): Promise<DeltaInfo> {
    const vm = await this.#require(name);
    if (vm.state !== 'running') return exportDelta(this.#mac, name, vm.image, file);
    const copy = `${name}${SNAPSHOT_SUFFIX}`;
    this.#capturing.set(name, vm);
    try {
      await this.stopVm(name);
      await this.#mac.tart(['clone', name, copy], 600_000);
      const restarted = this.startVm(name).then(
        () => undefined,
        (e: unknown) => e,
      );
      const delta = await exportDelta(this.#mac, copy, vm.image, file).finally(() => restarted);
      const failed = await restarted;
      if (failed) throw failed;
      return delta;
    } finally {
      this.#capturing.delete(name);
      await this.#mac.tart(['delete', copy]).catch(ignoreNotFound);
    }
  }

  /** A running guest's writes reach its disk (`sync`): a copy is then what a power cut would leave. */
  async #flush(name: string, before: string): Promise<void> {
    const r = await this.guest(name).exec('sync', { timeoutMs: 60_000 });
    if (r.return_code !== 0) {
      throw new DriverError('command_failed', `sync in ${name} before ${before}: ${r.stderr.trim()}`, 'sync');
    }
  }

  /** `tart clone` of the source, flushed first when it runs (fork.ts). */
  async forkVm(source: string, spec: VmCreateSpec): Promise<VmInfo> {
    validateCreate(spec, this.#profile);
    const from = await this.#require(source);
    if (from.image !== spec.image)
      throw new DriverError('invalid_argument', `VM ${source} runs ${from.image}, not ${spec.image}`);
    await this.#discard(spec.name);
    if (from.state === 'running') await this.#flush(source, 'its fork');
    await cloneForFork(this.#mac, source, spec, setArgs(spec), IMAGE_FILE);
    // The fork's disk is its source's, sealed with the source's password (`tart clone` copies only
    // Tart's own files): the fork keeps that password, or its first boot would try to seal a guest
    // that no longer takes the image's default login, and wait for it until the boot deadline.
    const from_ = `${vmDirWord(source)}/${PASSWORD_FILE}`;
    const to = `${vmDirWord(spec.name)}/${PASSWORD_FILE}`;
    const kept = await this.#mac.sh(`if [ -s ${from_} ]; then umask 077 && cp ${from_} ${to}; fi`);
    if (kept.code !== 0) throw tartError('keeping the guest password', kept.code, kept.stderr);
    return { name: spec.name, image: spec.image, cpu: spec.cpu, memoryGiB: spec.memoryGiB, state: 'stopped' };
  }

  /**
   * `tart suspend` (suspend.ts): the VM's memory saved on the Mac, no CPU, its place kept. Its
   * recordings stop and its connections close: the run that served them ends.
   */
  async pauseVm(name: string): Promise<void> {
    const vm = await this.#require(name);
    if (vm.paused) return;
    if (vm.state !== 'running') throw new DriverError('invalid_argument', `VM ${name} is not running`);
    if (!(await isSuspendable(this.#mac, name))) throw notSuspendable(name);
    await this.#running.get(name)?.recorder.stopAll();
    this.#forget(name);
    await suspendVm(this.#mac, name);
  }

  /** `tart run` again, which restores the saved VM where it was; its guest answers again. */
  async resumeVm(name: string): Promise<void> {
    const vm = await this.#require(name);
    if (!vm.paused) return;
    await this.#run(name);
  }

  async importDelta(name: string, file: string): Promise<void> {
    const vm = await this.#require(name);
    if (vm.state === 'running') {
      throw new DriverError(
        'invalid_argument',
        `VM ${name} is running: a delta applies only onto a stopped clone`,
      );
    }
    await importDelta(this.#mac, name, vm.image, file);
  }

  guest(name: string): Guest {
    const g = this.#running.get(name);
    if (!g) throw new DriverError('not_found', `VM ${name} is not running on ${this.#mac.ref.name}`);
    return g;
  }

  close(): void {
    for (const name of [...this.#running.keys()]) this.#forget(name);
    this.#mac.close();
  }
}

function sizeArgs(size: { cpu: number; memoryGiB: number }): string[] {
  return ['--cpu', String(size.cpu), '--memory', String(size.memoryGiB * 1024)];
}

/** A fresh VM's settings: its size and the display in pixels. */
function setArgs(size: { cpu: number; memoryGiB: number }): string[] {
  return [...sizeArgs(size), '--display', `${DISPLAY.width}x${DISPLAY.height}px`];
}

function ignoreNotRunning(e: unknown): void {
  if (e instanceof DriverError && /is not running/.test(e.message)) return;
  throw e;
}

function ignoreNotFound(e: unknown): void {
  if (e instanceof DriverError && e.code === 'not_found') return;
  throw e;
}

function notFoundAsUndefined(e: unknown): undefined {
  if (e instanceof DriverError && e.code === 'not_found') return undefined;
  throw e;
}
