#!/usr/bin/env bash
# The whole test suite: set-up (packages, build), format check, then every test target.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-flags.sh
scripts/setup.sh
scripts/setup-emulators.sh   # Xvfb and the terminals the pixel tests draw in
scripts/lint.sh
swift build --build-tests "${swift_build_flags[@]}"
# swift-argument-parser's man page generator, which `make install` (and InstallTests) runs.
swift build -c release --scratch-path .build-tools --product generate-manual
# Serial: many tests bound how long a failure, a frame or a timeout may take, as a user feels it;
# in parallel on 2 cores those bounds would measure the machine's load (DECISIONS.md, "Tests run serially").
swift test --skip-build --no-parallel
# The URLSession loader, off by default, built in with its package trait (in a build folder of
# its own, so the default build above is not rebuilt), and the tests that take either loader run
# through both: the loader contract, the fetch stage, `get`'s choice of client, the footprint.
swift build --build-tests --traits URLSession --scratch-path .build-urlsession "${swift_build_flags[@]}"
swift test --skip-build --no-parallel --traits URLSession --scratch-path .build-urlsession \
    --filter 'DataLoaderContractTests|FetchStageTests|BoundedOperationQueueTests|GetCommandTests|LocalFootprintTests'
# What users install (`make release`, -static-stdlib) links no FoundationNetworking, no ICU and no
# codec library that is opened on demand (DECISIONS.md, "A light binary"), and installs and
# uninstalls whole into a temporary PREFIX; and its full-screen pixel previews of large photos stay
# under 100 MB (measured on the binary users run: a debug build holds more of its own).
scripts/setup.sh release
IMGVIEW_BIN="$PWD/.build-static/release/imgview" swift test --skip-build --no-parallel --filter 'LightBinaryTests|InstallTests|PixelMemoryReleaseTests'
# CI (or FULL_CHECKS=1) also runs each fuzz target briefly (a longer run is `scripts/fuzz.sh 600`)
# and the whole suite again under AddressSanitizer (about 5 minutes here). ThreadSanitizer runs
# from `scripts/sanitize.sh thread` by hand: see DECISIONS.md, "Sanitizers".
if [ "${CI:-}" = "true" ] || [ "${FULL_CHECKS:-}" = "1" ]; then
    scripts/fuzz.sh 20
    scripts/sanitize.sh address
fi
