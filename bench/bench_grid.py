#!/usr/bin/env python3
"""Contact sheets against timg's grid: `imgview show --grid 6x4` and `timg --grid=6x4` over the same 24
photographs of 3840×2400 in the same 180×50 box, cold (no thumbnails) and warm (thumbnails made).

The photographs are made once per run from the shared testdata's large JPEGs (ImageMagick, cropped to
16:10 and scaled to 3840×2400, quality 92): four pictures, six copies each, every copy a file of its own.
Both tools write quarter blocks in 24-bit colour (timg `-pq`, which always writes 24-bit colour; Debian's
timg 1.4.5 has no sixel, and its `-ps` is byte for byte the same output, which the script checks and
reports) into a pipe, in the same box (timg `-g 180x50`, imgview `--size 180x50 --mode blocks --colors full`:
without `--colors` imgview would take 256 colours from TERM=xterm-256color, more work than timg does). Runs take turns. Cold: each imgview run gets an empty
$XDG_CACHE_HOME and imgview cache, so every photograph is decoded and its thumbnail written (imgview waits
for the writes before it exits); warm: the thumbnails one cold run made. Figures per run: the wall time to
the sheet's last byte (the screen is whole; for timg this is its exit), to the exit, CPU (user+sys) and peak
RSS from wait4; medians over --runs. Goals (issue 29): the screen cold ≤ 0.5× timg's time, warm ≤ 0.1×,
peak RSS ≤ 100 MB.

Usage: python3 bench/bench_grid.py [--imgview PATH] [--runs N] [--json OUT] [--testdata DIR]
Needs: timg, ImageMagick (convert), ../shared/testdata.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "shared", "testdata")
SOURCES = ["06_evening_glow.jpg", "10_large_6000x4000.jpg", "11_large_progressive.jpg", "13_large_mosaic.jpg"]
COPIES = 6
WIDTH, HEIGHT = 3840, 2400
GRID, BOX = "6x4", "180x50"
COLD_GOAL, WARM_GOAL, RSS_GOAL_MB = 0.5, 0.1, 100


def make_photos(folder, testdata):
    """24 photographs of 3840×2400 in folder, made from testdata's, in name order; returns their paths."""
    paths = []
    for number, source in enumerate(SOURCES):
        first = os.path.join(folder, f"photo{number * COPIES + 1:02d}.jpg")
        subprocess.run(["convert", os.path.join(testdata, source), "-resize", f"{WIDTH}x{HEIGHT}^", "-gravity", "center",
                        "-extent", f"{WIDTH}x{HEIGHT}", "-quality", "92", first], check=True)
        paths.append(first)
        for copy in range(1, COPIES):
            path = os.path.join(folder, f"photo{number * COPIES + copy + 1:02d}.jpg")
            shutil.copyfile(first, path)
            paths.append(path)
    return sorted(paths)


def run(command, environment):
    """Runs command with stdout into a pipe, drained: (seconds to the last byte, seconds to the exit, CPU s, peak RSS MB, output)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    chunks, last = [], started
    while True:
        data = process.stdout.read1(1 << 16)
        if not data:
            break
        chunks.append(data)
        last = time.perf_counter()
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    ended = time.perf_counter()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"bench_grid: {' '.join(command)} exited {process.returncode}: {errors.decode(errors='replace')}")
    return last - started, ended - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, b"".join(chunks)


def timg_version():
    """timg's first line of `--version` (it prints to stderr), "timg 1.4.5"."""
    answer = subprocess.run(["timg", "--version"], capture_output=True, text=True)
    lines = (answer.stdout + answer.stderr).splitlines()
    return lines[0].strip() if lines else "timg"


def summary(samples):
    screen, wall, cpu, rss = zip(*[sample[:4] for sample in samples])
    return {"screen_s": statistics.median(screen), "wall_s": statistics.median(wall), "cpu_s": statistics.median(cpu),
            "peak_rss_mb": statistics.median(rss), "runs": len(samples)}


