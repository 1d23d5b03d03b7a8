#!/usr/bin/env python3
"""Browsing at scale, run for real in tmux: how long `imgview DIR` takes to show its first preview
with 10,000 files in DIR, and how long End takes in a 5,000-entry catalog.

Start-up: a folder of N hard links to one small JPEG (so the page cache, not the disk, is what is
measured, and the folder costs no space). Each run starts `imgview DIR` in a fresh detached tmux
pane; the pane's shell writes the time just before it execs imgview, and imgview appends
`first-preview <time>` to $IMGVIEW_FRAME_LOG once the first preview is on screen (ncurses'
refresh returned). The figure is the difference: exec, listing and sorting the folder, reading the
first files' signatures, decoding and drawing.

End: a catalog of M entries with file URLs (hard links to one 451×300 PNG), opened in tmux; once
the first preview shows, End, Home, End… are sent, one every 300 ms. imgview logs the milliseconds
from reading each key to the first frame with the new tab selected (`selected`, when that frame
has no preview yet) and to the frame that shows its preview. The first End has to read, decode and
render the last image, which the selection frame does not wait for; later ones find it in memory.

Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static
(`make bench` does, and runs this as it is).
Usage: bench/bench_browse.py [--imgview PATH] [--files N] [--entries M] [--runs R] [--json FILE]
Exit status: 1 when the browser could not be driven; a missed goal is reported, not an error.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import benchlib

tmux = benchlib.Tmux("browse")

STARTUP_GOAL_MS = 1000
END_GOAL_MS = 100
REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHOTO = os.path.join(REPOSITORY, "Assets", "images", "01_grace_hopper.jpg")
PICTURE = os.path.join(REPOSITORY, "Assets", "images", "03_chelsea_cat.png")


def start(command, columns=160, rows=45):
    tmux("kill-server")
    tmux("new-session", "-d", "-s", "bench", "-x", str(columns), "-y", str(rows), "sh", "-c", command + "; sleep 600")


def environment(work, log):
    return f"env TERM=tmux-256color LANG=C.UTF-8 IMGVIEW_CACHE_DIR={work}/cache IMGVIEW_FRAME_LOG={log}"


def startup(imgview, work, files, runs):
    folder = os.path.join(work, "folder")
    os.makedirs(folder)
    for index in range(1, files + 1):
        os.link(PHOTO, os.path.join(folder, f"IMG_{index:05d}.jpg"))
    times = []
    for run in range(runs):
        log = os.path.join(work, f"startup-{run}.log")
        stamp = os.path.join(work, f"startup-{run}.t0")
        start(f"date +%s.%N > {stamp}; exec {environment(work, log)} {imgview} {folder}")
        tmux.wait_for(lambda: any(line.startswith("first-preview ") for line in benchlib.log_lines(log)), "the first preview")
        shown = float(next(line for line in benchlib.log_lines(log) if line.startswith("first-preview ")).split()[1])
        with open(stamp) as f:
            began = float(f.read().strip())
        times.append((shown - began) * 1000)
        # The listing finishes behind the browser: the count is whole once it has.
        tmux.wait_for(lambda: f"{files:,}".replace(",", "") + " images" in tmux.screen(), "the whole folder to be listed", timeout=120)
        tmux("kill-server")
    return times


def end_key(imgview, work, entries, presses):
    folder = os.path.join(work, "catalog")
    os.makedirs(folder)
    images = []
    for index in range(1, entries + 1):
        path = os.path.join(folder, f"p{index}.png")
        os.link(PICTURE, path)
        images.append({"name": f"photo{index}", "url": "file://" + path})
    catalog = os.path.join(work, "catalog.json")
    with open(catalog, "w") as f:
        json.dump({"images": images}, f)
    log = os.path.join(work, "end.log")
    start(f"exec {environment(work, log)} {imgview} --catalog {catalog}")
    tmux.wait_for(lambda: any(line.startswith("first-preview ") for line in benchlib.log_lines(log)), "the first preview")
    keys = ["End", "Home"]
    for index in range(presses):
        before = len(benchlib.log_lines(log))
        tmux("send-keys", "-t", "bench", keys[index % 2])
        tmux.wait_for(lambda: len(benchlib.log_lines(log)) > before, f"the frame after {keys[index % 2]}")
        time.sleep(0.3)
    tmux("kill-server")
    # Each press: the milliseconds to the frame with the tab selected, and to the one with its
    # preview (the same frame when the preview is in memory already).
    presses_seen, selected = [], None
    for line in benchlib.log_lines(log):
        if line.startswith("selected "):
            selected = float(line.split()[1])
        elif line[:1].isdigit():
            shown = float(line.split()[0])
            presses_seen.append((selected if selected is not None else shown, shown))
            selected = None
    return presses_seen[0::2], presses_seen[1::2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imgview", default=os.path.abspath(".build-static/release/imgview"))
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--entries", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--json", help="also write the figures to this file, for bench/report.py")
    args = parser.parse_args()
    if not os.access(args.imgview, os.X_OK):
        sys.exit(f"{args.imgview}: not built; run swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static")
    if shutil.which("tmux") is None:
        sys.exit("bench_browse.py needs tmux (Debian: apt-get install tmux)")

    work = tempfile.mkdtemp(prefix="imgview-bench-browse-")
    try:
        started = startup(args.imgview, work, args.files, args.runs)
        ends, homes = end_key(args.imgview, work, args.entries, args.presses)
    finally:
        tmux("kill-server")
        shutil.rmtree(work, ignore_errors=True)

    print(f"imgview DIR with {args.files:,} files, to the first preview on screen: "
          f"median {statistics.median(started):.0f} ms, best {min(started):.0f} ms, worst {max(started):.0f} ms ({len(started)} runs)")
    selections = [selected for selected, _ in ends]
    later = [shown for _, shown in ends[1:]] or [ends[0][1]]
    print(f"End in a {args.entries:,}-entry catalog: the last tab selected on screen in median {statistics.median(selections):.1f} ms, "
          f"worst {max(selections):.1f} ms; its preview the first time {ends[0][1]:.1f} ms (read, decode and render), "
          f"then from memory median {statistics.median(later):.1f} ms, worst {max(later):.1f} ms; "
          f"Home median {statistics.median(shown for _, shown in homes):.1f} ms")
    startup_met = statistics.median(started) <= STARTUP_GOAL_MS
    end_met = max(selections + later) <= END_GOAL_MS
    print(f"goal ≤ {STARTUP_GOAL_MS} ms to the first preview (median): {'met' if startup_met else 'NOT met'}")
    print(f"goal ≤ {END_GOAL_MS} ms for End (the tab selected on screen every time; its preview whenever it is in memory): "
          f"{'met' if end_met else 'NOT met'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"files": args.files, "entries": args.entries, "startup_ms": started,
                       "end_selected_ms": selections, "end_first_preview_ms": ends[0][1], "end_in_memory_ms": later,
                       "home_ms": [shown for _, shown in homes], "startup_goal_ms": STARTUP_GOAL_MS, "end_goal_ms": END_GOAL_MS}, f,
                      indent=1)


if __name__ == "__main__":
    main()
