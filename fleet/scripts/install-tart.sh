#!/bin/sh
# Installs Tart with Homebrew when it is missing and checks it is the pinned version.
# Idempotent: a Mac that already runs TART_VERSION is left alone. A different version is an error,
# not an upgrade behind the back of the VMs running on it.
# Inputs: MAC_NAME, TART_VERSION.
set -eu
fail() { printf 'sandbay-fleet: Mac "%s": %s\n' "$MAC_NAME" "$1" >&2; exit 1; }

if ! command -v tart >/dev/null 2>&1; then
  command -v brew >/dev/null 2>&1 || fail 'neither Tart nor Homebrew is installed; install Homebrew (https://brew.sh) first'
  echo "installing Tart $TART_VERSION"
  brew install cirruslabs/cli/tart || fail 'brew install cirruslabs/cli/tart failed (see above)'
fi
installed=$(tart --version 2>/dev/null) || fail 'tart --version failed'
if [ "$installed" != "$TART_VERSION" ]; then
  fail "runs Tart $installed, the fleet pins $TART_VERSION: run \`brew upgrade cirruslabs/cli/tart\` on it (when no VM runs), or set tartVersion to $installed"
fi
echo "tart $installed"
