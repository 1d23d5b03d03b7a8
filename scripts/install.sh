#!/usr/bin/env bash
# `make install` / `make uninstall`: puts the release build (`make release`, the binaries
# `make bench` measures) under PREFIX, with the man page and shell completions generated from
# the same ArgumentParser definitions as `--help`, and the bundled images `imgview demo` serves.
#
# Usage: [BIN=FOLDER] scripts/install.sh install|uninstall PREFIX
#   PREFIX/bin/imgview
#   PREFIX/libexec/imgview/imgview-server          (what `serve` and `demo` run)
#   PREFIX/share/imgview/Assets/                   (`demo`'s images and catalog)
#   PREFIX/share/man/man1/imgview.1
#   PREFIX/share/bash-completion/completions/imgview
#   PREFIX/share/zsh/site-functions/_imgview
#   PREFIX/share/fish/vendor_completions.d/imgview.fish
# Uninstalling removes exactly these, and the folders of imgview's own that are left empty.
set -euo pipefail
cd "$(dirname "$0")/.."

action="${1:-}"
prefix="${2:-}"
if [ -z "$prefix" ] || { [ "$action" != install ] && [ "$action" != uninstall ]; }; then
  echo "usage: scripts/install.sh install|uninstall PREFIX" >&2
  exit 2
fi
prefix="${prefix%/}"

files=(
  "bin/imgview"
  "libexec/imgview/imgview-server"
  "share/man/man1/imgview.1"
  "share/bash-completion/completions/imgview"
  "share/zsh/site-functions/_imgview"
  "share/fish/vendor_completions.d/imgview.fish"
)
assets="share/imgview/Assets"

if [ "$action" = uninstall ]; then
  for file in "${files[@]}"; do rm -f "$prefix/$file"; done
  rm -rf "${prefix:?}/$assets"
  rmdir "$prefix/libexec/imgview" "$prefix/share/imgview" 2>/dev/null || true
  echo "removed imgview from $prefix"
  exit 0
fi

# BIN: the folder of the two programs; the release build unless told otherwise (the tests install
# the binaries they run).
bin="${BIN:-.build-static/release}"
for program in imgview imgview-server; do
  [ -x "$bin/$program" ] || { echo "install: $bin/$program is missing; run make release first" >&2; exit 1; }
done
# The man page generator of swift-argument-parser (its generate-manual plugin's tool), run on the
# binary being installed: it reads the commands from `imgview --experimental-dump-help`.
manual_tool=.build-tools/release/generate-manual
if [ ! -x "$manual_tool" ]; then
  swift build -c release --scratch-path .build-tools --product generate-manual >/dev/null
fi
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
"$manual_tool" "$bin/imgview" --date "$(git log -1 --format=%cs 2>/dev/null || date +%F)" -o "$staging" >/dev/null

install -d "$prefix/bin" "$prefix/libexec/imgview" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d" "$prefix/$assets/images"
install -m 755 "$bin/imgview" "$prefix/bin/imgview"
install -m 755 "$bin/imgview-server" "$prefix/libexec/imgview/imgview-server"
install -m 644 "$staging/imgview.1" "$prefix/share/man/man1/imgview.1"
"$bin/imgview" --generate-completion-script bash > "$staging/bash"
"$bin/imgview" --generate-completion-script zsh > "$staging/zsh"
"$bin/imgview" --generate-completion-script fish > "$staging/fish"
install -m 644 "$staging/bash" "$prefix/share/bash-completion/completions/imgview"
install -m 644 "$staging/zsh" "$prefix/share/zsh/site-functions/_imgview"
install -m 644 "$staging/fish" "$prefix/share/fish/vendor_completions.d/imgview.fish"
install -m 644 Assets/demo-catalog.json Assets/ATTRIBUTION.md "$prefix/$assets/"
install -m 644 Assets/images/* "$prefix/$assets/images/"
echo "installed imgview into $prefix"
