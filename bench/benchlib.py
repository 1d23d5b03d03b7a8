"""What the benchmark scripts share: their common options and the check that what they run is there."""
import argparse
import os
import shutil
import sys

BUILD = "swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview"


def parser(runs, description=None):
    """An argument parser with --imgview, --runs (default `runs`) and --json."""
    result = argparse.ArgumentParser(description=description)
    result.add_argument("--imgview", default=os.path.abspath(".build-static/release/imgview"))
    result.add_argument("--runs", type=int, default=runs)
    result.add_argument("--json", help="also write the figures to this file, for bench/report.py")
    return result


def require(args, script, commands=(), packages=""):
    """Exits with a message unless imgview is built and every command in `commands` (paths or names) is there."""
    if not os.access(args.imgview, os.X_OK):
        sys.exit(f"{args.imgview}: not built; run {BUILD}")
    missing = [c for c in commands if not (os.access(c, os.X_OK) if c.startswith("/") else shutil.which(c))]
    if missing:
        sys.exit(f"{script} needs {' and '.join(missing)} (Debian: apt-get install {packages})")
