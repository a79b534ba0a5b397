// The emulated `tart`'s VM storage: `$TART_HOME/vms/NAME/{config.json, disk.img, nvram.bin}` as Tart
// keeps them, plus `.emulation/` for what a real VM keeps inside its disk image (the guest's home,
// logs, its sshd's view of /etc) and what a real Tart keeps in a lock (the `tart run` process of a running VM).
// A suspended VM has Tart's `state.vzvmsave` in its directory; in the emulation its memory is the
// VM's processes, frozen and kept by its keeper (tart-run.ts), whose pid the file holds.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** config.json as Tart writes it (the fields Tart's VMConfig encodes, in its order). */
export interface TartConfig {
  version: number;
  os: 'darwin' | 'linux';
  arch: 'arm64';
  ecid: string;
  hardwareModel: string;
  cpuCountMin: number;
  cpuCount: number;
  memorySizeMin: number;
  memorySize: number;
  macAddress: string;
  display: { width: number; height: number; unit?: 'pt' | 'px' };
  displayRefit?: boolean;
  diskFormat: 'raw' | 'asif';
}

/** What the running `tart run` of a VM recorded (the emulation's stand-in for Tart's PID lock). */
export interface RunState {
  /** The `tart run` process (what `tart stop` and `tart suspend` signal). */
  pid: number;
  slot: number;
  ip?: string;
}

/** What a suspended VM's `state.vzvmsave` holds in the emulation: where its memory lives. */
export interface SavedState {
  keeper: number;
  slot: number;
  ip: string;
}

/**
 * The slots of a Mac's VMs (a user, an address and a network each): two run at most (Apple's
 * licence), and a suspended VM keeps its slot while it runs nothing, so a third slot exists for it.
 */
export const VM_SLOTS = [0, 1, 2] as const;

/** A Tart failure: its message (stderr) and exit code (2: missing, not running, already running). */
export class TartError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

export const tartHome = (): string => process.env.TART_HOME ?? join(process.env.HOME ?? '/root', '.tart');
export const vmsDir = (): string => join(tartHome(), 'vms');
export const vmDir = (name: string): string => join(vmsDir(), name);
export const emulationDir = (name: string): string => join(vmDir(name), '.emulation');
/** Where `tart run` mounts the guest's disk: its file system's root (`Users/admin`, `etc/ssh`…). */
export const guestDisk = (name: string): string => join(emulationDir(name), 'disk');
export const guestHome = (name: string): string => join(guestDisk(name), 'Users', 'admin');
const runFile = (name: string) => join(emulationDir(name), 'run.json');
/** Tart's saved memory of a suspended VM (VMDirectory.stateURL), in its directory. */
export const STATE_FILE = 'state.vzvmsave';
export const stateFile = (name: string): string => join(vmDir(name), STATE_FILE);

export function vmExists(name: string): boolean {
  return existsSync(join(vmDir(name), 'config.json'));
}

/** Opens a local VM or fails as Tart does. */
export function openVm(name: string): TartConfig {
  if (!vmExists(name)) throw new TartError(`the specified VM "${name}" does not exist`, 2);
  return JSON.parse(readFileSync(join(vmDir(name), 'config.json'), 'utf8')) as TartConfig;
}

export function saveConfig(name: string, c: TartConfig): void {
  writeFileSync(join(vmDir(name), 'config.json'), swiftPretty(c));
}

export function listVmNames(): string[] {
  try {
    return readdirSync(vmsDir())
      .filter((n) => vmExists(n))
      .sort();
  } catch {
    return [];
  }
}

/** The VM's live `tart run`, if any (a record whose process is gone is stale: the VM is stopped). */
export function runState(name: string): RunState | undefined {
  let s: RunState;
  try {
    s = JSON.parse(readFileSync(runFile(name), 'utf8')) as RunState;
  } catch {
    return undefined;
  }
  return isTartRun(s.pid) ? s : undefined;
}

export function writeRunState(name: string, s: RunState): void {
  writeFileSync(runFile(name), JSON.stringify(s));
}

/** The suspended VM's saved state, if it has one (Tart: the file alone makes the VM suspended). */
export function savedState(name: string): SavedState | undefined {
  try {
    return JSON.parse(readFileSync(stateFile(name), 'utf8')) as SavedState;
  } catch {
    return undefined;
  }
}

/** Tart's VMDirectory.state(): running while its `tart run` holds it, suspended with saved state. */
export function vmState(name: string): 'running' | 'suspended' | 'stopped' {
  if (runState(name)) return 'running';
  return existsSync(stateFile(name)) ? 'suspended' : 'stopped';
}

/** Whether `pid` is a live (not zombie) `tart run` of this emulation. */
export function isTartRun(pid: number): boolean {
  return isLive(pid, 'tart-cli.ts\0run\0');
}

/** Whether `pid` is a live VM keeper of this emulation (tart-run.ts). */
export function isKeeper(pid: number): boolean {
  return isLive(pid, 'tart-cli.ts\0vm-keeper\0');
}

function isLive(pid: number, command: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(command);
  } catch {
    return false;
  }
}

const VM_FILES = ['config.json', 'disk.img', 'nvram.bin'];

/** Size in GB as Tart's VMDirectory.sizeGB counts it: the files' apparent sizes over 10^9, floored. */
export function diskGB(name: string): number {
  const bytes = VM_FILES.reduce((n, f) => n + statSync(join(vmDir(name), f)).size, 0);
  return Math.floor(bytes / 1e9);
}

/** Bytes the VM's files take on disk (Tart's allocatedSizeBytes). */
export function allocatedBytes(name: string): number {
  return VM_FILES.reduce((n, f) => n + statSync(join(vmDir(name), f)).blocks * 512, 0);
}

/**
 * JSON as Swift's JSONEncoder with `.prettyPrinted` writes it: two-space indent, `"key" : value`,
 * `/` escaped, an empty array as `[\n\n]`.
 */
export function swiftPretty(v: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[\n\n]';
    return `[\n${v.map((x) => inner + swiftPretty(x, inner)).join(',\n')}\n${indent}]`;
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{\n\n}';
    const body = entries.map(([k, x]) => `${inner}${JSON.stringify(k)} : ${swiftPretty(x, inner)}`);
    return `{\n${body.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(v).replaceAll('/', '\\/');
}

export function displayText(d: TartConfig['display']): string {
  return `${d.width}x${d.height}${d.unit ?? ''}`;
}
