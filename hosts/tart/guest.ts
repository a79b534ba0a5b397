// A running Tart VM's data plane. Exec, files and directories go over SSH to the guest user, the Mac
// being the jump host (ssh2 forwardOut on the Mac's pooled connection: guest addresses are private
// to the Mac); one pooled guest connection per VM, the guest's host key pinned on first use.
//
// Screen and input: one persistent RFB session per VM to Tart's VNC server, tunnelled through the
// Mac (screen-input.ts).
//
// The API's VNC and SSH WebSockets relay openStream(): a channel through the Mac to Tart's VNC server
// or the guest's sshd. A customer logs in over SSH with a key of the VM's own (ssh()), never the
// Mac's: made on the first ask, authorized in the guest, kept in the VM's Tart directory on the Mac
// so that a control-plane restart hands out the same one.
//
// Agent exec (`exec_ax`) and the window tree depend on the guest's system (guest-os.ts): macOS
// through launchctl asuser and System Events, a Linux desktop (the emulated Macs' guests) through
// its session's environment, wmctrl and AT-SPI.
//
// Recordings are encoded on the control plane from the RFB framebuffer (recorder.ts says why).
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
  type GuestService,
  type MouseButton,
  type RecordingInfo,
  type ScreenshotOptions,
  type ScrollDirection,
  type WindowNode,
} from '../driver.ts';
import { VmFiles } from '../linux/files.ts';
import { runCommand } from '../linux/ssh-client-exec.ts';
import { shellQuote, SshClient } from '../linux/ssh-client.ts';
import { generateSshKey } from '../linux/sshd.ts';
import { guestOsOf, SESSION_WAIT_S, withTccHint, type GuestOs } from './guest-os.ts';
import { sealScript } from './guest-seal.ts';
import { tartExecStream, tartForwardPort, tartGetClipboard, tartSetClipboard } from './guest-streams.ts';
import { pinnedInMemory } from './known-hosts.ts';
import { vmDirWord, type Mac } from './mac.ts';
import { FrameRecorder } from './recorder.ts';
import { ScreenInput } from './screen-input.ts';

export interface RunningVm {
  name: string;
  /** The guest's address on the Mac's private network. */
  ip: string;
  /** Tart's VNC server on the Mac (127.0.0.1) and its password. */
  vnc: { host: string; port: number; password: string };
  display: { width: number; height: number };
}

/** The VM's own SSH key for customers, in its Tart directory on the Mac (0600, the Mac account's). */
const VM_KEY_FILE = 'sandbay-ssh-key';
/** The comment that marks the VM key's line in the guest's authorized_keys (one at a time). */
const VM_KEY_COMMENT = 'sandbay-vm-key';
/** The tree scripts stop themselves sooner (atspi-tree.py at 4 s); System Events may be slower. */
const WINDOWS_TIMEOUT_MS = 15_000;
/** pbcopy/pbpaste (typing text with no key): a few ms each on an answering guest. */
const CLIPBOARD_TIMEOUT_MS = 10_000;

export class TartGuest implements Guest {
  readonly vm: RunningVm;
  readonly #mac: Mac;
  readonly #ssh: SshClient;
  readonly #hostKey: () => string | undefined;
  #vmKey: Promise<string> | undefined;
  #os: Promise<GuestOs> | undefined;
  #session: Promise<GuestOs> | undefined;
  #files: Promise<VmFiles> | undefined;
  #lastActivity: Date | undefined;
  readonly #screen: ScreenInput;
  readonly recorder: FrameRecorder;

