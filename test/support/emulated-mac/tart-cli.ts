// The `tart` executable of an emulated Mac (tests only). It keeps Tart's command-line contract as
// read from cirruslabs/tart's source (Sources/tart/Commands/*.swift, VMStorageHelper.swift): the same
// outputs, JSON fields and formatting, messages on stderr and exit codes (2 for a missing VM, one not
// running or already running; 1 otherwise; 64 for an argument error). Its VMs are real Linux desktops
// (./tart-run.ts). Run as `node tart-cli.ts ARGS…` by the `tart` wrapper on the Mac's PATH.
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync as readFile,
  renameSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync as writeFile,
} from 'node:fs';
import { join } from 'node:path';
import {
  allocatedBytes,
  diskGB,
  displayText,
  isKeeper,
  isTartRun,
  listVmNames,
  openVm,
  runState,
  savedState,
  saveConfig,
  STATE_FILE,
  stateFile,
  swiftPretty,
  TartError,
  tartHome,
  vmDir,
  vmExists,
  vmState,
  type TartConfig,
} from './tart-store.ts';
import { waitWhileCloneHeld } from './faults.ts';

export const TART_VERSION = '2.30.0';

class UsageError extends Error {}

interface Parsed {
  positional: string[];
  options: Map<string, string>;
  flags: Set<string>;
}

/** Splits `args` by the options each command takes (`--x v` / `--x=v`) and its flags. */
function parse(args: string[], options: string[], flags: string[] = []): Parsed {
  const p: Parsed = { positional: [], options: new Map(), flags: new Set() };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-') || a === '-') {
      p.positional.push(a);
      continue;
    }
    const [key, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a];
    if (flags.includes(key!)) p.flags.add(key!);
    else if (options.includes(key!)) {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`Missing value for '${key}'`);
      p.options.set(key!, v);
    } else throw new UsageError(`Unknown option '${a}'`);
  }
  return p;
}

function one(p: Parsed, what: string): string {
  const [name, extra] = p.positional;
  if (name === undefined) throw new UsageError(`Missing expected argument '<${what}>'`);
  if (extra !== undefined) throw new UsageError(`Unexpected argument '${extra}'`);
  return name;
}

function uint(p: Parsed, key: string): number | undefined {
  const v = p.options.get(key);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`The value '${v}' is invalid for '${key} <${key.slice(2)}>'`);
  return Number(v);
}

function format(p: Parsed): 'text' | 'json' {
  const f = p.options.get('--format') ?? 'text';
  if (f !== 'text' && f !== 'json')
    throw new UsageError(`The value '${f}' is invalid for '--format <format>'`);
  return f;
}

function textTable(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '';
  const keys = Object.keys(rows[0]!).filter((k) => k !== 'Running');
  const cells = [keys, ...rows.map((r) => keys.map((k) => String(r[k])))];
  const widths = keys.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells
    .map((c) =>
      c
        .map((v, i) => v.padEnd(widths[i]!))
        .join(' ')
        .trimEnd(),
    )
    .join('\n');
}

function list(args: string[]): string {
  const p = parse(args, ['--format', '--source'], ['-q', '--quiet']);
  const rows = listVmNames().map((name) => {
    const s = vmState(name);
    return {
      Source: 'local',
      Name: name,
      Disk: diskGB(name),
      Size: Math.round(allocatedBytes(name) / 1e9),
      Accessed: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      Running: s === 'running',
      State: s,
    };
  });
  if (p.flags.has('-q') || p.flags.has('--quiet')) return rows.map((r) => r.Name).join('\n');
  return format(p) === 'json' ? swiftPretty(rows) : textTable(rows);
}

function get(args: string[]): string {
  const p = parse(args, ['--format']);
  const name = one(p, 'name');
  const c = openVm(name);
  const s = vmState(name);
  const info = {
    OS: c.os,
    CPU: c.cpuCount,
    Memory: Math.floor(c.memorySize / 1024 / 1024),
    Disk: diskGB(name),
    DiskFormat: c.diskFormat,
    Size: (allocatedBytes(name) / 1e9).toFixed(3),
    Display: displayText(c.display),
    Running: s === 'running',
    State: s,
  };
  return format(p) === 'json' ? swiftPretty(info) : textTable([info]);
}

