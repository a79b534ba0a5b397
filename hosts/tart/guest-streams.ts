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
import type { Duplex } from 'node:stream';
import type { ClipboardContent, ExecStream, ExecStreamOptions } from '../driver.ts';
import { getXClipboard, setXClipboard, sshClipboardRun } from '../linux/clipboard-x.ts';
import { openExecStream } from '../linux/ssh-exec-stream.ts';
import type { SshClient } from '../linux/ssh-client.ts';
import { checkPort } from '../stream-checks.ts';
import { getMacClipboard, setMacClipboard } from './clipboard-macos.ts';
import type { GuestOs } from './guest-os.ts';

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
  const run = sshClipboardRun(ssh);
  return os.name === 'macos' ? getMacClipboard(run, os, prefer) : getXClipboard(run, prefer);
}

export async function tartSetClipboard(
  ssh: SshClient,
  os: GuestOs,
  content: Exclude<ClipboardContent, { type: 'empty' }>,
): Promise<void> {
  const run = sshClipboardRun(ssh);
  return os.name === 'macos' ? setMacClipboard(run, os, content) : setXClipboard(run, content);
}
