#!/bin/sh
# Checks what `tart run` needs of the Mac's session: on macOS 15+ an unlocked login keychain, which a
# Mac gets from auto-login. Checks only: changing a Mac's login settings needs its password.
# Inputs: MAC_NAME.
set -eu
fail() { printf 'sandbay-fleet: Mac "%s": %s\n' "$MAC_NAME" "$1" >&2; exit 1; }

user=$(defaults read /Library/Preferences/com.apple.loginwindow autoLoginUser 2>/dev/null) || user=''
[ -n "$user" ] || fail 'auto-login is off: turn it on (System Settings > Users & Groups > Automatically log in as) so the login keychain is unlocked after a reboot'
keychain="${KEYCHAIN:-$HOME/Library/Keychains/login.keychain-db}"
security show-keychain-info "$keychain" >/dev/null 2>&1 \
  || fail "the login keychain ($keychain) is locked: log in once, or run \`security unlock-keychain\` over SSH"
echo "auto-login $user, keychain unlocked"
