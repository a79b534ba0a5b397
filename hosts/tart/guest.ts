// A running Tart VM's data plane. Exec, files and directories go over SSH to the guest user, the Mac
// being the jump host (ssh2 forwardOut on the Mac's pooled connection: guest addresses are private
// to the Mac); one pooled guest connection per VM, the guest's host key pinned on first use.
//
// Not yet built (each fails with a DriverError saying so): screen and input over RFB through the
// tunnelled VNC, the window tree (osascript), recordings, and the API's VNC/SSH WebSockets (they
// connect to Guest.vnc()/ssh() endpoints directly, which a tart VM does not have).
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
  }

  // ---- not yet built: see the header ----

  click(_x: number, _y: number, _opts?: { button?: MouseButton; double?: boolean }): Promise<void> {
    return notYet('click');
  }
  move(_x: number, _y: number): Promise<void> {
    return notYet('move');
  }
  drag(_from: { x: number; y: number }, _to: { x: number; y: number }, _button?: MouseButton): Promise<void> {
    return notYet('drag');
  }
  scroll(_x: number, _y: number, _direction: ScrollDirection, _amount: number): Promise<void> {
    return notYet('scroll');
  }
  position(): Promise<{ x: number; y: number }> {
    return notYet('position');
  }
  type(_text: string, _delayMs?: number): Promise<void> {
    return notYet('type');
  }
  press(_key: string, _modifiers?: string[]): Promise<void> {
    return notYet('press');
  }
  hotkey(_keys: string): Promise<void> {
    return notYet('hotkey');
  }
  screenshot(_opts?: ScreenshotOptions): Promise<Buffer> {
    return notYet('screenshot');
  }
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
