#!/bin/sh
# Pulls the base images sandbay's models clone their VMs from. Idempotent: an image already in Tart's
# OCI cache (listed by `tart list`) is not pulled again.
# Inputs: MAC_NAME, IMAGES (space-separated OCI references, no spaces inside one; -f: no globbing).
set -euf
fail() { printf 'sandbay-fleet: Mac "%s": %s\n' "$MAC_NAME" "$1" >&2; exit 1; }

present=$(tart list --format json) || fail '`tart list` failed'
for image in $IMAGES; do
  # tart prints JSON with a space before the colon: "Name" : "ghcr.io/…"
  if printf '%s\n' "$present" | grep -F -q "\"Name\" : \"$image\""; then
    echo "present $image"
  else
    echo "pulling $image"
    TART_NO_AUTO_PRUNE=1 tart pull "$image" || fail "\`tart pull $image\` failed: check the Mac's network and the registry credentials (TART_REGISTRY_USERNAME/PASSWORD)"
  fi
done
