#!/usr/bin/env bash
# The whole test suite under a sanitizer: every test, and the imgview binary the CLI tests run.
#
#   scripts/sanitize.sh address|thread
#
# Each sanitizer builds into its own folder (.build-address, .build-thread).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-flags.sh

sanitizer=${1:?usage: scripts/sanitize.sh address|thread}
case "$sanitizer" in
address | thread) ;;
*) echo "sanitize.sh: unknown sanitizer '$sanitizer' (use address or thread)" >&2; exit 2 ;;
esac
scratch=".build-$sanitizer"

scripts/setup.sh
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" "${swift_build_flags[@]}"
# The child imgview processes inherit these: a report fails the run, and the Swift backtracer
# stays out of the sanitizer's way.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1"
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:suppressions=$PWD/scripts/tsan-suppressions.txt"
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --no-parallel
