#!/bin/sh
# Authorizes the control plane's SSH key (the tart driver logs in with it). Idempotent: the line is
# added once.
# Inputs: MAC_NAME, CONTROL_PLANE_KEY (one authorized_keys line), AUTHORIZED_KEYS (optional path).
set -eu
fail() { printf 'sandbay-fleet: Mac "%s": %s\n' "$MAC_NAME" "$1" >&2; exit 1; }

file="${AUTHORIZED_KEYS:-$HOME/.ssh/authorized_keys}"
umask 077
mkdir -p "$(dirname "$file")" || fail "cannot create $(dirname "$file")"
touch "$file" || fail "cannot write $file"
if grep -qxF "$CONTROL_PLANE_KEY" "$file"; then
  echo 'control plane key present'
else
  printf '%s\n' "$CONTROL_PLANE_KEY" >>"$file"
  echo 'control plane key added'
fi
