#!/usr/bin/env bash
# `make bench`: builds and installs the release binary (`make release`), runs every benchmark of the project and writes
# docs/benchmarks.md from what they measured (bench/report.py).
#
# Usage: scripts/bench.sh [--quick]
#   --quick  fewer images, runs and switches, to check the scripts themselves; writes
#            bench-results/benchmarks-quick.md and leaves docs/benchmarks.md alone.
#
# Everything each step prints goes to bench-results/logs/; bench-results/ (git-ignored) is
# emptied first, so what the report reads comes from this run only. Any failing step stops
# the run with its log's tail and a non-zero exit, and docs/benchmarks.md is then untouched
# (the report is written to a temporary file and renamed).
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  *) echo "usage: scripts/bench.sh [--quick]" >&2; exit 2 ;;
esac

shared="../shared/bench"   # the shared peer harness, beside this repository
if [ ! -f "$shared/bench.py" ] || [ ! -d "$shared/../testdata" ]; then
  echo "bench: $shared/bench.py and $shared/../testdata are needed (the shared folder beside the repository)" >&2
  exit 1
fi

# What the benchmarks run besides imgview: the peers (chafa, jp2a, timg, catimg, img2txt from
# caca-utils), hyperfine, the font the quality score draws text with, curl, tmux, GNU time
# (/usr/bin/time), pgrep (procps); then what the build needs (scripts/setup.sh installs the same).
# imagemagick, webp and libavif-bin make the GIF, WebP, AVIF and BMP copies of the photographs;
# libheif-examples and libjxl-tools the HEIC and JPEG XL ones, and are the 12 MP rows' peers
# (heif-convert, djxl).
scripts/install-packages.sh \
  libncurses-dev libjpeg62-turbo-dev libspng-dev libgif-dev libwebp-dev libavif-dev zlib1g-dev libcurl4-openssl-dev pkg-config \
  chafa jp2a timg catimg caca-utils hyperfine fonts-dejavu-core curl tmux time procps python3 \
  imagemagick webp libavif-bin libheif-examples libjxl-tools
scripts/install-numpy-pillow.sh
scripts/setup-emulators.sh   # Xvfb, xterm, kitty and mlterm: the pixel modes are scored from screenshots
command -v swift >/dev/null || { echo "bench: swift is not on PATH (Swift 6 toolchain needed)" >&2; exit 1; }

results=bench-results
rm -rf "$results"
mkdir -p "$results/logs"
commands="$results/commands.txt"   # each command exactly as run, for the report
steps="$results/steps.tsv"          # name, seconds, 1-minute load average when it started
: > "$commands"
: > "$steps"
date -u +%Y-%m-%dT%H:%M:%SZ > "$results/started"
cut -d' ' -f1 /proc/loadavg > "$results/load-before"
[ $quick -eq 1 ] && touch "$results/quick"

number=0
total=20
# step NAME COMMAND: runs COMMAND (a string, so that it is recorded exactly as written, with
# $PWD unexpanded) with its output in logs/NAME.log; stops everything if it fails.
step() {
  local name="$1" command="$2" load started elapsed status
  number=$((number + 1))
  load=$(cut -d' ' -f1 /proc/loadavg)
  printf '[%2d/%d] %s ... ' "$number" "$total" "$name" >&2
  echo "$command" >> "$commands"
  started=$EPOCHREALTIME
  set +e
  (eval "$command") > "$results/logs/$name.log" 2>&1
  status=$?
  set -e
  elapsed=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $started }")
  printf '%s\t%s\t%s\n' "$name" "$elapsed" "$load" >> "$steps"
  if [ $status -ne 0 ]; then
    printf 'FAILED (exit %d)\n' "$status" >&2
    echo "bench: '$command' failed; the end of $results/logs/$name.log:" >&2
    tail -n 40 "$results/logs/$name.log" >&2
    echo "bench: docs/benchmarks.md was not changed" >&2
    exit 1
  fi
  printf '%s s\n' "$elapsed" >&2
}

# What users install: `make release`'s build (the same flags as below), installed by `make install`
# into bench-results/prefix, whose binary the start-up rows run.
step build 'scripts/setup.sh release'
step install 'scripts/install.sh install "$PWD/bench-results/prefix"'

# Preview quality (every testdata image, once each) and speed (hyperfine, which spends at least
# 3 s per configuration and image, so on the four large photographs only), at two sizes.
if [ $quick -eq 1 ]; then
  quality_images='--image-filter "^(01|10)_"'
  speed_images='--image-filter "^10_" --runs 3 --warmup 1'
else
  quality_images=''
  speed_images='--image-filter "^(06|10|11|13)_"'
