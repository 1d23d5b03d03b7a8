#!/usr/bin/env bash
# Installs the Debian packages named on the command line, only those not installed yet.
# Usage: scripts/install-packages.sh [--no-install-recommends] PACKAGE...   (used by setup.sh and bench.sh)
set -euo pipefail
options=()
if [ "${1:-}" = "--no-install-recommends" ]; then
  options+=(--no-install-recommends)
  shift
fi
missing=()
for package in "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${options[@]}" "${missing[@]}" >/dev/null
fi
