// The host driver interface, shared by every driver (linux, tart, sim). The operator uses the
// lifecycle half (Host); the API uses the guest half (Guest) for data-plane calls on a running sandbox.
import type { Duplex, Readable, Writable } from 'node:stream';
import type { DriverKind, EgressPolicy, EgressSupport, MacModel } from '../crds/index.ts';

/** How a driver reaches one Mac: the fields of a Mini resource it needs. */
export interface HostRef {
  name: string;
  address: string;
  model: MacModel;
  credentialsRef?: string;
  /** A linux Mac's VM slots (`Mini.spec.vmSlots`); absent: the model's two. */
  vmSlots?: number;
}

export interface HostImage {
  name: string;
  diskGiB: number;
}

/** What a host reports about itself: inventory and capacity. */
export interface HostInfo {
  model: MacModel;
  cores: number;
  memoryGiB: number;
  diskGiB: number;
  /** Images present on the host, each with the disk size its VMs get. */
  images: HostImage[];
  /** VMs the host can run at once (the linux driver: VM users it may create). */
  maxVms: number;
  /** When the host last booted, where the driver can tell: a change means its VMs may be gone. */
  bootedAt?: string;
  /** The egress policies the host enforces (crds/egress.ts); absent: none but its VMs' own network. */
  egress?: EgressSupport;
}

export interface VmCreateSpec {
  /** Unique on the host; the VM resource's name. */
  name: string;
  image: string;
  cpu: number;
  memoryGiB: number;
}

export type VmRunState = 'stopped' | 'running';

export interface VmInfo {
  name: string;
  image: string;
  cpu: number;
  memoryGiB: number;
  state: VmRunState;
  /**
   * A running VM that is paused (`pauseVm`): frozen where it is, its memory kept. It still holds its
   * cores and memory on the Mac, so `state` stays `running`.
   */
  paused?: boolean;
  /** The VM's address once running (linux driver: its own 127.0.x.y). */
  ip?: string;
}

export interface DeltaInfo {
  bytes: number;
  sha256: string;
}

/**
 * One Mac. Every method throws DriverError; `code: 'unreachable'` means the host did not answer
 * (the operator then marks its VMs down).
 */
export interface Host {
  info(): Promise<HostInfo>;
  listVms(): Promise<VmInfo[]>;
  /** Clones a fresh VM from the image, stopped. A VM of that name is discarded first. */
  createVm(spec: VmCreateSpec): Promise<VmInfo>;
  /** Sets vCPU and memory of a stopped VM. */
  resizeVm(name: string, size: { cpu: number; memoryGiB: number }): Promise<void>;
  /** Boots the VM; resolves once its desktop, VNC and SSH answer. */
  startVm(name: string): Promise<VmInfo>;
  stopVm(name: string): Promise<void>;
  /** Throws the VM away: no process of it outlives this call, none of its files remain. */
  deleteVm(name: string): Promise<void>;
  /** Writes the VM's disk delta (against its image) as an archive to `file`. */
  exportDelta(name: string, file: string): Promise<DeltaInfo>;
  /** Applies a disk delta archive onto a stopped VM cloned from the delta's base image. */
  importDelta(name: string, file: string): Promise<void>;
  /**
   * Puts `policy` in force on a running VM, replacing the one it had (a VM boots with its host's
   * default, `HostInfo.egress`). Connections the new policy refuses stop at their next packet.
   * Absent on a driver that enforces no policy.
   */
  setEgress?(name: string, policy: EgressPolicy): Promise<void>;
  /**
   * Makes `spec.name` (a VM of that name is discarded first) a stopped VM of `spec.image` whose disk
   * is `source`'s disk as it is now, `source` being a VM of this host on the same image. A running
   * `source` is held still while its disk is copied, so the copy is one instant, and keeps running.
   * Only the disk is copied: the fork boots like any cold VM.
   */
  forkVm(source: string, spec: VmCreateSpec): Promise<VmInfo>;
  /**
   * Freezes a running VM where it is: none of its processes runs (no CPU), its memory is kept, and
   * `resumeVm` lets it go on as if no time had passed. Pausing a paused VM does nothing. A driver
   * that cannot pause throws `unsupported` (and names the reason in `Driver.unsupported`).
   */
  pauseVm(name: string): Promise<void>;
  /** Lets a paused VM run on; resuming a VM that is not paused does nothing. */
  resumeVm(name: string): Promise<void>;
  /** Data-plane access to a running VM. */
  guest(name: string): Guest;
}

/** What a driver cannot do on its hosts at all, each with the reason the API answers (501). */
export interface Unsupported {
  pause?: string;
}

export interface Driver {
  readonly kind: DriverKind;
  /** Operations none of this driver's hosts can do, refused by name before anything is written. */
  readonly unsupported?: Unsupported;
  host(ref: HostRef): Host;
  /** Stops every process and connection the driver started. */
  close(): Promise<void>;
}

