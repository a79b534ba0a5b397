// The tart driver's streaming exec, port forwarding and clipboard (TartGuest delegates here; kept
// out of guest.ts). All three go over the guest's pooled SSH connection, which itself runs through
// the Mac (guests are private to their Mac):
//
// - exec-stream: the linux driver's SSH exec stream (ssh-exec-stream.ts), as the guest user; a pty
//   through sshd as `ssh -t` gets one.
// - a forwarded port: a direct-tcpip channel that the guest's sshd connects to its own 127.0.0.1
//   (so a server listening on the guest's loopback only is reached too), as `ssh -W` would.
// - the clipboard by guest system: a macOS guest's general pasteboard through `pbcopy` and AppKit's
//   NSPasteboard in JXA, run in the GUI session (clipboard-macos.ts); a Linux guest's X selection
//   through xclip, as on the linux driver.
import { Readable, type Duplex } from 'node:stream';
import { DriverError, type ClipboardContent, type ExecStream, type ExecStreamOptions } from '../driver.ts';
import { getXClipboard, setXClipboard, type ClipboardRun } from '../linux/clipboard-x.ts';
import { openExecStream } from '../linux/ssh-exec-stream.ts';
import type { SshClient } from '../linux/ssh-client.ts';
import { checkPort } from '../stream-checks.ts';
import { getMacClipboard, setMacClipboard } from './clipboard-macos.ts';
import type { GuestOs } from './guest-os.ts';

/** The guest's clipboard scripts end their own waits sooner; the channel is closed past this. */
const CLIPBOARD_DEADLINE_MS = 15_000;

export function tartExecStream(
  ssh: SshClient,
  command: string,
  opts: ExecStreamOptions,
): Promise<ExecStream> {
  // The guest's sshd gives the session its environment (a Linux guest's desktop, a Mac's login).
  return openExecStream(ssh, command, { ...opts, env: {} });
}

export async function tartForwardPort(ssh: SshClient, port: number): Promise<Duplex> {
  checkPort(port);
  return ssh.forwardOut('127.0.0.1', port, { byReason: true });
}

export async function tartGetClipboard(
  ssh: SshClient,
  os: GuestOs,
  prefer?: 'text' | 'image',
): Promise<ClipboardContent> {
  const run = clipboardRun(ssh);
  return os.name === 'macos' ? getMacClipboard(run, os, prefer) : getXClipboard(run, prefer);
}

export async function tartSetClipboard(
  ssh: SshClient,
  os: GuestOs,
  content: Exclude<ClipboardContent, { type: 'empty' }>,
): Promise<void> {
  const run = clipboardRun(ssh);
  return os.name === 'macos' ? setMacClipboard(run, os, content) : setXClipboard(run, content);
}

function clipboardRun(ssh: SshClient): ClipboardRun {
  return async (command, stdin) => {
    const r = await ssh.run(command, {
      ...(stdin && { stdin: Readable.from([stdin]) }),
      deadlineMs: CLIPBOARD_DEADLINE_MS,
    });
    if (r.deadlineHit)
      throw new DriverError(
        'timeout',
        `the clipboard did not answer within ${CLIPBOARD_DEADLINE_MS / 1000} s`,
      );
    return { code: r.code, stdout: r.stdout, stderr: r.stderr.toString() };
  };
}
