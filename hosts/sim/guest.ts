// The guest half of the sim: data-plane calls on one running sim VM. Input moves a pointer and
// records typed text, exec runs the sim shell over the VM's in-memory disk, screenshots are small
// deterministic images, recordings are tracked with real (frame-less) MP4 files. There is no VNC
// server or sshd behind a sim VM, and `vnc()` / `ssh()` say so rather than return an address that
// nothing answers on.
import { Readable, type Duplex } from 'node:stream';
import {
  DriverError,
  type ClipboardContent,
  type DisplayInfo,
  type ExecStream,
  type ExecStreamOptions,
  type Endpoint,
  type ExecOptions,
  type ExecResult,
  type Guest,
  type MouseButton,
  type RecordingInfo,
  type ScreenshotOptions,
  type ScrollDirection,
  type WindowNode,
} from '../driver.ts';
import { checkClipboard } from '../clipboard.ts';
import { checkPoint, checkScrollAmount, checkTypeDelay } from '../input-checks.ts';
import { checkPort } from '../stream-checks.ts';
import { SimDisk, guestPath } from './disk.ts';
import type { SimOp } from './faults.ts';
import type { SimContext } from './options.ts';
import { checkHotkey, checkKey, checkText } from './keys.ts';
import {
  deleteRecording,
  downloadRecording,
  publicInfo,
  startRecording,
  stopRecording,
} from './recordings.ts';
import { screenshot } from './screen.ts';
import { simExecStream } from './exec-stream.ts';
import { runShell } from './shell.ts';
import { TYPED_MAX, type GuestState, type SimVm } from './vm.ts';

const BUTTONS = new Set(['left', 'right', 'middle', 'back', 'forward']);
const DIRECTIONS = new Set(['up', 'down', 'left', 'right']);

/** What a guest calls on its host (the host implements it; the guest does not import the host). */
export interface GuestHost {
  readonly ctx: SimContext;
  readonly address: string;
  runningVm(name: string): SimVm;
  enterGuest(name: string, op: SimOp): SimVm;
}

export class SimGuest implements Guest {
  readonly #host: GuestHost;
  readonly #name: string;

  constructor(host: GuestHost, name: string) {
    this.#host = host;
    this.#name = name;
  }

