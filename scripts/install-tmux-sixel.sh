#!/usr/bin/env bash
# Unpacks tmux 3.5a from Debian's bookworm-backports (built with sixel: tmux 3.4 and later draw
# sixel themselves) into /opt/tmux-3.5a, beside Debian 12's tmux 3.3a, for the tests of imgview's
# native-sixel route inside tmux. `apt-get install tmux` keeps 3.3a (backports have pin 100).
# Binary: /opt/tmux-3.5a/usr/bin/tmux. Used by scripts/setup-emulators.sh; does nothing if present.
set -euo pipefail
target=/opt/tmux-3.5a
[ -x "$target/usr/bin/tmux" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
sources=/etc/apt/sources.list.d/bookworm-backports.sources
if [ ! -f "$sources" ]; then
  $sudo tee "$sources" >/dev/null <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
fi
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
scripts_dir="$(cd "$(dirname "$0")" && pwd)"
"$scripts_dir/install-packages.sh" --no-install-recommends libjemalloc2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 777 "$work"
(cd "$work" && apt-get download -q tmux/bookworm-backports 2>/dev/null)
$sudo mkdir -p "$target"
$sudo dpkg -x "$work"/tmux_3.5a-*.deb "$target"
"$target/usr/bin/tmux" -V
