#!/bin/sh
# Checks Apple's licence limit: macOS allows two macOS VMs running at once on a Mac, and sandbay's
# layouts use at most two. A Mac already running more than that (VMs not started by sandbay) would
# make sandbay's own VMs fail to start.
# Inputs: MAC_NAME.
set -eu
fail() { printf 'sandbay-fleet: Mac "%s": %s\n' "$MAC_NAME" "$1" >&2; exit 1; }

vms=$(tart list --format json) || fail '`tart list` failed'
running=$(printf '%s\n' "$vms" | grep -c '"Running" : true' || true)
if [ "$running" -gt 2 ]; then
  fail "$running macOS VMs are running; Apple's licence allows 2 at once: stop the ones sandbay did not start (\`tart list\`, \`tart stop NAME\`)"
fi
echo "running VMs: $running of 2, host cores: $(sysctl -n hw.ncpu 2>/dev/null || echo unknown)"
