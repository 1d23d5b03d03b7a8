#!/usr/bin/env python3
"""Keypress-to-frame time and idle CPU of the imgview browser, run for real in tmux.

Starts `imgview demo` (the bundled images over the loopback server) in a detached tmux pane of
200x60 cells, visits every tab once so each image is decoded and in memory, then switches tabs
many times. imgview appends one line per switch to $IMGVIEW_FRAME_LOG: the milliseconds from
reading the key to the frame that shows the new tab's preview being written to the terminal
(ncurses' refresh returned). tmux's own input and drawing are not included.

Then it leaves the browser alone and reads the process's CPU time from /proc over an idle
period: nothing should run. Last, over a catalog of 24 MP JPEGs none of which is in memory, it
compares the CPU time of holding → across ten of them with that of showing one.

Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview
(`make bench` does, and runs this as it is).
Usage: bench/bench_tui.py [--imgview PATH] [--switches N] [--idle SECONDS] [--json FILE]
Exit status: 1 when the browser could not be driven; a missed goal is reported, not an error.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SOCKET = f"imgview-bench-{os.getpid()}"
# The tmux server the next command goes to. Each browser gets a server of its own: a new session
# on the socket of a server still shutting down after kill-server is lost.
socket_name = SOCKET


def tmux(*args):
    return subprocess.run(["tmux", "-L", socket_name, "-f", "/dev/null", *args], capture_output=True, text=True).stdout


def screen():
    return tmux("capture-pane", "-p", "-t", "bench")


def wait_for(predicate, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        text = screen()
        if predicate(text):
            return text
        time.sleep(0.05)
    sys.exit("timed out; the screen shows:\n" + screen())


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def percentile(values, fraction):
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(fraction * (len(ordered) - 1)))))
    return ordered[index]


def read_log(path, start):
    with open(path) as log:
        lines = log.read().splitlines()[start:]
    # Switch lines start with the milliseconds; `selected`, `first-preview` (bench_browse.py's) and
    # `partial` (bench_partial.py's) lines do not.
    return [float(line.split()[0]) for line in lines if line[:1].isdigit()]


def switch(count, pause):
    keys = ["Right"] * 5 + ["Left"] * 5
    for index in range(count):
        tmux("send-keys", "-t", "bench", keys[index % len(keys)])
        time.sleep(pause)


def report(label, values):
    if not values:
        sys.exit(f"{label}: the browser logged no frame to $IMGVIEW_FRAME_LOG")
    print(
        f"{label:<44} n={len(values):<4} p50 {percentile(values, 0.5):6.2f} ms  p95 {percentile(values, 0.95):6.2f} ms  "
        f"p99 {percentile(values, 0.99):6.2f} ms  max {max(values):6.2f} ms"
    )


def settle(pid, quiet=0.5, timeout=60):
    """Waits until the process's CPU time stops growing for `quiet` seconds; returns it."""
    deadline = time.time() + timeout
    last = cpu_seconds(pid)
    while time.time() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(pid)
        if now - last < 0.005:
            return now
        last = now
    sys.exit("the browser never went quiet")


