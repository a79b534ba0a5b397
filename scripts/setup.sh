#!/bin/sh
# Installs what sandbay needs, idempotently: npm dependencies (Node 24 comes with them, from the npm
# `node` package) and the Debian packages of the linux host driver. Run by `npm start` and `npm test`.
set -eu
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*" >&2; }

# npm dependencies: reinstall only when package-lock.json changed since the last install.
lock_sum=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f node_modules/.sandbay-lock ] || [ "$(cat node_modules/.sandbay-lock)" != "$lock_sum" ]; then
  say "installing npm dependencies"
  npm ci --no-fund --no-audit --loglevel=error
  echo "$lock_sum" > node_modules/.sandbay-lock
fi

# Debian packages of the linux driver (real desktops), the tests (chromium, kubectl) and the benches.
pkgs="xvfb x11vnc xdotool openssh-server openssh-client ffmpeg imagemagick wmctrl x11-utils
x11-apps xterm at-spi2-core python3-pyatspi gir1.2-atspi-2.0 dbus-x11 zenity gtk-3-examples python3-gi
gir1.2-gtk-3.0 xauth xfonts-base chromium psmisc procps jq python3-paramiko python3-mypy python3-kubernetes ruby-kubeclient
xfce4-session xfwm4 xfce4-panel xfdesktop4 xfconf thunar xfce4-terminal mousepad exo-utils xdg-utils iproute2 nftables tini xclip"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Any kubectl will do; Debian's conflicts with other vendors' packages, so add it only when none exists.
command -v kubectl >/dev/null 2>&1 || missing="$missing kubernetes-client"

if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
    say "missing Debian packages:$missing — install them as root (apt-get install$missing)"
    exit 1
  fi
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  say "installing Debian packages:$missing"
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086 # word splitting of the package list is intended
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# Chromium makes no network call of its own (the desktops' browser and the tests' alike): a managed
# policy and wrapper flags, installed where Debian's chromium reads them.
install_if_changed() {
  cmp -s "$1" "$2" && return 0
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  say "installing $2"
  $SUDO mkdir -p "$(dirname "$2")"
  $SUDO install -m 644 "$1" "$2"
}
install_if_changed config/chromium-policy.json /etc/chromium/policies/managed/sandbay.json
install_if_changed config/chromium-flags /etc/chromium.d/sandbay

# The dashboard's static files (web/dashboard/dist), rebuilt only when a source changed. With the
# project's Node 24 (the npm `node` package): run directly, not through npm, PATH may hold an older one.
node_modules/.bin/node scripts/build-dashboard.ts
