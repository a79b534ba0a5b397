// What the emulated guests have of a Mac's user land, for the driver's paths that depend on it:
// - `pbcopy` / `pbpaste`, macOS's pasteboard tools, on the guest's X clipboard (CLIPBOARD, UTF-8):
//   pbcopy takes stdin as the new contents and returns (its xclip stays behind and serves them until
//   another owner takes the clipboard, as the pasteboard server keeps them on a Mac); pbpaste prints
//   the contents, nothing when there are none.
// - The Mac's shortcuts in the guest's terminal: Command-V pastes the clipboard and Command-C copies
//   the selection to it, as Terminal.app does; Control-V stays a control character (^V), as on a Mac.
//   Command is the guest's Super key (Mod4, vz-keys.ts). xterm reads these from XENVIRONMENT,
//   which the guest's sshd gives every session.
// Written once per Mac (root's, read-only to guests); tart-run.ts puts them on the guest's PATH.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The guest's PATH after the emulation's own tools: macOS's non-login PATH. */
export const GUEST_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';

const TOOLS: Record<string, string> = {
  pbcopy: `#!/bin/sh
# macOS pbcopy on the guest's X clipboard. It returns once the clipboard holds the text, as pbcopy
# does: xclip takes the selection in a child it forks after reading its input, so a paste right
# after xclip itself returned could still get the clipboard's previous owner's contents.
data=$(cat; echo .)
data=\${data%.}
printf %s "$data" | xclip -selection clipboard -in >/dev/null 2>&1 || exit 1
i=0
while [ "$(xclip -selection clipboard -out 2>/dev/null; echo .)" != "$data." ]; do
  i=$((i+1)); [ $i -lt 500 ] || { echo 'pbcopy: the clipboard did not take the text' >&2; exit 1; }
  sleep 0.01
done
`,
  // Cirrus Labs' images give admin passwordless sudo. The emulated guest has no root of its own:
  // admin is the one who may change its system (the emulation keeps those files admin's).
  sudo: `#!/bin/sh
# sudo [-n] [-u admin] COMMAND…: runs COMMAND as the guest's admin.
while [ $# -gt 0 ]; do
  case "$1" in
    -n|-H|-E) shift ;;
    -u) [ "$2" = admin ] || [ "$2" = "$(id -un)" ] || { echo "sudo: unknown user $2" >&2; exit 1; }; shift 2 ;;
    --) shift; break ;;
    -*) echo "sudo: unsupported option $1" >&2; exit 1 ;;
    *) break ;;
  esac
done
exec "$@"
`,
  // macOS \`shutdown -h now\`: the guest powers off (the VM's power button, tart-run.ts).
  shutdown: `#!/bin/sh
[ "$1" = -h ] || { echo "usage: shutdown -h now" >&2; exit 1; }
exec /usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"halt\\n")
s.recv(1)' "$SANDBAY_GUEST_POWER"
`,
  // chpasswd as the guest's admin may run it through sudo: USER:PASSWORD on stdin sets the guest's
  // /etc/shadow (its disk's, which its sshd reads for password logins).
  chpasswd: `#!/bin/sh
while IFS=: read -r user pw; do
  [ "$user" = "$(id -un)" ] || { echo "chpasswd: user '$user' does not exist" >&2; exit 1; }
  hash=$(printf '%s\\n' "$pw" | openssl passwd -6 -stdin) || exit 1
  printf '%s:%s:19000:0:99999:7:::\\n' "$user" "$hash" > /etc/shadow
done
`,
  pbpaste: `#!/bin/sh
# macOS pbpaste on the guest's X clipboard: nothing (exit 0) when it is empty.
xclip -selection clipboard -out 2>/dev/null
exit 0
`,
};

const XRESOURCES = `! The Mac's shortcuts in the emulated guest's terminals (Command is Mod4).
XTerm*VT100.translations: #override \\n\\
    Mod4 <Key>v: insert-selection(CLIPBOARD) \\n\\
    Mod4 <Key>c: copy-selection(CLIPBOARD)
`;

function macDir(): string {
  const dir = process.env.SANDBAY_EMULATED_MAC;
  if (!dir) throw new Error('not an emulated Mac: SANDBAY_EMULATED_MAC is unset');
  return dir;
}

export const guestBin = (dir = macDir()): string => join(dir, 'guest', 'bin');
export const guestXresources = (dir = macDir()): string => join(dir, 'guest', 'Xresources');

/** Writes the guest tools and resources of the Mac whose dir is `dir`. */
export function writeGuestEnv(dir: string): void {
  mkdirSync(guestBin(dir), { recursive: true, mode: 0o755 });
  for (const [name, script] of Object.entries(TOOLS)) {
    writeFileSync(join(guestBin(dir), name), script);
    chmodSync(join(guestBin(dir), name), 0o755);
  }
  writeFileSync(guestXresources(dir), XRESOURCES, { mode: 0o644 });
}
