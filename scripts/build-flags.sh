# Flags every `swift build` of imgview takes; sourced by the scripts that build.
# toml++ (compiled by TOMLKit) checks its parser's expectations with assert(), which aborts imgview
# on some malformed config files; compiled out it reports them as errors instead. Not with NDEBUG,
# which turns them into __builtin_assume, undefined behaviour on bad input (DECISIONS.md,
# "toml++ asserts").
# shellcheck disable=SC2034  # used by the scripts that source this file
swift_build_flags=(-Xcxx '-DTOML_ASSERT(expr)=((void)0)')

# How `make release` links what users install (DECISIONS.md, "Start-up: how the release binary is
# linked"): GNU ld, which packs the 57,000 relative relocations of a position-independent binary
# into a few kilobytes (DT_RELR, glibc 2.36), and without SwiftPM's --export-dynamic, which only
# `@testable` imports of an executable need; gold can do neither, lld pulls ICU in from archives.
# shellcheck disable=SC2034
release_link_flags=(-Xswiftc -use-ld=bfd -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic)
