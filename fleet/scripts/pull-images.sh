#!/bin/sh
# Pulls the base images sandbay's models clone their VMs from, then makes the local images the
# driver clones (crds/mac-models.ts) from them, each grown to its disk size. Idempotent: an image
# already in Tart's OCI cache or a local image already there (listed by `tart list`) is left as it is.
# Inputs: MAC_NAME, IMAGES (space-separated OCI references, no spaces inside one; -f: no globbing),
# NAMED (space-separated NAME=SOURCE=GB: the local image NAME cloned from SOURCE, its disk GB).
set -euf
fail() { printf 'sandbay-fleet: Mac "%s": %s\n' "$MAC_NAME" "$1" >&2; exit 1; }
# tart prints JSON with a space before the colon: "Name" : "ghcr.io/…"
listed() { printf '%s\n' "$present" | grep -F -q "\"Name\" : \"$1\""; }

present=$(tart list --format json) || fail '`tart list` failed'
for image in $IMAGES; do
  if listed "$image"; then
    echo "present $image"
  else
    echo "pulling $image"
    TART_NO_AUTO_PRUNE=1 tart pull "$image" || fail "\`tart pull $image\` failed: check the Mac's network and the registry credentials (TART_REGISTRY_USERNAME/PASSWORD)"
  fi
done
for entry in ${NAMED:-}; do
  name=${entry%%=*}
  rest=${entry#*=}
  source=${rest%=*}
  gb=${rest##*=}
  if listed "$name"; then
    echo "present $name"
    continue
  fi
  echo "making $name from $source, disk $gb GB"
  tart clone "$source" "$name" || fail "\`tart clone $source $name\` failed"
  disk=$(tart get "$name" --format json | sed -n 's/^ *"Disk" : \([0-9]*\),*$/\1/p')
  [ -n "$disk" ] || fail "\`tart get $name\` reported no disk size"
  if [ "$disk" -gt "$gb" ]; then
    tart delete "$name" || true
    fail "$source has a $disk GB disk, more than the $gb GB sandbay's models give $name (Tart only grows a disk): use a smaller base image"
  fi
  # `tart set --disk-size` only grows the disk; macOS uses the room once the image's APFS container
  # is grown in the guest (`diskutil apfs resizeContainer`, docs/mac.md).
  if [ "$disk" -lt "$gb" ]; then tart set "$name" --disk-size "$gb" || fail "\`tart set $name --disk-size $gb\` failed"; fi
done
