#!/usr/bin/env bash
# Builds imgview's libFuzzer targets (with AddressSanitizer) and runs each one for a set time.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    default: 600 seconds each, every target
#
# Targets: image, catalog, http-metadata, cache-entry, cache-ledger, terminal-replies, browser-keys, config, gif, webp, avif, bmp, qoi, ico, apng, tiff, heic, jxl, svg, color-profile, content-coding, user-text, web-page (Sources/ImgviewFuzzing). Seeds come from
# Tests/ImgviewFuzzingTests/Corpus/<target>/; what libFuzzer learns stays in fuzz-results/<target>/
# (not committed). A crash is saved as fuzz-results/<target>/crash-*: fix it, then copy the input
# into the Corpus folder so the test suite replays it. Exit 1 if any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-flags.sh

seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(image catalog http-metadata cache-entry cache-ledger terminal-replies browser-keys config gif webp avif bmp qoi ico apng tiff heic jxl svg color-profile content-coding user-text web-page); fi

scratch=.build-fuzz
swift build -c release --product imgview-fuzz --scratch-path "$scratch" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DIMGVIEW_LIBFUZZER "${swift_build_flags[@]}" 2>&1 |
    grep -v "Cannot export local symbol" || true
binary="$scratch/release/imgview-fuzz"
[ -x "$binary" ] || { echo "fuzz.sh: the fuzz build failed" >&2; exit 2; }

status=0
summary=()
for target in "${targets[@]}"; do
    work="fuzz-results/$target"
    mkdir -p "$work/corpus"
    echo "== $target: $seconds s"
    # The Swift backtracer would attach to libFuzzer's deliberate crashes and wait; libFuzzer reports them.
    # Allocation stacks are left short (collecting them was a fifth of the time per input), and
    # leaks are not looked for: Foundation's DateFormatter keeps character sets it never frees.
    if ASAN_OPTIONS=malloc_context_size=4:detect_leaks=0 SWIFT_BACKTRACE=enable=no IMGVIEW_FUZZ_TARGET="$target" "$binary" "$work/corpus" \
        "Tests/ImgviewFuzzingTests/Corpus/$target" \
        -max_total_time="$seconds" -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$work/" -print_final_stats=1 >"$work/log" 2>&1; then
        verdict="no finding"
    else
        verdict="FINDING (see $work/log and $work/crash-*)"
        status=1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -1)
    summary+=("$(printf '%-14s %12s executions  %8s/s  %s' "$target" "${runs:-?}" "${rate:-?}" "$verdict")")
done
printf '%s\n' "${summary[@]}"
exit $status
