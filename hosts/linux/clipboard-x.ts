// The clipboard of a Linux desktop: the X CLIPBOARD selection, through xclip run as the VM's user in
// its desktop session over SSH (the linux driver's VMs, and the Linux guests of emulated Macs). The
// selection belongs to whichever X client owns it, which is the tenant's, so nothing here talks to it
// from the control plane: xclip asks it in the VM, bounded by `timeout`, and its answer is cut at the
// limit (hosts/clipboard.ts) before it leaves the VM. Setting leaves an xclip of the VM's user
// owning the selection (it serves paste requests until something else copies), as a person's copy
// leaves the app they copied from.
//
// The scripts are constants: nothing a caller sends reaches the shell (content goes on stdin).
import { Readable } from 'node:stream';
import { DriverError, type ClipboardContent } from '../driver.ts';
import { checkClipboard, clipboardLimit, tooLarge } from '../clipboard.ts';
import { shellQuote, type SshClient } from './ssh-client.ts';

/** Runs a command line as the guest user over SSH, with `stdin`; the output as bytes. */
export type ClipboardRun = (
  command: string,
  stdin?: Buffer,
) => Promise<{ code: number; stdout: Buffer; stderr: string }>;

/** How long xclip may wait on the selection's owner (a tenant's app that never answers). */
const XCLIP_TIMEOUT_S = 10;
/** The clipboard's commands end their own waits sooner; the channel is closed past this. */
const CLIPBOARD_DEADLINE_MS = 15_000;

/** Runs the clipboard's commands over `ssh`, as the guest user, each line made by `wrap` (its session). */
export function sshClipboardRun(ssh: SshClient, wrap: (command: string) => string = (c) => c): ClipboardRun {
  return async (command, stdin) => {
    const r = await ssh.run(wrap(command), {
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
const SEL = '-selection clipboard';

/**
 * Prints `text`, `image` or `empty` on a line of its own, then the content, cut one byte past its
 * limit (so a longer one is seen as such). Text is what xclip reads by default (UTF8_STRING).
 */
function getScript(prefer: 'text' | 'image'): string {
  const text = `{ printf 'text\\n'; timeout ${XCLIP_TIMEOUT_S} xclip ${SEL} -o | head -c ${clipboardLimit('text') + 1}; exit 0; }`;
  const image = `{ printf 'image\\n'; timeout ${XCLIP_TIMEOUT_S} xclip ${SEL} -o -t image/png | head -c ${clipboardLimit('image') + 1}; exit 0; }`;
  const [first, second] = prefer === 'image' ? [image, text] : [text, image];
  const [firstHas, secondHas] = prefer === 'image' ? ['$img', '$txt'] : ['$txt', '$img'];
  return [
    `t=$(timeout ${XCLIP_TIMEOUT_S} xclip ${SEL} -o -t TARGETS 2>/dev/null) || { printf 'empty\\n'; exit 0; }`,
    `txt=$(printf '%s\\n' "$t" | grep -Ec '^(UTF8_STRING|STRING|TEXT|text/plain.*)$')`,
    `img=$(printf '%s\\n' "$t" | grep -c '^image/png$')`,
    `if [ "${firstHas}" -gt 0 ]; then ${first}; fi`,
    `if [ "${secondHas}" -gt 0 ]; then ${second}; fi`,
    `printf 'empty\\n'`,
  ].join('\n');
}

export async function getXClipboard(
  run: ClipboardRun,
  prefer: 'text' | 'image' = 'text',
): Promise<ClipboardContent> {
  const r = await run(getScript(prefer));
  const nl = r.stdout.indexOf(0x0a);
  const kind = nl < 0 ? '' : r.stdout.subarray(0, nl).toString('latin1');
  const body = r.stdout.subarray(nl + 1);
  if (r.code !== 0 || !['text', 'image', 'empty'].includes(kind)) {
    throw new DriverError(
      'command_failed',
      `xclip: ${r.stderr.trim().split('\n')[0] || `exit ${r.code}`}`,
      'xclip',
    );
  }
  if (kind === 'empty') return { type: 'empty' };
  if (kind === 'text') {
    tooLarge('text', body.length);
    return { type: 'text', text: body.toString('utf8') };
  }
  tooLarge('image', body.length);
  if (body.length === 0) return { type: 'empty' };
  return { type: 'image', mimeType: 'image/png', data: Buffer.from(body) };
}

export async function setXClipboard(
  run: ClipboardRun,
  content: Exclude<ClipboardContent, { type: 'empty' }>,
): Promise<void> {
  checkClipboard(content);
  const target = content.type === 'text' ? 'UTF8_STRING' : 'image/png';
  const data = content.type === 'text' ? Buffer.from(content.text, 'utf8') : content.data;
  // xclip reads its input, then forks a child that owns the selection; the child's output goes
  // nowhere, so the session ends with the parent (and the channel with it). The parent exits before
  // the child's claim of the selection has reached the X server (Xlib sends it at the child's next
  // wait): a read right after the set could get the old content (seen once in a full run). So the
  // set answers once the selection reads back as what was set (about 2 s at most).
  const t = shellQuote(target);
  const r = await run(
    [
      'f=$(mktemp) && cat > "$f" || exit 1',
      `timeout ${XCLIP_TIMEOUT_S} xclip ${SEL} -t ${t} -i "$f" >/dev/null 2>&1 || { echo "xclip failed ($?)" >&2; rm -f "$f"; exit 1; }`,
      'want=$(sha256sum < "$f"); rm -f "$f"',
      'i=0; while [ $i -lt 100 ]; do',
      `  [ "$(timeout 1 xclip ${SEL} -o -t ${t} 2>/dev/null | sha256sum)" = "$want" ] && exit 0`,
      '  sleep 0.02; i=$((i+1))',
      'done',
      'echo "the clipboard did not take the new content within 2 s" >&2; exit 1',
    ].join('\n'),
    data,
  );
  if (r.code !== 0) {
    throw new DriverError(
      'command_failed',
      `xclip: ${r.stderr.trim().split('\n')[0] || `exit ${r.code}`}`,
      'xclip',
    );
  }
}
