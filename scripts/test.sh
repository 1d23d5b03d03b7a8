#!/usr/bin/env bash
# The whole test suite: set-up (packages, build), format check, then every test target.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/lint.sh
swift build --build-tests
swift test --skip-build
