#!/usr/bin/env python3
"""The browser's grid at scale, run for real in tmux: a folder of 2,000 photographs opens its grid in
the same time as one of 24, and End shows the last screen of the 2,000 in ≤ 1 s.

The 24 photographs are bench_grid.py's (3840×2400, JPEG quality 92, from the shared testdata); the
folder of 2,000 holds hard links to them under 2,000 names (photo0001.jpg …), so each name is a file
of its own to imgview (its own thumbnail, keyed by its URI) while the page cache, not the disk, serves
the bytes. Every run starts cold: an empty $XDG_CACHE_HOME and imgview cache, so each cell is a decode
of its photograph at the smallest DCT scale that covers it (and a thumbnail written behind it).

Each run starts `imgview --mode blocks FOLDER` in a fresh detached tmux pane of 100×40, where a screen of
the grid holds 20 cells at the standard 256 px (so the 24 fill it, as the 2,000 do; at 180×50 it holds 50,
and the 24 would be half a screen), waits until the whole folder is listed and the single view's first
preview and its neighbours' prefetches are done, then sends `g`; imgview appends `grid MS` to
$IMGVIEW_FRAME_LOG at the first frame after the key in which every visible cell shows its thumbnail (or a
failure): the grid's first screen. In the folder of 2,000, End then goes to the last image, and the next
`grid MS` is the time to its whole screen. Before it quits, the browser's peak resident memory
(VmHWM) is read from /proc.
Runs take turns between the two folders. Goals (issue 29): the 2,000's first screen within 1.25× the
24's (medians; "the same time", with room for the noise of a shared machine), End ≤ 1000 ms (median),
peak RSS ≤ 100 MB (the largest run).

Usage: bench/bench_grid_browser.py [--imgview PATH] [--runs N] [--json OUT] [--testdata DIR]
Needs: tmux, ImageMagick (convert), ../shared/testdata.
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import bench_grid
import benchlib

tmux = benchlib.Tmux("grid-browser")
MANY = 2000
COLUMNS, ROWS = 100, 40
SAME_TIME_GOAL = 1.25
END_GOAL_MS = 1000
RSS_GOAL_MB = 100
SETTLE_S = 2.0


def grid_times(path):
    return [float(line.split()[1]) for line in benchlib.log_lines(path) if line.startswith("grid ")]


def peak_rss_mb(pid):
    """The process's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise SystemExit(f"bench_grid_browser: no VmHWM for process {pid}")


def browse(imgview, work, folder, count, name, end):
    """One cold run over folder: (ms from g to the grid's first whole screen, ms from End to the last screen's, or None,
    the browser's peak RSS in MB)."""
    state = os.path.join(work, "state-" + name)
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(os.path.join(state, "xdg"))
    log = os.path.join(state, "frames.log")
    environment = (f"env TERM=tmux-256color LANG=C.UTF-8 XDG_CACHE_HOME={state}/xdg IMGVIEW_CACHE_DIR={state}/cache "
                   f"IMGVIEW_FRAME_LOG={log}")
    tmux("kill-server")
    tmux("new-session", "-d", "-s", "bench", "-x", str(COLUMNS), "-y", str(ROWS), "sh", "-c",
         f"exec {environment} {imgview} --mode blocks {folder}; sleep 600")
    tmux.wait_for(lambda: any(line.startswith("first-preview ") for line in benchlib.log_lines(log)), "the first preview", timeout=120)
    tmux.wait_for(lambda: f"{count} images" in tmux.screen(), f"the {count} images to be listed", timeout=120)
    time.sleep(SETTLE_S)
    tmux("send-keys", "-t", "bench", "g")
    tmux.wait_for(lambda: len(grid_times(log)) >= 1, "the grid's first screen", timeout=120)
    opened = grid_times(log)[0]
    ended = None
    if end:
        time.sleep(0.3)
        tmux("send-keys", "-t", "bench", "End")
        tmux.wait_for(lambda: len(grid_times(log)) >= 2, "the grid's last screen", timeout=120)
        ended = grid_times(log)[1]
        last = f"photo{count:04d}.jpg"
        if last[:-4] not in tmux.screen():
            shown = tmux.screen()
            tmux("kill-server")
            sys.exit(f"bench_grid_browser: End did not show {last}; the screen showed:\n" + shown)
    # The pane's process is imgview itself: sh execs env, which execs it.
    rss = peak_rss_mb(int(tmux("display-message", "-p", "-t", "bench", "#{pane_pid}").strip()))
    tmux("kill-server")
    return opened, ended, rss


