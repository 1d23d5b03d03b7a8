# Entry points; the README's two commands are `make demo` and `make test`.
# `make release` builds the binaries users install (`-static-stdlib`, into .build-static/release);
# `make bench` measures exactly those and writes docs/benchmarks.md; `make install PREFIX=…` puts
# them, the man page and the shell completions under PREFIX (default /usr/local), and
# `make uninstall PREFIX=…` removes them.
PREFIX ?= /usr/local

.PHONY: setup demo test lint format release bench install uninstall

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

install: release
	scripts/install.sh install "$(PREFIX)"

uninstall:
	scripts/install.sh uninstall "$(PREFIX)"
