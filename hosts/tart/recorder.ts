// Recordings of a tart VM, made on the control plane from the persistent RFB session's framebuffer:
// frames are captured as fast as the session gives them (up to the frame rate) and fed to ffmpeg
// (rawvideo on stdin → libx264 ultrafast → MP4). Chosen over recording in the guest (`screencapture
// -v` + `avconvert`) because it needs no Screen Recording permission in the guest, works at the login
// window, is the same for every guest system, and leaves the guest's CPU to the customer; the cost
// is the control plane's CPU (one ffmpeg per recording) and a full framebuffer update per frame
// through the Mac's SSH connection, hence a low default rate (5 fps).
//
// The video's clock is the wall clock: at each tick the latest frame is written as many times as
// frames are due, so a slow capture repeats frames instead of shortening the video. Ending ffmpeg's
// stdin makes it finish the MP4; a control plane that dies closes that pipe too, so the file is
// still playable, and its record is settled (duration, size or failed) when next read.
import type { ChildProcess } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { DriverError, type RecordingInfo } from '../driver.ts';
import { hasControlChars } from '../linux/files.ts';
import { isRecorderOf, probeDuration } from '../linux/recorder.ts';
import { newRecordingId, publicInfo, RecordingStore, type RecordingMeta } from '../linux/recorder-store.ts';
import { spawnError, spawnTool } from '../linux/runner.ts';

export type Frame = { data: Buffer; width: number; height: number };

export interface FrameRecorderOptions {
  fps?: number;
  /** A recording stops by itself after this long (a forgotten one must not fill the disk). */
  maxDurationS?: number;
  /** Recordings running at once per VM. */
  maxActive?: number;
}

const MAX_NAME = 200;
const STOP_DEADLINE_MS = 10_000;

interface Active {
  child: ChildProcess;
  exited: Promise<number | null>;
  stop: () => void;
}

export class FrameRecorder {
  readonly #store: RecordingStore;
  readonly #frame: () => Promise<Frame>;
  readonly #fps: number;
  readonly #maxDurationS: number;
  readonly #maxActive: number;
  readonly #active = new Map<string, Active>();
  /** The settle under way per recording (#settle). */
  readonly #settling = new Map<string, Promise<RecordingMeta>>();

  /** `dir`: the VM's recordings on the control plane (`<id>.mp4` beside `<id>.json`). */
  constructor(dir: string, frame: () => Promise<Frame>, opts: FrameRecorderOptions = {}) {
    this.#store = new RecordingStore(dir);
    this.#frame = frame;
    this.#fps = opts.fps ?? 5;
    this.#maxDurationS = opts.maxDurationS ?? 2 * 3600;
    this.#maxActive = opts.maxActive ?? 2;
  }

