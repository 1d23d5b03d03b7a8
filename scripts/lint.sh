#!/usr/bin/env bash
# Checks formatting and lint rules with the toolchain's swift-format; `--fix` rewrites files first.
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests)
if [ "${1:-}" = "--fix" ]; then
  swift format format --in-place --parallel --recursive "${paths[@]}"
fi
swift format lint --strict --parallel --recursive "${paths[@]}"