def main():
    parser = benchlib.parser(runs=5, description=__doc__.splitlines()[0])
    parser.add_argument("--testdata", default=TESTDATA, help="the shared photographs (default: ../shared/testdata)")
    args = parser.parse_args()
    benchlib.require(args, "bench_grid.py", commands=["timg", "convert"], packages="timg imagemagick")
    base = dict(os.environ, TERM="xterm-256color", LANG="C.UTF-8")
    for name in ("TMUX", "KITTY_WINDOW_ID", "TERM_PROGRAM", "IMGVIEW_MODE", "XDG_CACHE_HOME", "IMGVIEW_CACHE_DIR"):
        base.pop(name, None)
    with tempfile.TemporaryDirectory(prefix="imgview-bench-grid-") as folder:
        os.makedirs(os.path.join(folder, "photos"))
        photos = make_photos(os.path.join(folder, "photos"), args.testdata)
        timg = ["timg", f"--grid={GRID}", "-g", BOX, "-pq", *photos]
        mine = [args.imgview, "show", "--grid", GRID, "--size", BOX, "--mode", "blocks", "--colors", "full", *photos]

        def fresh(name):
            path = os.path.join(folder, name)
            shutil.rmtree(path, ignore_errors=True)
            os.makedirs(os.path.join(path, "xdg"))
            return dict(base, XDG_CACHE_HOME=os.path.join(path, "xdg"), IMGVIEW_CACHE_DIR=os.path.join(path, "cache"))

        # Debian's timg draws no sixel: -ps is quarter blocks, the same bytes as -pq.
        ps_is_pq = run(["timg", f"--grid={GRID}", "-g", BOX, "-ps", *photos], base)[4] == run(timg, base)[4]
        # Warm-up: page cache for the photographs, the binaries; and the thumbnails of the warm runs.
        warm = fresh("warm")
        run(mine, warm)
        thumbnails = sum(len(files) for _, _, files in os.walk(os.path.join(warm["XDG_CACHE_HOME"], "thumbnails")))
        samples = {"timg": [], "cold": [], "warm": []}
        for _ in range(args.runs):
            samples["timg"].append(run(timg, base))
            samples["cold"].append(run(mine, fresh("cold")))
            samples["warm"].append(run(mine, warm))
    results = {name: summary(values) for name, values in samples.items()}
    for name in ("cold", "warm"):
        results[name]["screen_ratio"] = results[name]["screen_s"] / results["timg"]["wall_s"]
        results[name]["wall_ratio"] = results[name]["wall_s"] / results["timg"]["wall_s"]
    data = {"photos": len(photos), "size": f"{WIDTH}x{HEIGHT}", "grid": GRID, "box": BOX, "runs": args.runs,
            "timg_command": " ".join(["timg", f"--grid={GRID}", "-g", BOX, "-pq", "PHOTOS…"]),
            "imgview_command": " ".join(["imgview", "show", "--grid", GRID, "--size", BOX, "--mode", "blocks", "--colors", "full", "PHOTOS…"]),
            "timg_version": timg_version(),
            "timg_ps_is_pq": ps_is_pq, "thumbnails_written": thumbnails, "cores": os.cpu_count(),
            "load": open("/proc/loadavg").read().split()[0], **results}
    for name in ("timg", "cold", "warm"):
        r = results[name]
        ratio = f", screen {r['screen_ratio']:.2f}× timg" if "screen_ratio" in r else ""
        print(f"{name}: screen {r['screen_s']:.3f} s, exit {r['wall_s']:.3f} s, CPU {r['cpu_s']:.3f} s, "
              f"peak RSS {r['peak_rss_mb']:.0f} MB{ratio}")
    print(f"timg -ps is -pq: {ps_is_pq}; thumbnails written by one cold run: {thumbnails}; load {data['load']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)


if __name__ == "__main__":
    main()