async function clone(args: string[]): Promise<void> {
  const p = parse(args, ['--concurrency', '--prune-limit'], ['--insecure', '--deduplicate']);
  const [src, dst, extra] = p.positional;
  if (src === undefined) throw new UsageError("Missing expected argument '<source-name>'");
  if (dst === undefined) throw new UsageError("Missing expected argument '<new-name>'");
  if (extra !== undefined) throw new UsageError(`Unexpected argument '${extra}'`);
  if (dst.includes('/')) throw new UsageError('<new-name> should be a local name');
  openVm(src);
  // Tart clones into a directory of its own under ~/.tart/tmp (locked while the clone runs; every
  // later command removes unlocked ones) and then moves it over the name (replacing a VM there).
  collectTmp();
  const tmp = join(tmpDir(), randomUUID());
  writeFile(`${tmp}.pid`, String(process.pid));
  try {
    // Sparse as APFS clones are: the copy takes no room until the guest writes.
    execFileSync('cp', ['-a', '--sparse=always', vmDir(src), tmp]);
    rmSync(join(tmp, '.emulation', 'run.json'), { force: true });
    // A suspended source's memory is its keeper's processes, which no copy has: the emulation's
    // clone is stopped (Tart's carries the saved state along).
    rmSync(join(tmp, STATE_FILE), { force: true });
    rmSync(join(tmp, '.emulation', 'logs'), { recursive: true, force: true });
    const c = openVmAt(tmp);
    c.macAddress = randomMac();
    writeConfigAt(tmp, c);
    await waitWhileCloneHeld();
    rmSync(vmDir(dst), { recursive: true, force: true });
    renameSync(tmp, vmDir(dst));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    rmSync(`${tmp}.pid`, { force: true });
  }
}

