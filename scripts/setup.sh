#!/usr/bin/env bash
# Installs the Debian packages imgview builds and tests with (only those missing), then builds.
# Usage: scripts/setup.sh [debug|release]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-flags.sh

# libcurl4-openssl-dev: curl/curl.h for CCurl (libcurl itself is opened at run time, libcurl4).
# libbrotli-dev: brotli/decode.h for CBrotli (libbrotlidec is opened at run time, libbrotli1).
# libxml2-dev: libxml/HTMLparser.h for CLibXML2 (libxml2 itself is opened at run time when a page is read).
# strace: the CLI test that checks a cache hit flushes nothing (HostileCacheTests).
# gdb: the tmux test that makes the browser crash for real (TerminalLifeTmuxTests).
# trash-cli: the browser's trash test checks that trash-list and trash-restore see what it trashed.
# libglib2.0-bin, python3-gi, gir1.2-gnomedesktop-3.0: the thumbnail tests check that GLib (`gio`)
# finds imgview's thumbnails valid and that imgview uses those GNOME's factory makes.
# libavif-bin: avifenc makes the 8000² AVIF of the memory tests (Tests/ImgviewTestSupport/Generators).
# libjpeg-turbo-progs: cjpeg makes their 24 MP progressive JPEG.
# libheif-examples: heif-enc makes their 12 MP HEIC; libjxl-tools: cjxl their 12 MP JPEG XL.
# icc-profiles-free: the Adobe RGB (1998)-compatible profile the colour tests name.
# libstdc++-12-dev: libstdc++.a, which `make release` links in (scripts/build-flags.sh).
packages=(libncurses-dev libjpeg62-turbo-dev libspng-dev libgif-dev libwebp-dev libavif-dev libtiff-dev libheif-dev libde265-dev libjxl-dev librsvg2-2 liblcms2-dev zlib1g-dev libbrotli-dev libcurl4-openssl-dev libxml2-dev pkg-config tmux strace gdb trash-cli libglib2.0-bin python3-gi gir1.2-gnomedesktop-3.0 libavif-bin libheif-examples libjpeg-turbo-progs libjxl-tools icc-profiles-free libstdc++-12-dev)
scripts/install-packages.sh "${packages[@]}"

command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6 toolchain needed)" >&2; exit 1; }
configuration="${1:-debug}"
quiet() { grep -vE '^\[[0-9]+/[0-9]+\] (Compiling|Write|Emitting)' || true; }
if [ "$configuration" = release ]; then
  # What users install and `make bench` measures: the program and its server, linked with
  # -static-stdlib into .build-static (DECISIONS.md, "A light binary"). Only those two: the
  # test-support target imports Swift Testing, which a -static-stdlib build cannot find.
  mkdir -p "$static_libstdcxx_dir"
  ln -sf "$(clang -print-file-name=libstdc++.a)" "$static_libstdcxx_dir/libstdc++.a"
  for product in imgview imgview-server; do
    swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product "$product" "${swift_build_flags[@]}" "${release_compile_flags[@]}" "${release_link_flags[@]}" 2>&1 | quiet
    swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product "$product" "${swift_build_flags[@]}" "${release_compile_flags[@]}" "${release_link_flags[@]}" >/dev/null   # its real exit code
  done
else
  swift build "${swift_build_flags[@]}" 2>&1 | quiet
  swift build "${swift_build_flags[@]}" >/dev/null   # the exit code of the real build, without the noise above
fi