// ---- guest (data plane) ----

export interface ExecOptions {
  /** Kill the command after this long; the result then has `timedOut: true` and return code 124. */
  timeoutMs?: number;
  /** Run under the in-VM control agent's session (accessibility APIs); `exec_ax` in the SDK. */
  agent?: boolean;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  return_code: number;
  timed_out: boolean;
}

/** `back` and `forward` are the side buttons (X buttons 8 and 9). */
export type MouseButton = 'left' | 'right' | 'middle' | 'back' | 'forward';

/**
 * Pause between the clicks of a double or triple click, as a hand (and xdotool's --repeat) leaves
 * one: well inside every toolkit's multi-click time (xterm 250 ms, GTK 400 ms). Sent back to back,
 * the second click on a window that xfwm4 was just focusing was lost about 1 time in 30 here (xfwm4
 * holds a synchronous passive grab on every client window and replays each press after focusing and
 * raising the window); with the pause, none in 75 on unfocused windows.
 */
export const MULTI_CLICK_GAP_MS = 40;
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

export interface ScreenshotOptions {
  showCursor?: boolean;
  region?: { x: number; y: number; width: number; height: number };
  format?: 'png' | 'jpeg';
  /** JPEG quality 1–100. */
  quality?: number;
  /** Scale factor in (0, 1]. */
  scale?: number;
}

export interface DisplayInfo {
  width: number;
  height: number;
  scale: number;
}

/** A node of the window / accessibility tree. Windows are the top level; apps that expose AT-SPI add children. */
export interface WindowNode {
  role: string;
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** Window id or accessibility path. */
  id?: string;
  app?: string;
  pid?: number;
  focused?: boolean;
  children?: WindowNode[];
}

export interface RecordingInfo {
  id: string;
  name: string;
  state: 'recording' | 'stopped' | 'failed';
  started_at: string;
  stopped_at?: string;
  duration_s?: number;
  bytes?: number;
}

export interface Endpoint {
  host: string;
  port: number;
}

/** A streaming exec's terminal: stdout and stderr then arrive merged on stdout, as a terminal shows them. */
export interface PtySize {
  cols: number;
  rows: number;
}

export interface ExecStreamOptions {
  /** Run under a pseudo-terminal of this size (TERM=xterm-256color); resize() changes it. */
  pty?: PtySize;
  /**
   * Kill the command's process group after this long (TERM, then KILL 2 s later); its exit then has
   * `timedOut: true` and code 124. None: the command runs until it exits or the stream is closed.
   */
  timeoutMs?: number;
}

/** How a streamed command ended. */
export interface ExecExit {
  /** Exit status; 128 + signal number when a signal killed it; 124 when its timeout did. */
  code: number;
  timedOut: boolean;
}

/**
 * A command running in the VM with its standard streams open (exec-stream in the API). Output stops
 * at the command's exit (what it left in the background keeps running and is not part of the
 * stream); `stdout` and `stderr` end then, and `exit` resolves. Reading is flow-controlled: a paused
 * stdout holds the VM's writer.
 */
export interface ExecStream {
  /** The command's standard input (or the terminal's keyboard); end() closes it (EOF). */
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Empty under a pty (the terminal merges both streams into stdout). */
  readonly stderr: Readable;
  /** Resolves once the command has exited; rejects when the VM's connection went away first. */
  readonly exit: Promise<ExecExit>;
  /** New terminal size (a pty only; otherwise ignored). */
  resize(size: PtySize): void;
  /**
   * Hangs up before the exit: the command's process group gets SIGHUP (as when a terminal closes;
   * `nohup` and `setsid` children survive it) and the stream's resources are freed. Idempotent; a
   * no-op once the command exited.
   */
  close(): void;
}

/** What the guest's clipboard holds (the X CLIPBOARD selection, the macOS general pasteboard). */
export type ClipboardContent =
  { type: 'text'; text: string } | { type: 'image'; mimeType: 'image/png'; data: Buffer } | { type: 'empty' };

/** A service of the VM that the API's WebSockets relay. */
export type GuestService = 'vnc' | 'ssh';

export interface Guest {
  exec(command: string, opts?: ExecOptions): Promise<ExecResult>;
  /** Writes a file (parents created); the path is inside the VM and cannot escape it. */
  putFile(path: string, data: Buffer | Readable): Promise<void>;
  getFile(path: string): Promise<Readable>;
  /** Unpacks a tar archive into a directory of the VM. */
  putDir(path: string, tar: Readable): Promise<void>;
  /** Packs a directory of the VM as a tar archive. */
  getDir(path: string): Promise<Readable>;

