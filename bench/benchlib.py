"""What the benchmark scripts share: their common options and the check that what they run is there."""
import argparse
import os
import shutil
import subprocess
import sys
import time

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


class Tmux:
    """A tmux server of a benchmark's own (its own socket, no configuration) and its session `bench`."""

    def __init__(self, name):
        self.socket = f"imgview-bench-{name}-{os.getpid()}"

    def __call__(self, *args):
        """Runs a tmux command on this server; its standard output."""
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True).stdout

    def screen(self):
        """What the session's pane shows."""
        return self("capture-pane", "-p", "-t", "bench")

    def wait_for(self, predicate, what, timeout=60):
        """Polls `predicate` until it holds; past `timeout` seconds, stops the server and exits with what the pane showed."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if predicate():
                return
            time.sleep(0.02)
        shown = self.screen()
        self("kill-server")
        sys.exit(f"timed out waiting for {what}; the screen showed:\n" + shown)


def log_lines(path):
    """The lines of the log at `path` so far (none before it exists)."""
    try:
        with open(path) as log:
            return log.read().splitlines()
    except FileNotFoundError:
        return []