  #enter(op: SimOp): SimVm {
    return this.#host.enterGuest(this.#name, op);
  }

  #disk(vm: SimVm): SimDisk {
    vm.disk ??= new SimDisk();
    return vm.disk;
  }

  // ---- shell and files ----

  async exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    const vm = this.#enter('exec');
    if (typeof command !== 'string' || command.length === 0)
      throw new DriverError('invalid_argument', 'command is required');
    const { clock } = this.#host.ctx;
    const deadline = opts.timeoutMs === undefined ? Infinity : clock.now() + opts.timeoutMs;
    return runShell(command, {
      disk: this.#disk(vm),
      hostname: vm.name,
      sleep: async (ms) => {
        const left = deadline - clock.now();
        await this.#host.ctx.wait(Math.min(ms, Math.max(0, left)));
        return ms <= left;
      },
      serve: (port, dir) => vm.guestState().network.serve(port, dir, this.#disk(vm)),
    });
  }

  async execStream(command: string, opts: ExecStreamOptions = {}): Promise<ExecStream> {
    const vm = this.#enter('execStream');
    const network = vm.guestState().network;
    return simExecStream(command, opts, {
      ctx: this.#host.ctx,
      disk: this.#disk(vm),
      hostname: vm.name,
      poweredOff: network.poweredOff,
      serve: (port, dir) => network.serve(port, dir, this.#disk(vm)),
    });
  }

  async forwardPort(port: number): Promise<Duplex> {
    const vm = this.#enter('forwardPort');
    checkPort(port);
    return vm.guestState().network.connect(port, vm.name);
  }

  /** The sim's clipboard holds one representation: `prefer` has nothing to choose from. */
  async getClipboard(_prefer?: 'text' | 'image'): Promise<ClipboardContent> {
    const held = this.#enter('getClipboard').guestState().clipboard;
    return held.type === 'image' ? { ...held, data: Buffer.from(held.data) } : { ...held };
  }

  async setClipboard(content: Exclude<ClipboardContent, { type: 'empty' }>): Promise<void> {
    const vm = this.#enter('setClipboard');
    checkClipboard(content);
    vm.guestState().clipboard =
      content.type === 'text'
        ? { type: 'text', text: content.text }
        : { type: 'image', mimeType: 'image/png', data: Buffer.from(content.data) };
  }

  async putFile(path: string, data: Buffer | Readable): Promise<void> {
    const vm = this.#enter('putFile');
    const target = guestPath(path);
    if (!Buffer.isBuffer(data) && !(data instanceof Readable)) {
      throw new DriverError('invalid_argument', 'file data must be a Buffer or a Readable');
    }
    const bytes = Buffer.isBuffer(data) ? Buffer.from(data) : await collect(data);
    this.#disk(vm).write(target, bytes);
  }

  async getFile(path: string): Promise<Readable> {
    const vm = this.#enter('getFile');
    return Readable.from([this.#disk(vm).read(guestPath(path))]);
  }

  async putDir(path: string, tar: Readable): Promise<void> {
    const vm = this.#enter('putDir');
    await this.#disk(vm).putDir(guestPath(path), tar);
  }

  async getDir(path: string): Promise<Readable> {
    const vm = this.#enter('getDir');
    return this.#disk(vm).getDir(guestPath(path));
  }

  // ---- mouse ----

  async click(x: number, y: number, opts: { button?: MouseButton; double?: boolean } = {}): Promise<void> {
    const g = this.#input('click', x, y);
    if (!BUTTONS.has(opts.button ?? 'left'))
      throw new DriverError('invalid_argument', `unknown mouse button "${String(opts.button)}"`);
    g.cursor = { x, y };
    g.inputEvents += opts.double ? 2 : 1;
  }

  async move(x: number, y: number): Promise<void> {
    const g = this.#input('move', x, y);
    g.cursor = { x, y };
    g.inputEvents++;
  }

  async drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    button?: MouseButton,
  ): Promise<void> {
    this.#input('drag', from?.x, from?.y);
    const g = this.#input('drag', to?.x, to?.y);
    if (!BUTTONS.has(button ?? 'left'))
      throw new DriverError('invalid_argument', `unknown mouse button "${String(button)}"`);
    g.cursor = { x: to.x, y: to.y };
    g.inputEvents += 2;
  }

  async scroll(x: number, y: number, direction: ScrollDirection, amount: number): Promise<void> {
    const g = this.#input('scroll', x, y);
    if (!DIRECTIONS.has(direction))
      throw new DriverError('invalid_argument', `unknown scroll direction "${String(direction)}"`);
    checkScrollAmount(amount);
    g.cursor = { x, y };
    g.inputEvents += amount;
  }

  async position(): Promise<{ x: number; y: number }> {
    const vm = this.#enter('position');
    return { ...vm.guestState().cursor };
  }

  async mouseButton(button: MouseButton, _down: boolean): Promise<void> {
    const vm = this.#enter('click');
    if (!BUTTONS.has(button))
      throw new DriverError('invalid_argument', `unknown mouse button "${String(button)}"`);
    vm.guestState().inputEvents++;
  }

  /** Validates a point against the screen and returns the guest state to change. */
  #input(op: SimOp, x: number, y: number): GuestState {
    const vm = this.#enter(op);
    checkPoint(x, y, this.#host.ctx.display);
    return vm.guestState();
  }

  // ---- keyboard ----

  async type(text: string, delayMs = 0): Promise<void> {
    const vm = this.#enter('type');
    checkText(text);
    const chars = [...text];
    checkTypeDelay(delayMs, chars.length);
    if (delayMs > 0 && chars.length > 1) await this.#host.ctx.wait(delayMs * (chars.length - 1));
    const g = vm.guestState();
    g.typed = (g.typed + text).slice(-TYPED_MAX);
    g.inputEvents += chars.length;
  }

  async press(key: string, modifiers: string[] = []): Promise<void> {
    const vm = this.#enter('press');
    checkKey(key, modifiers);
    vm.guestState().inputEvents++;
  }

  async hotkey(keys: string): Promise<void> {
    const vm = this.#enter('hotkey');
    checkHotkey(keys);
    vm.guestState().inputEvents++;
  }

  async keys(keys: string, _down: boolean): Promise<void> {
    const vm = this.#enter('hotkey');
    checkHotkey(keys);
    vm.guestState().inputEvents++;
  }

  // ---- screen ----

  async screenshot(opts: ScreenshotOptions = {}): Promise<Buffer> {
    const vm = this.#enter('screenshot');
    const { width, height } = this.#host.ctx.display;
    return screenshot({ width, height, seed: vm.name, cursor: vm.guestState().cursor }, opts);
  }

  async displayInfo(): Promise<DisplayInfo> {
    this.#enter('displayInfo');
    return { ...this.#host.ctx.display, scale: 1 };
  }

  /** One node: the simulated display. The sim runs no applications, so it has no windows to list. */
  async windows(): Promise<WindowNode[]> {
    this.#enter('windows');
    const { width, height } = this.#host.ctx.display;
    return [
      {
        role: 'display',
        name: 'sandbay sim display (no applications)',
        x: 0,
        y: 0,
        width,
        height,
        id: 'sim',
        children: [],
      },
    ];
  }

  // ---- recordings ----

  async startRecording(name?: string): Promise<RecordingInfo> {
    const vm = this.#enter('startRecording');
    const id = `rec-${this.#host.ctx.nextId().toString(16).padStart(12, '0')}`;
    return startRecording(vm.guestState().recordings, id, this.#host.ctx.clock.now(), name);
  }

  async stopRecording(id: string): Promise<RecordingInfo> {
    const vm = this.#enter('stopRecording');
    return stopRecording(vm.guestState().recordings, id, this.#host.ctx.clock.now());
  }

  async listRecordings(): Promise<RecordingInfo[]> {
    const vm = this.#enter('listRecordings');
    return [...vm.guestState().recordings.values()].map(publicInfo);
  }

  async getRecording(id: string): Promise<RecordingInfo | undefined> {
    const vm = this.#enter('getRecording');
    const rec = vm.guestState().recordings.get(id);
    return rec && publicInfo(rec);
  }

  async deleteRecording(id: string): Promise<void> {
    deleteRecording(this.#enter('deleteRecording').guestState().recordings, id);
  }

  async downloadRecording(id: string): Promise<Readable> {
    return downloadRecording(this.#enter('downloadRecording').guestState().recordings, id);
  }

  // ---- endpoints ----

  async vnc(): Promise<Endpoint & { password: string }> {
    this.#enter('vnc');
    throw new DriverError(
      'not_found',
      `sim VM ${this.#name} has no VNC server (the sim driver simulates hosts, not desktops)`,
    );
  }

  async ssh(): Promise<Endpoint & { username: string; privateKey: string }> {
    this.#enter('ssh');
    throw new DriverError(
      'not_found',
      `sim VM ${this.#name} has no SSH server (the sim driver simulates hosts, not desktops)`,
    );
  }

  async lastActivity(): Promise<Date | undefined> {
    this.#host.ctx.faults.check(this.#host.address, 'lastActivity');
    const ms = this.#host.runningVm(this.#name).lastActivityMs;
    return ms === undefined ? undefined : new Date(ms);
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}
