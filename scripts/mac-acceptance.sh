#!/bin/sh
# The first-Mac acceptance run (docs/mac.md, "The first real Mac"): what no source settles about
# Tart's VNC server, suspend, snapshots and tenant isolation, asked of a real Mac mini with the tart
# driver itself. Prints a Markdown table to paste into docs/mac.md; progress goes to stderr.
#
#   scripts/mac-acceptance.sh HOST [--user USER] [--key FILE] [--model MODEL] [--image IMAGE]
#
# HOST is the Mac's address; USER (default: yours) logs in with FILE (default ~/.ssh/id_ed25519), as
# the fleet's Minis do. It clones two VMs from IMAGE (default base-macos-26), runs them, and deletes
# them (and a third, for the snapshot round trip) at the end. Nothing else on the Mac is touched.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../node_modules/.bin/node" "$here/mac-acceptance.ts" "$@"
