// The guest half of the linux driver: data-plane calls on one running VM (a real Linux desktop on
// this machine). Screen and input go through one long-running X11 connection (GetImage over MIT-SHM,
// XTEST), exec and files through one pooled SSH connection, recordings through ffmpeg into the VM's
// root-owned data dir. Every call counts as activity (vm.touch()).
//
// One LinuxGuest per VM is meant to live as long as the VM runs; close() releases its connections
// (the lifecycle half calls it when the VM stops or is deleted). Both connections re-open by
// themselves if the VM's Xvfb or sshd restarted in between.
import type { Duplex, Readable } from 'node:stream';
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
import { getXClipboard, setXClipboard, sshClipboardRun, type ClipboardRun } from './clipboard-x.ts';
import { DESKTOP_ENV } from './display.ts';
import { ExecAgent } from './exec-agent.ts';
import { VmFiles } from './files.ts';
import { Input } from './input.ts';
import { chordFor, keysymsForText, parseHotkey } from './keys.ts';
import { Recorder, type RecorderOptions } from './recorder.ts';
import { displayInfo, screenshot } from './screen.ts';
import { runCommand, withEnv } from './ssh-client-exec.ts';
import { openExecStream } from './ssh-exec-stream.ts';
import { checkPort } from '../stream-checks.ts';
import { SshClient } from './ssh-client.ts';
import type { LinuxVmRuntime } from './vm-runtime.ts';
import { atspiApps, mergeAccessibility } from './windows-atspi.ts';
import { listWindows } from './windows.ts';
import { X11Link } from './x11-connection.ts';

export interface LinuxGuestOptions {
  recorder?: RecorderOptions;
}

export class LinuxGuest implements Guest {
  readonly #vm: LinuxVmRuntime;
  readonly #x: X11Link;
  readonly #ssh: SshClient;
  /** xclip's commands, as the VM's user in its desktop session. */
  readonly #clipboardRun: ClipboardRun;
  readonly #files: VmFiles;
  readonly #recorder: Recorder;
  readonly #agent: ExecAgent;

