#!/usr/bin/env bash
# Installs the Debian packages imgview builds and tests with (only those missing), then builds.
# Usage: scripts/setup.sh [debug|release]
set -euo pipefail
cd "$(dirname "$0")/.."

# libcurl4-openssl-dev: only for release builds linked with -static-stdlib (docs/benchmarks.md).
# strace: the CLI test that checks a cache hit flushes nothing (HostileCacheTests).
packages=(libncurses-dev libjpeg62-turbo-dev libspng-dev libgif-dev libwebp-dev libavif-dev zlib1g-dev libbrotli-dev libcurl4-openssl-dev pkg-config tmux strace)
scripts/install-packages.sh "${packages[@]}"

command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6 toolchain needed)" >&2; exit 1; }
configuration="${1:-debug}"
# A release build is the program only: the test-support target imports Swift Testing, which a
# build linked with -static-stdlib (make bench) cannot find.
scope=()
if [ "$configuration" = release ]; then scope=(--product imgview); fi
swift build -c "$configuration" "${scope[@]}" 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Write|Emitting)' || true
swift build -c "$configuration" "${scope[@]}" >/dev/null   # the exit code of the real build, without the noise above
