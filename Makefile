# Entry points; the README's two commands are `make demo` and `make test`.
# `make bench` builds the static release binary, runs every benchmark and writes docs/benchmarks.md.
.PHONY: setup demo test lint format release bench

setup:
	scripts/setup.sh

demo: setup
	swift run --skip-build imgview demo

test:
	scripts/test.sh

lint:
	scripts/lint.sh

format:
	scripts/lint.sh --fix

release:
	scripts/setup.sh release

bench:
	scripts/bench.sh