function tmpDir(): string {
  const dir = join(tartHome(), 'tmp');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Tart's Config.gc(): temporary directories no live process holds (a clone killed mid-way). */
function collectTmp(): void {
  for (const entry of readdirSync(tmpDir())) {
    if (entry.endsWith('.pid')) continue;
    let pid = 0;
    try {
      pid = Number(readFile(join(tmpDir(), `${entry}.pid`), 'utf8'));
    } catch {
      // no owner recorded
    }
    if (pid > 0 && pidAlive(pid)) continue;
    rmSync(join(tmpDir(), entry), { recursive: true, force: true });
    rmSync(join(tmpDir(), `${entry}.pid`), { force: true });
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function openVmAt(dir: string): TartConfig {
  return JSON.parse(readFile(join(dir, 'config.json'), 'utf8')) as TartConfig;
}

function writeConfigAt(dir: string, c: TartConfig): void {
  writeFile(join(dir, 'config.json'), swiftPretty(c));
}

function randomMac(): string {
  const b = randomBytes(6);
  b[0] = (b[0]! & 0xfe) | 0x02;
  return [...b].map((x) => x.toString(16).padStart(2, '0')).join(':');
}

function set(args: string[]): void {
  const p = parse(
    args,
    ['--cpu', '--memory', '--display', '--disk-size', '--disk'],
    ['--random-mac', '--random-serial', '--display-refit', '--no-display-refit'],
  );
  const name = one(p, 'name');
  const c = openVm(name);
  const cpu = uint(p, '--cpu');
  const memory = uint(p, '--memory');
  if (cpu !== undefined) {
    if (cpu < c.cpuCountMin) throw new TartError(`VM should have ${c.cpuCountMin} CPU cores at minimum`);
    c.cpuCount = cpu;
  }
  if (memory !== undefined) {
    const bytes = memory * 1024 * 1024;
    if (bytes < c.memorySizeMin)
      throw new TartError(`VM should have ${c.memorySizeMin} bytes of memory at minimum`);
    c.memorySize = bytes;
  }
  const display = p.options.get('--display');
  if (display !== undefined) {
    const m = /^(\d*)x?(\d*)(pt|px)?$/.exec(display);
    const [w, h] = [Number(m?.[1] ?? 0) || 0, Number(m?.[2] ?? 0) || 0];
    if (w > 0) c.display.width = w;
    if (h > 0) c.display.height = h;
    if (m?.[3]) c.display.unit = m[3] as 'pt' | 'px';
    else delete c.display.unit;
  }
  if (p.flags.has('--random-mac')) c.macAddress = randomMac();
  saveConfig(name, c);
  const diskSize = uint(p, '--disk-size');
  if (diskSize !== undefined) {
    const current = diskGB(name);
    if (diskSize < current) {
      throw new TartError(
        `new disk size of ${diskSize}GB should be larger than the current disk size of ${current}GB`,
      );
    }
    truncateFile(join(vmDir(name), 'disk.img'), diskSize * 1e9);
  }
}

async function del(args: string[]): Promise<void> {
  const p = parse(args, []);
  if (p.positional.length === 0) throw new UsageError("Missing expected argument '<name> ...'");
  for (const name of p.positional) {
    if (!vmExists(name)) throw new TartError(`the specified VM "${name}" does not exist`, 2);
    if (runState(name)) throw new TartError(`VM "${name}" is running`);
    await discardSaved(name);
    rmSync(vmDir(name), { recursive: true, force: true });
  }
}

async function ip(args: string[]): Promise<string> {
  const p = parse(args, ['--wait', '--resolver']);
  const name = one(p, 'name');
  openVm(name);
  const resolver = p.options.get('--resolver') ?? 'dhcp';
  if (!['dhcp', 'arp', 'agent'].includes(resolver))
    throw new UsageError(`The value '${resolver}' is invalid for '--resolver <resolver>'`);
  const until = Date.now() + (uint(p, '--wait') ?? 0) * 1000;
  // Tart polls the DHCP leases once a second until the deadline.
  for (;;) {
    const address = runState(name)?.ip;
    if (address) return address;
    if (Date.now() >= until) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  let message = 'no IP address found';
  if (!runState(name)) message += ', is your VM running?';
  if (resolver === 'agent')
    message += ' (also make sure that Guest agent for Tart is running inside of a VM)';
  throw new TartError(message);
}

async function stop(args: string[]): Promise<void> {
  const p = parse(args, ['-t', '--timeout']);
  const name = one(p, 'name');
  openVm(name);
  const timeoutS = uint(p, '-t') ?? uint(p, '--timeout') ?? 30;
  // A suspended VM: Tart removes its saved state (Commands/Stop.swift), and the VM is stopped.
  if (vmState(name) === 'suspended') return discardSaved(name);
  const s = runState(name);
  if (!s) throw new TartError(`VM "${name}" is not running`, 2);
  process.kill(s.pid, 'SIGINT');
  // Tart's `stop` waits for the VM's lock, which its `tart run` holds until it exits.
  if (await exited(s.pid, isTartRun, timeoutS * 1000)) return;
  try {
    process.kill(s.pid, 'SIGKILL');
  } catch (e) {
    throw new TartError(`failed to forcefully terminate the VM "${name}": ${(e as Error).message}`);
  }
}

/**
 * `tart suspend NAME` (Commands/Suspend.swift): SIGUSR1 to the VM's `tart run`, which saves the VM
 * and exits; it does not wait. Its refusal of a VM not running names the VM twice, as Tart's does
 * (it wraps a whole message in RuntimeError.VMNotRunning, which words it again).
 */
function suspend(args: string[]): void {
  const name = one(parse(args, []), 'name');
  openVm(name);
  const s = runState(name);
  if (!s) throw new TartError(`VM "VM "${name}" is not running" is not running`, 2);
  process.kill(s.pid, 'SIGUSR1');
}

/**
 * A suspended VM's saved state goes: its keeper, which holds the frozen VM, powers it off; waited
 * for, so that its disk and slot are free when this returns.
 */
async function discardSaved(name: string): Promise<void> {
  const saved = savedState(name);
  rmSync(stateFile(name), { force: true });
  if (!saved || !isKeeper(saved.keeper)) return;
  process.kill(saved.keeper, 'SIGTERM');
  if (!(await exited(saved.keeper, isKeeper, 30_000))) process.kill(saved.keeper, 'SIGKILL');
}

/** Whether the process `alive` recognizes is gone within `timeoutMs`. */
async function exited(pid: number, alive: (pid: number) => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case '--version':
        console.log(TART_VERSION);
        return 0;
      case 'list':
        print(list(args));
        return 0;
      case 'get':
        print(get(args));
        return 0;
      case 'clone':
        await clone(args);
        return 0;
      case 'set':
        set(args);
        return 0;
      case 'delete':
        await del(args);
        return 0;
      case 'ip':
        print(await ip(args));
        return 0;
      case 'stop':
        await stop(args);
        return 0;
      case 'suspend':
        suspend(args);
        return 0;
      case 'run': {
        const { runVm } = await import('./tart-run.ts');
        return await runVm(args);
      }
      case 'vm-keeper': {
        // Not Tart's: the emulated VM itself, started by `tart run` (tart-run.ts).
        const { keepVm } = await import('./tart-run.ts');
        await keepVm(args);
        return 0;
      }
      default:
        throw new UsageError(
          command === undefined ? 'Missing expected argument' : `Unexpected argument '${command}'`,
        );
    }
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 64;
    }
    if (e instanceof TartError) {
      process.stderr.write(`${e.message}\n`);
      return e.exitCode;
    }
    process.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }
}

function print(text: string): void {
  if (text !== '') process.stdout.write(`${text}\n`);
}

function truncateFile(file: string, bytes: number): void {
  truncateSync(file, bytes);
  const now = new Date();
  utimesSync(file, now, now);
}

process.exitCode = await main(process.argv.slice(2));
