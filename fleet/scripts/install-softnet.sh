#!/bin/sh
# Installs Softnet (the filter `tart run --net-softnet` runs: a VM reaches the Mac's gateway and the
# internet, no other VM and no private address) and sets its SUID bit. Softnet needs root; Tart
# sets the bit itself only in an interactive session, asking for a sudo password, and sandbay
# starts VMs over SSH, where nobody answers: without the bit every `tart run --net-softnet` fails.
# Idempotent: a Softnet owned by root with the bit set is left alone.
# Inputs: MAC_NAME.
set -eu
fail() { printf 'sandbay-fleet: Mac "%s": %s\n' "$MAC_NAME" "$1" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

if ! command -v softnet >/dev/null 2>&1; then
  command -v brew >/dev/null 2>&1 || fail 'neither Softnet nor Homebrew is installed; install Homebrew (https://brew.sh) first'
  echo 'installing Softnet'
  brew install cirruslabs/cli/softnet || fail 'brew install cirruslabs/cli/softnet failed (see above)'
fi
# Homebrew links it from its Cellar: the bit goes on the file itself, where Tart checks it.
real=$(perl -MCwd=abs_path -e 'print abs_path(shift)' "$(command -v softnet)")
ready=$(perl -e '@s = stat(shift); print(($s[4] == 0 && ($s[2] & 04000)) ? "yes" : "no")' "$real")
if [ "$ready" = yes ]; then
  echo "softnet $real: root, SUID set"
  exit 0
fi
as_root chown root "$real" && as_root chmod u+s "$real" \
  || fail "setting the SUID bit on $real needs root: passwordless sudo for $(id -un), or run \`sudo chown root $real && sudo chmod u+s $real\` once"
echo "softnet $real: SUID set"