  constructor(vm: LinuxVmRuntime, opts: LinuxGuestOptions = {}) {
    this.#vm = vm;
    this.#x = new X11Link(vm.display, vm.xSocket, vm.xCookie);
    this.#ssh = new SshClient(() => vm.ssh);
    this.#files = new VmFiles(this.#ssh, vm.home);
    this.#clipboardRun = sshClipboardRun(this.#ssh, (command) => withEnv(command, this.sessionEnv()));
    this.#agent = new ExecAgent(this.#ssh, () => this.sessionEnv());
    this.#recorder = new Recorder(
      () => ({
        display: vm.display,
        xauthority: vm.xauthority,
        width: vm.width,
        height: vm.height,
        dataDir: vm.dataDir,
        ...(vm.cgroupPath === undefined ? {} : { cgroupPath: vm.cgroupPath }),
        ...(vm.namespaces && {
          vm: { uid: vm.uid, gid: vm.gid, namespaces: vm.namespaces, tmpDir: vm.namespaces.tmpDir },
        }),
      }),
      opts.recorder,
    );
  }

  /**
   * The desktop session's environment, given to every exec (so GUI programs open on the VM's
   * screen). The bus is where the driver started it; its socket is not looked at from here (a path
   * in the VM's runtime dir is the VM's to change).
   */
  sessionEnv(): Record<string, string> {
    const vm = this.#vm;
    return {
      DISPLAY: vm.display,
      XAUTHORITY: vm.xauthority,
      XDG_RUNTIME_DIR: vm.runtimeDir,
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${vm.runtimeDir}/bus`,
      ...DESKTOP_ENV,
    };
  }

  // ---- shell and files ----

  /**
   * Through the VM's exec agent when it is up (exec-agent.ts), the plain SSH way otherwise (and
   * meanwhile the agent starts). `agent` changes nothing here: every exec already runs in the
   * desktop session (AT-SPI works from any).
   */
  async exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    this.#vm.touch();
    return await (this.#agent.run(command, opts.timeoutMs) ??
      runCommand(this.#ssh, command, {
        env: this.sessionEnv(),
        ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }),
      }));
  }

  /** A command with its streams open, in the same shell and session as exec (ssh-exec-stream.ts). */
  execStream(command: string, opts: ExecStreamOptions = {}): Promise<ExecStream> {
    this.#vm.touch();
    return openExecStream(this.#ssh, command, { ...opts, env: this.sessionEnv() });
  }

  /**
   * 127.0.0.1:port of the VM: a channel of the pooled SSH connection that the VM's sshd (as the VM's
   * user, in the VM's network namespace) connects for us, as `ssh -W` would.
   */
  async forwardPort(port: number): Promise<Duplex> {
    checkPort(port);
    this.#vm.touch();
    return this.#ssh.forwardOut('127.0.0.1', port, { byReason: true });
  }

  getClipboard(prefer?: 'text' | 'image'): Promise<ClipboardContent> {
    this.#vm.touch();
    return getXClipboard(this.#clipboardRun, prefer);
  }

  setClipboard(content: Exclude<ClipboardContent, { type: 'empty' }>): Promise<void> {
    this.#vm.touch();
    return setXClipboard(this.#clipboardRun, content);
  }

  putFile(path: string, data: Buffer | Readable): Promise<void> {
    this.#vm.touch();
    return this.#files.putFile(path, data);
  }

  getFile(path: string): Promise<Readable> {
    this.#vm.touch();
    return this.#files.getFile(path);
  }

  putDir(path: string, tar: Readable): Promise<void> {
    this.#vm.touch();
    return this.#files.putDir(path, tar);
  }

  getDir(path: string): Promise<Readable> {
    this.#vm.touch();
    return this.#files.getDir(path);
  }

  // ---- mouse ----

  async click(x: number, y: number, opts: { button?: MouseButton; double?: boolean } = {}): Promise<void> {
    await (await this.#input()).click(x, y, opts.button, opts.double === true);
  }

  async move(x: number, y: number): Promise<void> {
    await (await this.#input()).move(x, y);
  }

  async drag(
    from: { x: number; y: number },
    to: { x: number; y: number },
    button?: MouseButton,
  ): Promise<void> {
    await (await this.#input()).drag(from, to, button);
  }

  async scroll(x: number, y: number, direction: ScrollDirection, amount: number): Promise<void> {
    await (await this.#input()).scroll(x, y, direction, amount);
  }

  async position(): Promise<{ x: number; y: number }> {
    return (await this.#input()).position();
  }

  async mouseButton(button: MouseButton, down: boolean): Promise<void> {
    await (await this.#input()).button(button, down);
  }

  // ---- keyboard ----

  async type(text: string, delayMs?: number): Promise<void> {
    if (typeof text !== 'string') throw new DriverError('invalid_argument', 'text must be a string');
    const keysyms = keysymsForText(text);
    await (await this.#input()).type(keysyms, delayMs ?? 0);
  }

  async press(key: string, modifiers?: string[]): Promise<void> {
    const chord = chordFor(key, modifiers);
    await (await this.#input()).press(chord);
  }

  async hotkey(keys: string): Promise<void> {
    const chord = parseHotkey(keys);
    await (await this.#input()).press(chord);
  }

  async keys(keys: string, down: boolean): Promise<void> {
    const { held, key } = parseHotkey(keys);
    await (await this.#input()).keys([...held, key], down);
  }

  // ---- screen ----

  async screenshot(opts: ScreenshotOptions = {}): Promise<Buffer> {
    this.#vm.touch();
    return screenshot(await this.#x.get(), opts);
  }

  async displayInfo(): Promise<DisplayInfo> {
    this.#vm.touch();
    return displayInfo(await this.#x.get());
  }

  /** X11 windows (title, geometry, pid, focus), each with its AT-SPI subtree where the app has one. */
  async windows(): Promise<WindowNode[]> {
    this.#vm.touch();
    const [windows, apps] = await Promise.all([
      this.#x.get().then(listWindows),
      atspiApps(this.#ssh, this.sessionEnv()).catch(() => []),
    ]);
    return mergeAccessibility(windows, apps);
  }

  // ---- recordings ----

  startRecording(name?: string): Promise<RecordingInfo> {
    this.#vm.touch();
    return this.#recorder.start(name);
  }

  stopRecording(id: string): Promise<RecordingInfo> {
    this.#vm.touch();
    return this.#recorder.stop(id);
  }

  listRecordings(): Promise<RecordingInfo[]> {
    this.#vm.touch();
    return this.#recorder.list();
  }

  getRecording(id: string): Promise<RecordingInfo | undefined> {
    this.#vm.touch();
    return this.#recorder.get(id);
  }

  deleteRecording(id: string): Promise<void> {
    this.#vm.touch();
    return this.#recorder.delete(id);
  }

  downloadRecording(id: string): Promise<Readable> {
    this.#vm.touch();
    return this.#recorder.download(id);
  }

  // ---- endpoints ----

  async vnc(): Promise<Endpoint & { password: string }> {
    this.#vm.touch();
    const { host, port, password } = this.#vm.vnc;
    return { host, port, password };
  }

  async ssh(): Promise<Endpoint & { username: string; privateKey: string; hostKey?: string }> {
    this.#vm.touch();
    const { host, port, username, privateKey, hostKey } = this.#vm.ssh;
    return { host, port, username, privateKey, ...(hostKey ? { hostKey } : {}) };
  }

  async lastActivity(): Promise<Date | undefined> {
    return this.#vm.lastActivity();
  }

  /** Closes the X11 and SSH connections: every call still waiting on them fails at once. */
  abandon(): void {
    this.#x.close();
    this.#agent.reset();
    this.#ssh.close();
  }

  /** Stops this VM's recordings and closes the X11 and SSH connections. Idempotent. */
  async close(): Promise<void> {
    await this.#recorder.stopAll().catch(() => undefined);
    this.#agent.close();
    this.#x.close();
    this.#ssh.close();
  }

  async #input(): Promise<Input> {
    this.#vm.touch();
    return new Input(await this.#x.get());
  }
}