def main():
    parser = benchlib.parser(runs=3, description=__doc__.splitlines()[0])
    parser.add_argument("--testdata", default=bench_grid.TESTDATA, help="the shared photographs (default: ../shared/testdata)")
    args = parser.parse_args()
    benchlib.require(args, "bench_grid_browser.py", commands=["tmux", "convert"], packages="tmux imagemagick")
    work = tempfile.mkdtemp(prefix="imgview-bench-grid-browser-")
    try:
        few = os.path.join(work, "photos")
        os.makedirs(few)
        photos = bench_grid.make_photos(few, args.testdata)
        many = os.path.join(work, "many")
        os.makedirs(many)
        for index in range(MANY):
            os.link(photos[index % len(photos)], os.path.join(many, f"photo{index + 1:04d}.jpg"))
        opened = {"few": [], "many": []}
        ends = []
        rss = {"few": [], "many": []}
        for _ in range(args.runs):
            first, _, peak = browse(args.imgview, work, few, len(photos), "few", end=False)
            opened["few"].append(first)
            rss["few"].append(peak)
            first, end, peak = browse(args.imgview, work, many, MANY, "many", end=True)
            opened["many"].append(first)
            ends.append(end)
            rss["many"].append(peak)
    finally:
        tmux("kill-server")
        shutil.rmtree(work, ignore_errors=True)
    few_ms, many_ms, end_ms = statistics.median(opened["few"]), statistics.median(opened["many"]), statistics.median(ends)
    ratio = many_ms / few_ms
    load = open("/proc/loadavg").read().split()[0]
    print(f"grid's first screen, cold: {len(photos)} photos median {few_ms:.0f} ms ({', '.join(f'{t:.0f}' for t in opened['few'])}); "
          f"{MANY:,} photos median {many_ms:.0f} ms ({', '.join(f'{t:.0f}' for t in opened['many'])}): {ratio:.2f}×")
    print(f"End in the grid of {MANY:,}: the last screen whole in median {end_ms:.0f} ms ({', '.join(f'{t:.0f}' for t in ends)})")
    peak = max(rss["few"] + rss["many"])
    print(f"peak RSS: {len(photos)} photos {', '.join(f'{m:.0f}' for m in rss['few'])} MB; {MANY:,} photos (after End) "
          f"{', '.join(f'{m:.0f}' for m in rss['many'])} MB")
    print(f"goal ≤ {RSS_GOAL_MB} MB peak RSS: {'met' if peak <= RSS_GOAL_MB else 'NOT met'}")
    print(f"goal ≤ {SAME_TIME_GOAL}× for the {MANY:,}: {'met' if ratio <= SAME_TIME_GOAL else 'NOT met'}; "
          f"goal ≤ {END_GOAL_MS} ms for End: {'met' if end_ms <= END_GOAL_MS else 'NOT met'}; load {load}, {os.cpu_count()} cores")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"few": len(photos), "many": MANY, "size": f"{bench_grid.WIDTH}x{bench_grid.HEIGHT}", "box": f"{COLUMNS}x{ROWS}",
                       "runs": args.runs, "few_ms": opened["few"], "many_ms": opened["many"], "end_ms": ends,
                       "few_median_ms": few_ms, "many_median_ms": many_ms, "end_median_ms": end_ms, "ratio": ratio,
                       "same_time_goal": SAME_TIME_GOAL, "end_goal_ms": END_GOAL_MS,
                       "few_rss_mb": rss["few"], "many_rss_mb": rss["many"], "peak_rss_mb": peak, "rss_goal_mb": RSS_GOAL_MB, "load": load, "cores": os.cpu_count()}, f, indent=1)


if __name__ == "__main__":
    main()
