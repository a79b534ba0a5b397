// A running Tart VM's data plane. Exec, files and directories go over SSH to the guest user, the Mac
// being the jump host (ssh2 forwardOut on the Mac's pooled connection: guest addresses are private
// to the Mac); one pooled guest connection per VM, the guest's host key pinned on first use.
//
// Screen and input: one persistent RFB session per VM to Tart's VNC server, tunnelled through the
// Mac (screen-input.ts).
//
// Not yet built (each fails with a DriverError saying so): the window tree (osascript), recordings,
// and the API's VNC/SSH WebSockets (they connect to Guest.vnc()/ssh() endpoints directly, which a
// tart VM does not have: they need a stream-returning Guest method).
import type { Readable } from 'node:stream';
import {
  DriverError,
  type DisplayInfo,
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
import { VmFiles } from '../linux/files.ts';
import { runCommand } from '../linux/ssh-client-exec.ts';
import { SshClient } from '../linux/ssh-client.ts';
import { pinnedInMemory } from './known-hosts.ts';
import type { Mac } from './mac.ts';
import { ScreenInput } from './screen-input.ts';

export interface RunningVm {
  name: string;
  /** The guest's address on the Mac's private network. */
  ip: string;
  /** Tart's VNC server on the Mac (127.0.0.1) and its password. */
  vnc: { host: string; port: number; password: string };
  display: { width: number; height: number };
}

export class TartGuest implements Guest {
  readonly vm: RunningVm;
  readonly #ssh: SshClient;
  #files: Promise<VmFiles> | undefined;
  #lastActivity: Date | undefined;
  readonly #screen: ScreenInput;

  constructor(mac: Mac, vm: RunningVm, credentials: () => { username: string; privateKey: string }) {
    this.vm = vm;
    const verify = pinnedInMemory();
    this.#ssh = new SshClient(() => ({
      ...credentials(),
      host: vm.ip,
      port: 22,
      hostKey: '',
      verifyHostKey: verify,
      sock: () => mac.forward(vm.ip, 22),
    }));
    this.#screen = new ScreenInput(async () => ({
      stream: await mac.forward(vm.vnc.host, vm.vnc.port),
      password: vm.vnc.password,
    }));
  }

  /** Resolves once the guest's sshd logs the guest user in (it answers a little after its lease). */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.#filesReady();
        return;
      } catch (e) {
        this.#files = undefined;
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** The guest user's home, read once per VM: relative paths of the files API start there. */
  #filesReady(): Promise<VmFiles> {
    this.#files ??= this.#ssh.run('printf %s "$HOME"', { deadlineMs: 10_000 }).then((r) => {
      const home = r.stdout.toString();
      if (r.code !== 0 || !home.startsWith('/')) {
        throw new DriverError(
          'unreachable',
          `guest ${this.vm.name}: no home directory (${r.stderr.toString().trim()})`,
        );
      }
      return new VmFiles(this.#ssh, home);
    });
    return this.#files;
  }

  #touch(): void {
    this.#lastActivity = new Date();
  }

  async exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    this.#touch();
    return runCommand(this.#ssh, command, {
      env: {},
      ...(opts.timeoutMs !== undefined && { timeoutMs: opts.timeoutMs }),
    });
  }

  async putFile(path: string, data: Buffer | Readable): Promise<void> {
    this.#touch();
    return (await this.#filesReady()).putFile(path, data);
  }

  async getFile(path: string): Promise<Readable> {
    this.#touch();
    return (await this.#filesReady()).getFile(path);
  }

  async putDir(path: string, tar: Readable): Promise<void> {
    this.#touch();
    return (await this.#filesReady()).putDir(path, tar);
  }

  async getDir(path: string): Promise<Readable> {
    this.#touch();
    return (await this.#filesReady()).getDir(path);
  }

  /** Tart was told `--display WxHpx`: one point is one pixel. */
  async displayInfo(): Promise<DisplayInfo> {
    return { ...this.vm.display, scale: 1 };
  }

  async lastActivity(): Promise<Date | undefined> {
    return this.#lastActivity;
  }

  close(): void {
    this.#ssh.close();
    this.#screen.close();
  }

  click(x: number, y: number, opts: { button?: MouseButton; double?: boolean } = {}): Promise<void> {
    this.#touch();
    return this.#screen.click(x, y, opts.button, opts.double);
  }
  move(x: number, y: number): Promise<void> {
    this.#touch();
    return this.#screen.move(x, y);
  }
  drag(from: { x: number; y: number }, to: { x: number; y: number }, button?: MouseButton): Promise<void> {
    this.#touch();
    return this.#screen.drag(from, to, button);
  }
  scroll(x: number, y: number, direction: ScrollDirection, amount: number): Promise<void> {
    this.#touch();
    return this.#screen.scroll(x, y, direction, amount);
  }
  async position(): Promise<{ x: number; y: number }> {
    return this.#screen.position();
  }
  type(text: string, delayMs?: number): Promise<void> {
    this.#touch();
    return this.#screen.type(text, delayMs);
  }
  press(key: string, modifiers?: string[]): Promise<void> {
    this.#touch();
    return this.#screen.press(key, modifiers);
  }
  hotkey(keys: string): Promise<void> {
    this.#touch();
    return this.#screen.hotkey(keys);
  }
  /** `showCursor` draws nothing: the RFB framebuffer has no pointer in it (docs/mac.md). */
  screenshot(opts?: ScreenshotOptions): Promise<Buffer> {
    return this.#screen.screenshot(opts);
  }

  // ---- not yet built: see the header ----

  windows(): Promise<WindowNode[]> {
    return notYet('windows');
  }
  startRecording(_name?: string): Promise<RecordingInfo> {
    return notYet('recordings');
  }
  stopRecording(_id: string): Promise<RecordingInfo> {
    return notYet('recordings');
  }
  listRecordings(): Promise<RecordingInfo[]> {
    return notYet('recordings');
  }
  getRecording(_id: string): Promise<RecordingInfo | undefined> {
    return notYet('recordings');
  }
  deleteRecording(_id: string): Promise<void> {
    return notYet('recordings');
  }
  downloadRecording(_id: string): Promise<Readable> {
    return notYet('recordings');
  }
  vnc(): Promise<Endpoint & { password: string }> {
    return notYet('the VNC WebSocket (a tart VM’s VNC is reached only through its Mac)');
  }
  ssh(): Promise<Endpoint & { username: string; privateKey: string; hostKey?: string }> {
    return notYet('the SSH WebSocket (a tart VM’s sshd is reached only through its Mac)');
  }
}

function notYet(what: string): Promise<never> {
  return Promise.reject(new DriverError('missing_tool', `${what}: not implemented in the tart driver yet`));
}