def hold_across_large(args, work):
    """CPU time of the browser for holding → across ten large JPEGs, beside that of showing one.

    A catalog of 22 file:// copies of one 24 MP JPEG (hard links: the pipeline keys decodes by URL
    and content, so each is decoded on its own), none in memory. Showing one: from the first tab
    press 9 (tab 9 and its two neighbours are decoded). Holding →: ten presses 30 ms apart, from
    tab 9 to tab 19. Both are measured from a quiet browser until it is quiet again."""
    folder = os.path.join(work, "large")
    os.makedirs(folder)
    images = []
    for index in range(22):
        path = os.path.join(folder, f"large{index:02}.jpg")
        os.link(args.large, path)
        images.append({"name": f"large{index:02}", "url": "file://" + path})
    global socket_name
    socket_name = SOCKET + "-large"
    catalog = os.path.join(work, "large.json")
    with open(catalog, "w") as f:
        json.dump({"images": images}, f)
    command = (f"env TERM=tmux-256color LANG=C.UTF-8 IMGVIEW_CACHE_DIR={work}/cache-large "
               f"{args.imgview} --catalog {catalog}; sleep 600")
    tmux("new-session", "-d", "-s", "bench", "-x", str(args.columns), "-y", str(args.rows), "sh", "-c", command)
    try:
        wait_for(lambda text: "source  local file" in text)
        shell = tmux("display-message", "-p", "-t", "bench", "#{pane_pid}").strip()
        pid = int(subprocess.run(["pgrep", "-P", shell, "-x", "imgview"], capture_output=True, text=True).stdout.split()[0])
        before = settle(pid)
        tmux("send-keys", "-t", "bench", "9")
        wait_for(lambda text: "[ large08 ]" in text and "source  local file" in text)
        single = settle(pid) - before
        before = cpu_seconds(pid)
        for _ in range(10):
            tmux("send-keys", "-t", "bench", "Right")
            time.sleep(0.03)
        wait_for(lambda text: "[ large18 ]" in text and "source  local file" in text)
        held = settle(pid) - before
    finally:
        tmux("kill-server")
    print(f"{'show one large JPEG (and prefetch 2)':<44} {single:.3f} s of CPU")
    print(f"{'hold → across ten large JPEGs':<44} {held:.3f} s of CPU ({held / single:.2f}× showing one)")
    return {"image": os.path.basename(args.large), "single_cpu_s": single, "held_cpu_s": held, "presses": 10}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imgview", default=os.path.abspath(".build-static/release/imgview"))
    parser.add_argument("--switches", type=int, default=300)
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--columns", type=int, default=200)
    parser.add_argument("--rows", type=int, default=60)
    parser.add_argument("--json", help="also write the figures to this file, for bench/report.py")
    parser.add_argument("--large", default=os.path.abspath("../shared/testdata/10_large_6000x4000.jpg"),
                        help="the large JPEG held → across (24 MP)")
    args = parser.parse_args()
    if not os.access(args.imgview, os.X_OK):
        sys.exit(f"{args.imgview}: not built; run swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview")
    if shutil.which("tmux") is None or shutil.which("pgrep") is None:
        sys.exit("bench_tui.py needs tmux and pgrep (Debian: apt-get install tmux procps)")

    work = tempfile.mkdtemp(prefix="imgview-bench-tui-")
    log_path = os.path.join(work, "frames.log")
    command = (
        f"env TERM=tmux-256color LANG=C.UTF-8 IMGVIEW_CACHE_DIR={work}/cache IMGVIEW_FRAME_LOG={log_path} "
        f"{args.imgview} demo; sleep 600"
    )
    tmux("new-session", "-d", "-s", "bench", "-x", str(args.columns), "-y", str(args.rows), "sh", "-c", command)
    try:
        wait_for(lambda text: "source  network" in text)
        shell = tmux("display-message", "-p", "-t", "bench", "#{pane_pid}").strip()
        pid = int(subprocess.run(["pgrep", "-P", shell, "-x", "imgview"], capture_output=True, text=True).stdout.split()[0])

        # Visit every tab once: each image fetched, decoded and rendered for this pane.
        for _ in range(5):
            tmux("send-keys", "-t", "bench", "Right")
            time.sleep(0.4)
        wait_for(lambda text: "[ hopper-exif ]" in text and "source " in text and "loading" not in text)
        time.sleep(0.5)

        # One key every 150 ms (the terminal has drawn the last frame), then key repeat (30 ms),
        # where each frame's ~300 KB of escapes queue behind the last in the pty and in tmux.
        start = len(open(log_path).read().splitlines())
        switch(args.switches // 3, 0.15)
        time.sleep(0.5)
        cached = read_log(log_path, start)
        start = len(open(log_path).read().splitlines())
        switch(args.switches, 0.03)
        time.sleep(0.5)
        repeated = read_log(log_path, start)

        # Switch to ASCII: the decoded images are in memory, the previews must be rendered again.
        tmux("send-keys", "-t", "bench", "m")
        time.sleep(0.5)
        start = len(open(log_path).read().splitlines())
        switch(10, 0.3)
        time.sleep(0.5)
        rerendered = read_log(log_path, start)

        time.sleep(1.0)
        before = cpu_seconds(pid)
        time.sleep(args.idle)
        idle = cpu_seconds(pid) - before
        rss = 0
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    rss = int(line.split()[1]) / 1024

        tmux_version = tmux("-V").strip() or "?"
        print(f"imgview browser, {args.columns}x{args.rows} cells, {tmux_version}; {os.cpu_count()} cores")
        cases = [
            ("cached", "switch to a tab in memory, one key at a time (every 150 ms)", cached),
            ("repeated", "switch to a tab in memory, at key repeat (every 30 ms)", repeated),
            ("rerendered", "switch after m: render again from memory", rerendered),
        ]
        for _, label, values in cases:
            report(label, values)
        print(f"{'idle CPU over ' + str(args.idle) + ' s':<44} {idle:.3f} s ({100 * idle / args.idle:.2f}% of a core)")
        print(f"{'peak RSS':<44} {rss:.1f} MB")
        goal = percentile(cached, 0.99) <= 16
        print(f"goal p99 <= 16 ms for a memory-cached tab (one key at a time): {'met' if goal else 'NOT met'}")
    finally:
        tmux("kill-server")
    try:
        holding = hold_across_large(args, work)
        if args.json:
            figures = {
                key: {"label": label, "n": len(values), "p50_ms": percentile(values, 0.5), "p95_ms": percentile(values, 0.95),
                      "p99_ms": percentile(values, 0.99), "max_ms": max(values)}
                for key, label, values in cases
            }
            with open(args.json, "w") as f:
                json.dump({"columns": args.columns, "rows": args.rows, "tmux": tmux_version, "switches": figures,
                           "idle_s": args.idle, "idle_cpu_s": idle, "clock_tick_s": 1 / os.sysconf("SC_CLK_TCK"),
                           "peak_rss_mb": rss, "holding": holding}, f, indent=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