  async start(name?: string): Promise<RecordingInfo> {
    if (name !== undefined && (typeof name !== 'string' || name.length > MAX_NAME || hasControlChars(name))) {
      throw new DriverError(
        'invalid_argument',
        `recording name must be up to ${MAX_NAME} printable characters`,
      );
    }
    if (this.#active.size >= this.#maxActive) {
      throw new DriverError(
        'capacity',
        `${this.#active.size} recordings already running on this VM (limit ${this.#maxActive})`,
      );
    }
    // The first frame fixes the video's size (and proves the screen answers) before ffmpeg starts.
    const first = await this.#frame();
    await this.#store.ensureDir();
    const id = newRecordingId();
    const file = this.#store.video(id);
    const startedAt = new Date();
    const child = this.#spawn(file, first);
    const exited = new Promise<number | null>((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.once('error', () => resolve(null));
    });
    const spawnFailed = new Promise<Error>((resolve) => child.once('error', resolve));
    let stopped = false;
    const active: Active = { child, exited, stop: () => (stopped = true) };
    this.#active.set(id, active);
    const meta: RecordingMeta = {
      id,
      name: name ?? `recording-${startedAt.toISOString()}`,
      state: 'recording',
      started_at: startedAt.toISOString(),
    };
    if (child.pid !== undefined) meta.pid = child.pid;
    await this.#store.write(meta);
    if (child.pid === undefined) {
      this.#active.delete(id);
      await this.#store.remove(id);
      throw spawnError('ffmpeg', (await spawnFailed) as NodeJS.ErrnoException);
    }
    void this.#feed(child, first, () => stopped, startedAt.getTime()).finally(() => child.stdin?.end());
    void exited.then(() => this.#settle(id)).catch(() => undefined);
    return publicInfo(meta);
  }

  /** Writes frames at the frame rate until stopped, the time limit, or ffmpeg going away. */
  async #feed(child: ChildProcess, first: Frame, stopped: () => boolean, t0: number): Promise<void> {
    const stdin = child.stdin!;
    stdin.on('error', () => undefined); // ffmpeg gone: the exit watcher settles the record
    let latest = first;
    let capturing = true;
    const capture = (async () => {
      while (capturing) {
        try {
          latest = await this.#frame();
        } catch {
          // the screen went away (VM stopping): keep the last frame until stopped
          await new Promise((r) => setTimeout(r, 1000 / this.#fps));
        }
      }
    })();
    let written = 0;
    const limit = this.#maxDurationS * this.#fps;
    try {
      while (!stopped() && written < limit && child.exitCode === null && !stdin.destroyed) {
        const due = Math.min(limit, Math.floor(((Date.now() - t0) / 1000) * this.#fps) + 1);
        while (written < due) {
          written++;
          if (!stdin.write(latest.data)) await new Promise((r) => stdin.once('drain', r).once('close', r));
        }
        await new Promise((r) => setTimeout(r, 1000 / this.#fps / 2));
      }
    } finally {
      capturing = false;
      await capture;
    }
    // The screen as it was when the recording was stopped ends the video: the capture in flight at
    // the stop may predate what the caller last saw on the screen.
    if (stopped() && child.exitCode === null && !stdin.destroyed) {
      try {
        stdin.write((await this.#frame()).data);
      } catch {
        // the screen went away meanwhile: the video ends with the frame before
      }
    }
  }

  async stop(id: string): Promise<RecordingInfo> {
    const meta = await this.#store.read(id);
    if (!meta) throw new DriverError('not_found', `no recording ${String(id)}`);
    if (meta.state !== 'recording') return publicInfo(meta);
    await this.#end(id, meta.pid);
    return publicInfo(await this.#settle(id));
  }

  async list(): Promise<RecordingInfo[]> {
    const metas = await this.#store.list();
    return Promise.all(metas.map(async (m) => publicInfo(await this.#reconcile(m))));
  }

  async get(id: string): Promise<RecordingInfo | undefined> {
    const meta = await this.#store.read(id);
    return meta ? publicInfo(await this.#reconcile(meta)) : undefined;
  }

  async delete(id: string): Promise<void> {
    const meta = await this.#store.read(id);
    if (!meta) throw new DriverError('not_found', `no recording ${String(id)}`);
    if (meta.state === 'recording') await this.#end(id, meta.pid);
    await this.#store.remove(id);
  }

  async download(id: string): Promise<Readable> {
    const meta = await this.get(id);
    if (!meta) throw new DriverError('not_found', `no recording ${String(id)}`);
    if (meta.state === 'recording')
      throw new DriverError('invalid_argument', `recording ${id} is still running; stop it first`);
    if (meta.state === 'failed')
      throw new DriverError('not_found', `recording ${id} failed and has no video`);
    const file = this.#store.video(id);
    await stat(file).catch(() => {
      throw new DriverError('not_found', `the video of recording ${id} is gone`);
    });
    return createReadStream(file);
  }

  /** Stops every recording (the VM is stopping); `remove` also deletes them (the VM is discarded). */
  async stopAll(remove = false): Promise<void> {
    const metas = await this.#store.list();
    await Promise.all(
      metas.filter((m) => m.state === 'recording').map((m) => this.stop(m.id).catch(() => {})),
    );
    if (remove) await rm(this.#store.dir, { recursive: true, force: true });
  }

  #spawn(file: string, first: Frame): ChildProcess {
    // prettier-ignore
    const args = [
      '-loglevel', 'error',
      '-f', 'rawvideo',
      '-pix_fmt', 'rgb0',
      '-video_size', `${first.width}x${first.height}`,
      '-framerate', String(this.#fps),
      '-i', 'pipe:0',
      '-c:v', 'libx264',
      '-preset', 'ultrafast',
      '-pix_fmt', 'yuv420p',
      '-movflags', '+faststart',
      '-y', file,
    ];
    return spawnTool('ffmpeg', args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  }

  /** Ends the feed (ffmpeg then finishes the file); SIGKILL if it hangs past the deadline. */
  async #end(id: string, pid: number | undefined): Promise<void> {
    const mine = this.#active.get(id);
    if (mine) {
      mine.stop();
      const timer = setTimeout(() => mine.child.kill('SIGKILL'), STOP_DEADLINE_MS);
      await mine.exited;
      clearTimeout(timer);
      return;
    }
    // A recorder of a previous control-plane process finishes on its own once its stdin closed.
    const file = this.#store.video(id);
    const deadline = Date.now() + STOP_DEADLINE_MS;
    while (pid !== undefined && (await isRecorderOf(pid, file)) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async #reconcile(meta: RecordingMeta): Promise<RecordingMeta> {
    if (meta.state !== 'recording' || this.#active.has(meta.id)) return meta;
    if (meta.pid !== undefined && (await isRecorderOf(meta.pid, this.#store.video(meta.id)))) return meta;
    return this.#settle(meta.id);
  }

  /**
   * Once ffmpeg exited: `stopped` with duration and size if the MP4 is valid, else `failed`. The
   * exit watcher and stop() both settle; they share one attempt, so that stop() answers with the very
   * record that is stored (two attempts each stamped their own `stopped_at`, and the later write won).
   */
  #settle(id: string): Promise<RecordingMeta> {
    let settling = this.#settling.get(id);
    if (!settling) {
      settling = this.#settleOnce(id).finally(() => this.#settling.delete(id));
      this.#settling.set(id, settling);
    }
    return settling;
  }

  async #settleOnce(id: string): Promise<RecordingMeta> {
    this.#active.delete(id);
    const meta = await this.#store.read(id);
    if (!meta) throw new DriverError('not_found', `no recording ${id}`);
    if (meta.state !== 'recording') return meta;
    const file = this.#store.video(id);
    const duration = await probeDuration(file);
    const { pid: _pid, ...rest } = meta;
    const settled: RecordingMeta = { ...rest, stopped_at: new Date().toISOString() };
    if (duration === undefined) settled.state = 'failed';
    else {
      settled.state = 'stopped';
      settled.duration_s = duration;
      settled.bytes = (await stat(file)).size;
    }
    await this.#store.write(settled);
    return settled;
  }
}