  click(x: number, y: number, opts?: { button?: MouseButton; double?: boolean }): Promise<void>;
  move(x: number, y: number): Promise<void>;
  drag(from: { x: number; y: number }, to: { x: number; y: number }, button?: MouseButton): Promise<void>;
  scroll(x: number, y: number, direction: ScrollDirection, amount: number): Promise<void>;
  position(): Promise<{ x: number; y: number }>;
  /** Presses (`down`) or releases a mouse button where the pointer is (computer-use mouse down/up). */
  mouseButton(button: MouseButton, down: boolean): Promise<void>;

  /** Types unicode text; `delayMs` between keystrokes. */
  type(text: string, delayMs?: number): Promise<void>;
  /** Presses one key with modifiers held (`cmd`, `ctrl`, `alt`/`option`, `shift`). */
  press(key: string, modifiers?: string[]): Promise<void>;
  /** `a+b+c`: holds all but the last, presses the last. */
  hotkey(keys: string): Promise<void>;
  /**
   * Holds (`down`) or releases every key of `a+b+c` (computer-use hold_key, modifiers held during a
   * click). A caller that holds keys releases them again, also when what it did meanwhile failed.
   */
  keys(keys: string, down: boolean): Promise<void>;

  screenshot(opts?: ScreenshotOptions): Promise<Buffer>;
  displayInfo(): Promise<DisplayInfo>;
  windows(): Promise<WindowNode[]>;

  startRecording(name?: string): Promise<RecordingInfo>;
  stopRecording(id: string): Promise<RecordingInfo>;
  listRecordings(): Promise<RecordingInfo[]>;
  getRecording(id: string): Promise<RecordingInfo | undefined>;
  deleteRecording(id: string): Promise<void>;
  /** The MP4 bytes of a stopped recording. */
  downloadRecording(id: string): Promise<Readable>;

  /**
   * Where the VM's VNC server listens and the password it wants (only the server ever sees it). With
   * openStream, the address is as seen from where that stream starts (tart: the Mac's 127.0.0.1).
   */
  vnc(): Promise<Endpoint & { password: string }>;
  /**
   * Where the VM's sshd listens, and the user and private key that log in. `hostKey`, when the driver
   * knows it, is the sshd's host public key (an OpenSSH line, `ssh-ed25519 AAAA…`) for clients to pin.
   */
  ssh(): Promise<Endpoint & { username: string; privateKey: string; hostKey?: string }>;
  /**
   * A byte stream to the VM's VNC server or sshd, for a VM the control plane cannot reach at an
   * address of its own (tart: guests are private to their Mac, reached through its SSH). A driver
   * without it has VMs that vnc()/ssh() endpoints reach directly (linux).
   */
  openStream?(service: GuestService): Promise<Duplex>;
  /**
   * Starts a command with its streams open (see ExecStream). The returned promise settles once the
   * command started; the stream then lives as long as the command, however long (api/ws/exec-stream.ts
   * says how such streams are kept honest).
   */
  execStream?(command: string, opts?: ExecStreamOptions): Promise<ExecStream>;
  /**
   * A TCP connection to `127.0.0.1:port` inside the VM (its own loopback, as a program in the VM
   * would connect), as a stream. Nothing listening there: DriverError `refused`.
   */
  forwardPort?(port: number): Promise<Duplex>;
  /** What the clipboard holds; `prefer` picks the representation when it offers both text and an image. */
  getClipboard?(prefer?: 'text' | 'image'): Promise<ClipboardContent>;
  /** Replaces the clipboard's content (text, or a PNG image where the guest takes images). */
  setClipboard?(content: Exclude<ClipboardContent, { type: 'empty' }>): Promise<void>;
  /** Last input, exec or connection seen by the guest. */
  lastActivity(): Promise<Date | undefined>;
  /**
   * Drops every connection the driver holds to the VM, because a call on it outlived its deadline
   * (guest-deadlines.ts): whatever still waits on them fails at once, and the next call opens fresh
   * ones. The VM itself is not touched.
   */
  abandon?(): void;
}

export type DriverErrorCode =
  | 'unreachable'
  | 'not_found'
  | 'invalid_argument'
  | 'missing_tool'
  | 'command_failed'
  | 'timeout'
  | 'capacity'
  /** Nothing accepts connections where asked (a port of the VM with no listener). */
  | 'refused'
  /** The guest's system or the driver has no such feature (the message names it and why). */
  | 'not_supported'
  /** A payload over the guest's limit for it (a clipboard image larger than the guest takes). */
  | 'too_large';

/** Every driver failure: the command that failed and the first line of its stderr. */
export class DriverError extends Error {
  readonly code: DriverErrorCode;
  readonly command?: string;

  constructor(code: DriverErrorCode, message: string, command?: string) {
    super(message);
    this.name = 'DriverError';
    this.code = code;
    if (command !== undefined) this.command = command;
  }
}
