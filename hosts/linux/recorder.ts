// Screen recordings of a VM: ffmpeg x11grab → libx264 (ultrafast) → MP4, one process per recording,
// spawned with an argument array and the VM's own display cookie. Stopping sends SIGINT, on which
// ffmpeg finishes the file (writes the index), so an MP4 is playable whichever process stops it —
// also a restarted server that finds a recorder it did not start (it checks /proc first).
//
// ffmpeg reads the VM's screen, so it runs as the VM's user inside the VM's namespaces and cgroup,
// as any of the tenant's processes would (root's ffmpeg would parse what the tenant's X server
// sends; a process of the tenant's uid outside its namespaces could be ptraced by the tenant and
// reach the machine's network). It writes into the VM's own /tmp (its disk, bounded); ffprobe
// checks the result there, also as the user; then root copies it into the root-only recordings dir
// through a descriptor opened without following a link, and only if it is a regular file of the
// VM's user on the VM's disk (recorder-import.ts). A VM booted without namespaces (the clone
// bench's baseline) records as root straight into the recordings dir, as before.
import type { ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { DriverError, type RecordingInfo } from '../driver.ts';
import { asUser, detectCgroups, VmCgroup } from './cgroups.ts';
import { hasControlChars } from './files.ts';
import { importVideo } from './recorder-import.ts';
import { newRecordingId, publicInfo, RecordingStore, type RecordingMeta } from './recorder-store.ts';
import { inNamespaces, type VmNamespaces } from './ns-enter.ts';
import { killTree, run, spawnTool } from './runner.ts';

export interface RecorderTarget {
  display: string;
  xauthority: string;
  width: number;
  height: number;
  dataDir: string;
  /** The VM's cgroup (relative path, as in LinuxVmRuntime), if it has one. */
  cgroupPath?: string;
  /** The VM's user and namespaces, when it has them: the recorder runs as that user inside them. */
  vm?: RecorderVm;
}

export interface RecorderVm {
  uid: number;
  gid: number;
  /** The VM's namespaces, which the recorder's tools join (ns-enter.ts). */
  namespaces: VmNamespaces;
  /** Where the VM's /tmp is on the machine (a root-owned dir on the VM's disk). */
  tmpDir: string;
}

/** Where a recorder inside the VM writes, as the VM sees it (its /tmp) and as the machine does. */
function vmOutput(vm: RecorderVm, id: string): { inVm: string; onHost: string } {
  const name = `sandbay-recording-${id}.mp4`;
  return { inVm: `/tmp/${name}`, onHost: join(vm.tmpDir, name) };
}

export interface RecorderOptions {
  fps?: number;
  /** A recording stops by itself after this long (a forgotten one must not fill the disk). */
  maxDurationS?: number;
  /** Recordings running at once per VM (each costs ~20–40% of a core). */
  maxActive?: number;
}

const STOP_DEADLINE_MS = 10_000;
// Only for an ffmpeg that hangs (an X server that stopped answering): one that cannot start exits by
// itself and is reported at once. Its first frame normally takes 0.3–1 s, but the first ffmpeg on a
// fresh machine reads its ~100 MB of libraries from disk, and a loaded machine (a whole test suite on
// two cores) stretches that past 5 s, which was once the deadline here and failed a CI run.
const START_DEADLINE_MS = 60_000;
const MAX_NAME = 200;

/** Recorder processes of this server, by output file: any LinuxGuest of the VM can stop them. */
const running = new Map<string, { child: ChildProcess; exited: Promise<number | null>; stderr: string[] }>();

export class Recorder {
  readonly #target: () => RecorderTarget;
  readonly #fps: number;
  readonly #maxDurationS: number;
  readonly #maxActive: number;

  constructor(target: () => RecorderTarget, opts: RecorderOptions = {}) {
    this.#target = target;
    this.#fps = opts.fps ?? 15;
    this.#maxDurationS = opts.maxDurationS ?? 2 * 3600;
    this.#maxActive = opts.maxActive ?? 2;
  }

  #store(): RecordingStore {
    return new RecordingStore(this.#target().dataDir);
  }

  async start(name?: string): Promise<RecordingInfo> {
    if (name !== undefined && (typeof name !== 'string' || name.length > MAX_NAME || hasControlChars(name))) {
      throw new DriverError(
        'invalid_argument',
        `recording name must be up to ${MAX_NAME} printable characters`,
      );
    }
    const store = this.#store();
    const active = (await this.list()).filter((r) => r.state === 'recording');
    if (active.length >= this.#maxActive) {
      throw new DriverError(
        'capacity',
        `${active.length} recordings already running on this VM (limit ${this.#maxActive})`,
      );
    }
    await store.ensureDir();
    const id = newRecordingId();
    const startedAt = new Date();
    const file = this.#output(id);
    const child = this.#spawn(file);
    const stderr: string[] = [];
    child.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 20) stderr.push(chunk.toString('utf8'));
    });
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.once('error', () => resolve(null));
    });
    running.set(file, { child, exited, stderr });
    const meta: RecordingMeta = {
      id,
      name: name ?? `recording-${startedAt.toISOString()}`,
      state: 'recording',
      started_at: startedAt.toISOString(),
    };
    if (child.pid !== undefined) meta.pid = child.pid;
    await store.write(meta);
    // Started once ffmpeg has encoded its first frame (its progress report says so): a recording
    // stopped right after it started still holds a frame, and so is a valid MP4 (stopped at once
    // after the file appeared, it had none and was `failed`). An early exit means ffmpeg could not
    // start (no display, no cookie, no ffmpeg).
    const began = await Promise.race([firstFrame(child), exited.then(() => 'closed' as const)]);
    if (began !== 'framed') {
      running.delete(file);
      killTree(child.pid);
      const code = await exited;
      await this.#removeOutput(id);
      await store.remove(id);
      const why =
        began === 'timeout'
          ? `encoded no frame in ${START_DEADLINE_MS / 1000} s`
          : `exited (${code ?? child.signalCode ?? 'did not start'})`;
      const line = stderr.join('').trim().split('\n')[0] || `ffmpeg ${why} without a message`;
      throw new DriverError(
        child.pid === undefined ? 'missing_tool' : 'command_failed',
        `recording: ${line}`,
        'ffmpeg',
      );
    }
    // A recorder that ends by itself (its time limit, the display gone) is settled right away; a
    // recording deleted meanwhile has nothing left to settle.
    void exited.then(() => this.#settle(store, id)).catch(() => undefined);
    return publicInfo(meta);
  }

  async stop(id: string): Promise<RecordingInfo> {
    const store = this.#store();
    const meta = await store.read(id);
    if (!meta) throw new DriverError('not_found', `no recording ${String(id)}`);
    if (meta.state !== 'recording') return publicInfo(meta);
    await this.#interrupt(this.#output(id), meta.pid);
    return publicInfo(await this.#settle(store, id));
  }

  async list(): Promise<RecordingInfo[]> {
    const store = this.#store();
    const metas = await store.list();
    return Promise.all(metas.map(async (m) => publicInfo(await this.#reconcile(store, m))));
  }

  async get(id: string): Promise<RecordingInfo | undefined> {
    const store = this.#store();
    const meta = await store.read(id);
    return meta ? publicInfo(await this.#reconcile(store, meta)) : undefined;
  }

  async delete(id: string): Promise<void> {
    const store = this.#store();
    const meta = await store.read(id);
    if (!meta) throw new DriverError('not_found', `no recording ${String(id)}`);
    if (meta.state === 'recording') await this.#interrupt(this.#output(id), meta.pid);
    await this.#removeOutput(id);
    await store.remove(id);
  }

  async download(id: string): Promise<Readable> {
    const store = this.#store();
    const meta = await store.read(id);
    if (!meta) throw new DriverError('not_found', `no recording ${String(id)}`);
    if (meta.state === 'recording')
      throw new DriverError('invalid_argument', `recording ${id} is still running; stop it first`);
    if (meta.state === 'failed')
      throw new DriverError('not_found', `recording ${id} failed and has no video`);
    const file = store.video(id);
    await stat(file).catch(() => {
      throw new DriverError('not_found', `the video of recording ${id} is gone`);
    });
    return createReadStream(file);
  }

  /** Stops every recording of this VM (the VM is stopping). */
  async stopAll(): Promise<void> {
    const active = (await this.list()).filter((r) => r.state === 'recording');
    await Promise.all(active.map((r) => this.stop(r.id).catch(() => undefined)));
  }

  /** The file the recorder writes, as its own command line names it. */
  #output(id: string): string {
    const vm = this.#target().vm;
    return vm ? vmOutput(vm, id).inVm : this.#store().video(id);
  }

  /** Removes what a recorder inside the VM left in the VM's /tmp. */
  async #removeOutput(id: string): Promise<void> {
    const vm = this.#target().vm;
    if (vm) await removeVmOutput(vmOutput(vm, id).onHost);
  }

  /** `cmd` as the recorder's tools run: in the VM's cgroup, and as its user inside its namespaces. */
  #placed(command: string, args: string[]): { command: string; args: string[] } {
    const t = this.#target();
    const as = t.vm && { uid: t.vm.uid, gid: t.vm.gid };
    const cgroups = t.cgroupPath === undefined ? undefined : detectCgroups();
    const inCgroup =
      cgroups && !('missing' in cgroups)
        ? new VmCgroup(cgroups, t.cgroupPath as string).wrap(command, args, as)
        : undefined;
    const line = inCgroup
      ? [inCgroup.command, ...inCgroup.args]
      : [...(as ? asUser(as) : []), command, ...args];
    // In the VM's PID namespace the PID tracked is tini's, which passes SIGINT on to ffmpeg.
    return inNamespaces({ command: line[0]!, args: line.slice(1) }, t.vm?.namespaces);
  }

  #spawn(file: string): ChildProcess {
    const t = this.#target();
    const display = t.display.startsWith(':') ? t.display : `:${t.display}`;
    // prettier-ignore
    const args = [
      '-nostdin',
      '-loglevel', 'error',
      '-progress', 'pipe:1',
      '-stats_period', '0.05',
      '-f', 'x11grab',
      '-draw_mouse', '1',
      '-framerate', String(this.#fps),
      '-video_size', `${t.width}x${t.height}`,
      '-i', `${display}.0`,
      '-t', String(this.#maxDurationS),
      '-c:v', 'libx264',
      '-preset', 'ultrafast',
      '-pix_fmt', 'yuv420p',
      '-movflags', '+faststart',
      '-y', file,
    ];
    // Inside the VM's cgroup the recorder counts against the VM's CPU and memory, and no recorder
    // outlives the VM (its power-off kills every member of the cgroup).
    const cmd = this.#placed('ffmpeg', args);
    return spawnTool(cmd.command, cmd.args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', DISPLAY: display, XAUTHORITY: t.xauthority },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  /** SIGINT makes ffmpeg finish the file; SIGKILL after a deadline if it hangs. */
  async #interrupt(file: string, pid: number | undefined): Promise<void> {
    const mine = running.get(file);
    if (mine) {
      mine.child.kill('SIGINT');
      const timer = setTimeout(() => killTree(mine.child.pid), STOP_DEADLINE_MS);
      await mine.exited;
      clearTimeout(timer);
      running.delete(file);
      return;
    }
    if (pid === undefined || !(await isRecorderOf(pid, file))) return;
    process.kill(pid, 'SIGINT');
    const deadline = Date.now() + STOP_DEADLINE_MS;
    while (await isRecorderOf(pid, file)) {
      if (Date.now() > deadline) {
        killTree(pid);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A `recording` record whose process is gone (server restart, crash) is settled now. */
  async #reconcile(store: RecordingStore, meta: RecordingMeta): Promise<RecordingMeta> {
    if (meta.state !== 'recording') return meta;
    const file = this.#output(meta.id);
    if (running.has(file)) return meta;
    if (meta.pid !== undefined && (await isRecorderOf(meta.pid, file))) return meta;
    return this.#settle(store, meta.id);
  }

  /** Once the recorder exited: `stopped` with duration and size if the MP4 is valid, else `failed`. */
  #settle(store: RecordingStore, id: string): Promise<RecordingMeta> {
    // The exit watcher and stop() both settle; they share one attempt.
    let settling = settlingById.get(id);
    if (!settling) {
      const vm = this.#target().vm;
      const probe = (file: string) => probeDuration(file, (c, a) => this.#placed(c, a));
      settling = settle(store, id, vm, probe).finally(() => settlingById.delete(id));
      settlingById.set(id, settling);
    }
    return settling;
  }
}

const settlingById = new Map<string, Promise<RecordingMeta>>();

async function settle(
  store: RecordingStore,
  id: string,
  vm: RecorderVm | undefined,
  probe: (file: string) => Promise<number | undefined>,
): Promise<RecordingMeta> {
  const meta = await store.read(id);
  if (!meta) throw new DriverError('not_found', `no recording ${id}`);
  if (meta.state !== 'recording') return meta;
  const file = store.video(id);
  const output = vm && vmOutput(vm, id);
  running.delete(output?.inVm ?? file);
  let duration = await probe(output?.inVm ?? file);
  if (output && vm) {
    // Checked by ffprobe inside the VM: now root takes a copy, if it is the VM's own regular file.
    if (duration !== undefined && !(await importVideo(output.onHost, file, vm))) duration = undefined;
    await removeVmOutput(output.onHost);
  }
  const { pid: _pid, ...rest } = meta;
  const settled: RecordingMeta = { ...rest, stopped_at: new Date().toISOString() };
  if (duration === undefined) {
    settled.state = 'failed';
  } else {
    settled.state = 'stopped';
    settled.duration_s = duration;
    settled.bytes = (await stat(file)).size;
  }
  await store.write(settled);
  return settled;
}

/**
 * `framed` once ffmpeg's progress report (`-progress pipe:1`: `key=value` lines) counts a frame,
 * `closed` when its output ends first (it exited), `timeout` at the start deadline. The report goes on
 * for the whole recording and is read and dropped.
 */
function firstFrame(child: ChildProcess): Promise<'framed' | 'closed' | 'timeout'> {
  const out = child.stdout;
  if (!out) return Promise.resolve('closed');
  return new Promise((resolve) => {
    let pending = '';
    const timer = setTimeout(() => done('timeout'), START_DEADLINE_MS);
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      if (lines.some((l) => /^frame=[1-9]/.test(l))) done('framed');
    };
    let settled = false;
    const done = (how: 'framed' | 'closed' | 'timeout') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      out.off('data', onData);
      out.resume();
      resolve(how);
    };
    out.on('data', onData);
    out.once('close', () => done('closed'));
  });
}

/** Whether `pid` is still an ffmpeg writing `file` (a reused pid must never be signalled). */
export async function isRecorderOf(pid: number, file: string): Promise<boolean> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.split('\0').includes(file);
  } catch {
    return false;
  }
}

/**
 * The MP4's duration by ffprobe, or undefined when the file is missing or not a valid MP4. `placed`
 * puts ffprobe where the file's writer ran (as the VM's user, in its namespaces).
 */
export async function probeDuration(
  file: string,
  placed: (command: string, args: string[]) => { command: string; args: string[] } = (command, args) => ({
    command,
    args,
  }),
): Promise<number | undefined> {
  const cmd = placed('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
  const result = await run(cmd.command, cmd.args, { timeoutMs: 10_000 }).catch(() => undefined);
  const d = Number.parseFloat(result?.stdout.trim() ?? '');
  return Number.isFinite(d) && d > 0 ? Math.round(d * 1000) / 1000 : undefined;
}

/**
 * Best effort, and never recursive: the path is in the VM's /tmp, which its user controls. Whatever
 * it put there instead of the recording (a directory, a file it made immutable) stays, and the
 * recording still settles (as failed: importVideo refused it) and can be listed and deleted.
 * unlink(2) follows no link.
 */
async function removeVmOutput(onHost: string): Promise<void> {
  await unlink(onHost).catch(() => undefined);
}