fi
for size in 80x24 100x40; do
  step "quality-$size" "IMGVIEW=\$PWD/.build-static/release/imgview python3 $shared/bench.py --size $size --no-time ${quality_images:+$quality_images }--out $results/quality"
  step "speed-$size" "IMGVIEW=\$PWD/.build-static/release/imgview python3 $shared/bench.py --size $size --no-quality ${speed_images:+$speed_images }--out $results/speed"
done
step peer-tables "python3 $shared/report.py --out $results/quality && python3 $shared/report.py --out $results/speed"

if [ $quick -eq 1 ]; then
  step formats "python3 bench/bench_formats.py --imgview \$PWD/.build-static/release/imgview --quick --runs 3 --json $results/formats.json"
  step downloads "python3 bench/bench_get.py --imgview \$PWD/.build-static/release/imgview --runs 1 --json $results/get.json"
  step slow-transfer "python3 bench/bench_slow.py --imgview \$PWD/.build-static/release/imgview --runs 1 --seconds 3 --json $results/slow.json"
  step catalog "python3 bench/bench_catalog.py --imgview \$PWD/.build-static/release/imgview --runs 2 --json $results/catalog.json"
  step cache "python3 bench/bench_cache.py --imgview \$PWD/.build-static/release/imgview --runs 2 --json $results/cache.json"
  step browser "python3 bench/bench_tui.py --imgview \$PWD/.build-static/release/imgview --switches 60 --idle 3 --json $results/tui.json"
  step browsing "python3 bench/bench_browse.py --imgview \$PWD/.build-static/release/imgview --files 2000 --entries 1000 --runs 2 --presses 6 --json $results/browse.json"
  step hardening "python3 bench/bench_hardening.py --imgview \$PWD/.build-static/release/imgview --runs 1 --json $results/hardening.json --markdown $results/hardening.md"
  step pixels "python3 bench/bench_pixels.py --imgview \$PWD/.build-static/release/imgview --runs 1 --images 10 --json $results/pixels.json"
  step grid "python3 bench/bench_grid.py --imgview \$PWD/.build-static/release/imgview --runs 1 --json $results/grid.json"
  step grid-browser "python3 bench/bench_grid_browser.py --imgview \$PWD/.build-static/release/imgview --runs 1 --json $results/grid-browser.json"
  step partial "python3 bench/bench_partial.py --imgview \$PWD/.build-static/release/imgview --json $results/partial.json"
  step startup "python3 bench/bench_startup.py --imgview \$PWD/$results/prefix/bin/imgview --runs 5 --json $results/startup.json"
else
  step formats "python3 bench/bench_formats.py --imgview \$PWD/.build-static/release/imgview --json $results/formats.json"
  step downloads "python3 bench/bench_get.py --imgview \$PWD/.build-static/release/imgview --runs 7 --json $results/get.json"
  step slow-transfer "python3 bench/bench_slow.py --imgview \$PWD/.build-static/release/imgview --runs 3 --json $results/slow.json"
  step catalog "python3 bench/bench_catalog.py --imgview \$PWD/.build-static/release/imgview --runs 7 --json $results/catalog.json"
  step cache "python3 bench/bench_cache.py --imgview \$PWD/.build-static/release/imgview --runs 7 --json $results/cache.json"
  step browser "python3 bench/bench_tui.py --imgview \$PWD/.build-static/release/imgview --switches 300 --idle 10 --json $results/tui.json"
  step browsing "python3 bench/bench_browse.py --imgview \$PWD/.build-static/release/imgview --files 10000 --entries 5000 --runs 5 --json $results/browse.json"
  step hardening "python3 bench/bench_hardening.py --imgview \$PWD/.build-static/release/imgview --runs 3 --json $results/hardening.json --markdown $results/hardening.md"
  step pixels "python3 bench/bench_pixels.py --imgview \$PWD/.build-static/release/imgview --runs 9 --json $results/pixels.json"
  step grid "python3 bench/bench_grid.py --imgview \$PWD/.build-static/release/imgview --runs 7 --json $results/grid.json"
  step grid-browser "python3 bench/bench_grid_browser.py --imgview \$PWD/.build-static/release/imgview --runs 3 --json $results/grid-browser.json"
  step partial "python3 bench/bench_partial.py --imgview \$PWD/.build-static/release/imgview --json $results/partial.json"
  step startup "python3 bench/bench_startup.py --imgview \$PWD/$results/prefix/bin/imgview --runs 30 --json $results/startup.json"
fi
cut -d' ' -f1 /proc/loadavg > "$results/load-after"
date -u +%Y-%m-%dT%H:%M:%SZ > "$results/finished"

if [ $quick -eq 1 ]; then
  output="$results/benchmarks-quick.md"
else
  output=docs/benchmarks.md
fi
step report "python3 bench/report.py --results $results --output $output"
echo "bench: wrote $output (full tables: $results/quality/results/*.md, $results/speed/results/*.md)" >&2
