# Flags every `swift build` of imgview takes; sourced by the scripts that build.
# toml++ (compiled by TOMLKit) checks its parser's expectations with assert(), which aborts imgview
# on some malformed config files; compiled out it reports them as errors instead. Not with NDEBUG,
# which turns them into __builtin_assume, undefined behaviour on bad input (DECISIONS.md,
# "toml++ asserts").
# shellcheck disable=SC2034  # used by the scripts that source this file
swift_build_flags=(-Xcxx '-DTOML_ASSERT(expr)=((void)0)')