  constructor(
    mac: Mac,
    vm: RunningVm,
    credentials: () => { username: string; privateKey: string },
    recordingsDir: string,
  ) {
    this.vm = vm;
    this.#mac = mac;
    const pin = pinnedInMemory();
    this.#hostKey = pin.line;
    this.#ssh = new SshClient(() => ({
      ...credentials(),
      host: vm.ip,
      port: 22,
      hostKey: '',
      verifyHostKey: pin.verify,
      sock: () => mac.forward(vm.ip, 22),
    }));
    this.#screen = new ScreenInput(
      async () => ({
        stream: await mac.forward(vm.vnc.host, vm.vnc.port),
        password: vm.vnc.password,
      }),
      {
        read: async () => (await this.#inSession('pbpaste', 'pbpaste')).stdout,
        write: async (text) => void (await this.#inSession('pbcopy', 'pbcopy', Buffer.from(text))),
      },
    );
    this.recorder = new FrameRecorder(recordingsDir, () => this.#screen.frame());
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
    if (opts.agent) {
      if (typeof command !== 'string' || command.trim() === '')
        throw new DriverError('invalid_argument', 'command is required');
      command = (await this.#inGuiSession()).inSession(command);
    }
    return runCommand(this.#ssh, command, {
      env: {},
      ...(opts.timeoutMs !== undefined && { timeoutMs: opts.timeoutMs }),
    });
  }

  // Streaming exec, forwarded ports and the clipboard: guest-streams.ts.
  execStream(command: string, opts: ExecStreamOptions = {}): Promise<ExecStream> {
    this.#touch();
    return tartExecStream(this.#ssh, command, opts);
  }
  forwardPort(port: number): Promise<Duplex> {
    this.#touch();
    return tartForwardPort(this.#ssh, port);
  }
  async getClipboard(prefer?: 'text' | 'image'): Promise<ClipboardContent> {
    this.#touch();
    return tartGetClipboard(this.#ssh, await this.#guestOs(), prefer);
  }
  async setClipboard(content: Exclude<ClipboardContent, { type: 'empty' }>): Promise<void> {
    this.#touch();
    return tartSetClipboard(this.#ssh, await this.#guestOs(), content);
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

  /**
   * A call outlived its deadline (hosts/guest-deadlines.ts): drops the guest's SSH connection and the
   * RFB session, so whatever still waits on them fails at once; the next call opens fresh ones.
   */
  abandon(): void {
    this.close();
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
  mouseButton(button: MouseButton, down: boolean): Promise<void> {
    this.#touch();
    return this.#screen.button(button, down);
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
  keys(keys: string, down: boolean): Promise<void> {
    this.#touch();
    return this.#screen.keys(keys, down);
  }
  /** `showCursor` draws the server's cursor shape where the driver last put the pointer. */
  screenshot(opts?: ScreenshotOptions): Promise<Buffer> {
    return this.#screen.screenshot(opts);
  }

  /** Tart's VNC server, as the Mac sees it (127.0.0.1): openStream('vnc') reaches it. */
  async vnc(): Promise<Endpoint & { password: string }> {
    this.#touch();
    return { ...this.vm.vnc };
  }

  /** The guest's sshd as the Mac sees it, the guest user and the VM's own key. */
  async ssh(): Promise<Endpoint & { username: string; privateKey: string; hostKey?: string }> {
    this.#touch();
    this.#vmKey ??= this.#loadOrMakeVmKey().catch((e: unknown) => {
      this.#vmKey = undefined;
      throw e;
    });
    const privateKey = await this.#vmKey;
    const hostKey = this.#hostKey();
    return { host: this.vm.ip, port: 22, username: 'admin', privateKey, ...(hostKey && { hostKey }) };
  }

  /** A channel through the Mac to Tart's VNC server or the guest's sshd. */
  openStream(service: GuestService): Promise<Duplex> {
    this.#touch();
    return service === 'vnc'
      ? this.#mac.forward(this.vm.vnc.host, this.vm.vnc.port)
      : this.#mac.forward(this.vm.ip, 22);
  }

  /**
   * The key kept on the Mac, or a new one: authorized in the guest first (replacing an earlier VM
   * key's line, e.g. one a restored snapshot carries), then kept on the Mac.
   */
  async #loadOrMakeVmKey(): Promise<string> {
    const file = `${vmDirWord(this.vm.name)}/${VM_KEY_FILE}`;
    const kept = await this.#mac.sh(`cat ${file} 2>/dev/null || true`);
    if (kept.stdout.includes('PRIVATE KEY')) return kept.stdout;
    const key = generateSshKey(VM_KEY_COMMENT);
    const install = await this.exec(
      'umask 077 && mkdir -p ~/.ssh && ' +
        `{ grep -v ' ${VM_KEY_COMMENT}$' ~/.ssh/authorized_keys 2>/dev/null; printf '%s\n' ${shellQuote(key.publicKey)}; } > ~/.ssh/authorized_keys.new && ` +
        'mv ~/.ssh/authorized_keys.new ~/.ssh/authorized_keys',
      { timeoutMs: 10_000 },
    );
    if (install.return_code !== 0) {
      throw new DriverError(
        'command_failed',
        `authorizing the VM key in ${this.vm.name}: ${install.stderr.trim()}`,
      );
    }
    const save = await this.#mac.sh(`umask 077 && printf '%s' ${shellQuote(key.privateKey)} > ${file}`);
    if (save.code !== 0) {
      throw new DriverError('command_failed', `keeping the VM key of ${this.vm.name}: ${save.stderr.trim()}`);
    }
    return key.privateKey;
  }

  /** Seals a fresh clone (guest-seal.ts): the guest user's own password, no password SSH, a new host key. */
  async seal(password: string): Promise<void> {
    const os = await this.#guestOs();
    const r = await this.#bounded('sealing', sealScript(os.name), Buffer.from(`${password}\n`), 60_000);
    if (r.code !== 0) {
      const line = r.stderr.trim().split('\n')[0] || `exit ${r.code}`;
      throw new DriverError('command_failed', `sealing ${this.vm.name}: ${withTccHint(line)}`);
    }
  }

  /**
   * Asks the guest to power off (`sudo shutdown -h now`, the same on macOS and Linux guests);
   * whether it took the request. The connection may drop before the command answers: that is the
   * guest going down.
   */
  async requestShutdown(): Promise<boolean> {
    try {
      const r = await this.#bounded('shutdown', 'sudo -n shutdown -h now', undefined, 10_000);
      return r.code === 0 || r.code === -1;
    } catch (e) {
      // No answer in time, or the connection gone: the guest may well be on its way down.
      return e instanceof DriverError && (e.code === 'unreachable' || e.code === 'timeout');
    }
  }

  /**
   * The guest's system, once its GUI session is up (waited for once per boot, bounded): what runs in
   * the session (agent exec, the window tree, the clipboard) right after a boot would otherwise
   * fail while auto-login is still under way.
   */
  #inGuiSession(): Promise<GuestOs> {
    this.#session ??= this.#guestOs()
      .then(async (os) => {
        const r = await this.#bounded(
          'the GUI session',
          os.sessionUp,
          undefined,
          (SESSION_WAIT_S + 10) * 1000,
        );
        if (r.code !== 0) {
          const line = r.stderr.trim().split('\n')[0] || `exit ${r.code}`;
          throw new DriverError('command_failed', `${this.vm.name}: ${withTccHint(line)}`);
        }
        return os;
      })
      .catch((e: unknown) => {
        this.#session = undefined;
        throw e;
      });
    return this.#session;
  }

  /** The guest's system, asked once per boot. */
  #guestOs(): Promise<GuestOs> {
    this.#os ??= this.#ssh.run('uname -s', { deadlineMs: 10_000 }).then(
      (r) => guestOsOf(r.stdout.toString()),
      (e: unknown) => {
        this.#os = undefined;
        throw e;
      },
    );
    return this.#os;
  }

  async windows(): Promise<WindowNode[]> {
    this.#touch();
    const os = await this.#inGuiSession();
    return os.windows((command, stdin) =>
      this.#bounded('the window tree', command, stdin, WINDOWS_TIMEOUT_MS),
    );
  }

  /** Runs a command line in the guest with a deadline (`timeout` past it); never rejects on its exit code. */
  async #bounded(
    what: string,
    command: string,
    stdin: Buffer | undefined,
    deadlineMs: number,
  ): Promise<{ code: number; stdout: string; stderr: string }> {
    const r = await this.#ssh.run(command, {
      ...(stdin && { stdin: Readable.from([stdin]) }),
      deadlineMs,
    });
    if (r.deadlineHit) {
      throw new DriverError('timeout', `${what} of ${this.vm.name}: no answer within ${deadlineMs} ms`);
    }
    return { code: r.code, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
  }

  /** A macOS tool that must run in the GUI session (the pasteboard is the session's); fails on a non-zero exit. */
  async #inSession(tool: string, command: string, stdin?: Buffer): Promise<{ stdout: string }> {
    const os = await this.#inGuiSession();
    const r = await this.#bounded(tool, os.inSession(command), stdin, CLIPBOARD_TIMEOUT_MS);
    if (r.code !== 0) {
      const line = r.stderr.trim().split('\n')[0] || `exit ${r.code}`;
      throw new DriverError('command_failed', `${tool} in ${this.vm.name}: ${line}`, tool);
    }
    return r;
  }

  startRecording(name?: string): Promise<RecordingInfo> {
    this.#touch();
    return this.recorder.start(name);
  }
  stopRecording(id: string): Promise<RecordingInfo> {
    return this.recorder.stop(id);
  }
  listRecordings(): Promise<RecordingInfo[]> {
    return this.recorder.list();
  }
  getRecording(id: string): Promise<RecordingInfo | undefined> {
    return this.recorder.get(id);
  }
  deleteRecording(id: string): Promise<void> {
    return this.recorder.delete(id);
  }
  downloadRecording(id: string): Promise<Readable> {
    return this.recorder.download(id);
  }
}
