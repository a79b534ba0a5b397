// A fresh clone made the VM's own before anyone gets it. Cirrus Labs' images ship the user `admin`
// with the password `admin`, SSH password login on (templates/vanilla-*.pkr.hcl: `ssh_password =
// "admin"`, Screen Sharing and Remote Login turned on with it) and one SSH host key that every clone
// of the image shares. A tenant whose VM reaches another VM (the same Mac's network) could log into
// it with admin/admin, and could pose as it to a client that pinned the image's key. So at the first
// boot of each clone (and of each restored snapshot, itself a fresh clone) the driver, over its key
// login, gives the guest user a password of this VM's own (random; kept only on the Mac, in the VM's
// dir), turns SSH password login off, and makes the guest a new host key. On macOS the auto-login
// password (/etc/kcpassword, XOR-encoded with macOS's fixed key as Cirrus' templates write it) is
// changed with it, so that the next boot still logs in.
//
// The script reads the password from its first line of stdin (never from its arguments), and uses
// only what the guest has: sudo -n (Cirrus' images: passwordless), dscl/perl on macOS, chpasswd on
// Linux, ssh-keygen -A. On macOS launchd starts an sshd per connection, which reads the configuration
// and keys then: nothing is restarted. A Linux guest's sshd (systemd) is reloaded.
import type { GuestOs } from './guest-os.ts';

/** The drop-in that turns password logins off (first match wins in sshd_config: 000 sorts first). */
const SSHD_DROP_IN = '/etc/ssh/sshd_config.d/000-sandbay.conf';

const COMMON = [
  `sudo -n sh -c 'rm -f /etc/ssh/ssh_host_*key* && ssh-keygen -A' >/dev/null`,
  'sudo -n mkdir -p /etc/ssh/sshd_config.d',
  `printf '%s\\n' 'PasswordAuthentication no' 'KbdInteractiveAuthentication no' | sudo -n tee ${SSHD_DROP_IN} >/dev/null`,
];

/** macOS's kcpassword: the password and a NUL, padded to 12 bytes, XORed with Apple's fixed key. */
const KCPASSWORD_PERL =
  'my @k = (0x7D,0x89,0x52,0x23,0xD2,0xBC,0xDD,0xEA,0xA3,0xB9,0x1F); my $p = <STDIN>; chomp $p; ' +
  'my @b = (unpack("C*", $p), 0); push @b, 0 while @b % 12; ' +
  'print pack("C*", map { $b[$_] ^ $k[$_ % 11] } 0 .. $#b);';

const SCRIPTS: Record<GuestOs['name'], string> = {
  macos: [
    'set -eu',
    'IFS= read -r pw',
    'sudo -n dscl . -passwd "/Users/$(id -un)" "$pw"',
    `printf '%s\\n' "$pw" | sudo -n sh -c 'umask 077; exec perl -e "$1" > /etc/kcpassword' sh '${KCPASSWORD_PERL}'`,
    ...COMMON,
  ].join('\n'),
  linux: [
    'set -eu',
    'IFS= read -r pw',
    `printf '%s:%s\\n' "$(id -un)" "$pw" | sudo -n chpasswd`,
    ...COMMON,
    // systemd's sshd listens for good and keeps the configuration it read: it reads it again on a reload.
    'sudo -n systemctl reload ssh 2>/dev/null || sudo -n systemctl reload sshd 2>/dev/null || true',
  ].join('\n'),
};

/** The script that seals a guest of this system (the password on its stdin's first line). */
export function sealScript(os: GuestOs['name']): string {
  return SCRIPTS[os];
}
