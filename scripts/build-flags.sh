# Flags every `swift build` of imgview takes; sourced by the scripts that build.
# toml++ (compiled by TOMLKit) checks its parser's expectations with assert(), which aborts imgview
# on some malformed config files; compiled out it reports them as errors instead. Not with NDEBUG,
# which turns them into __builtin_assume, undefined behaviour on bad input (DECISIONS.md,
# "toml++ asserts").
# shellcheck disable=SC2034  # used by the scripts that source this file
swift_build_flags=(-Xcxx '-DTOML_ASSERT(expr)=((void)0)')
# A target that imports another of this package without declaring it is an error, not a build that
# works only while the other module happens to be built first (DECISIONS.md, "The map").
swift_build_flags+=(--explicit-target-dependency-import-check error)

# How `make release` links what users install (DECISIONS.md, "Start-up: how the release binary is
# linked"): GNU ld, which packs the 57,000 relative relocations of a position-independent binary
# into a few kilobytes (DT_RELR, glibc 2.36), and without SwiftPM's --export-dynamic, which only
# `@testable` imports of an executable need; gold can do neither, lld pulls ICU in from archives.
# shellcheck disable=SC2034
release_link_flags=(-Xswiftc -use-ld=bfd -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic)

# How `make release` compiles and links what users install, beyond the above (DECISIONS.md, "Start-up:
# types made without the runtime's lookups, and libstdc++ linked in"): generic types are made by
# direct calls, not from mangled names that the runtime demangles and checks by scanning every
# protocol conformance; and libstdc++ (which the static Swift runtime needs) is taken from its
# archive, found first in `static_libstdcxx_dir` (setup.sh links it there), so no start pays for
# loading and relocating libstdc++.so.
# shellcheck disable=SC2034
static_libstdcxx_dir="$PWD/.build-static/static-libstdc++"
# shellcheck disable=SC2034
release_compile_flags=(-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)
# No `$ORIGIN` run path: the release binary loads nothing from beside itself, and every start
# looked there (and in its hardware-capability subfolders) for each library first.
release_link_flags+=(-Xlinker -L"$static_libstdcxx_dir" --disable-local-rpath)
