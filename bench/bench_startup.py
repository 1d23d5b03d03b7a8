#!/usr/bin/env python3
"""Start-up: what a command costs before and around its work, for the installed binary, against peers.

Runs, each tool in turn within one hyperfine invocation (so their runs interleave in time) and
output to a pipe:
  - `--version`: imgview, curl, chafa and jp2a;
  - `show` of a small PNG (640x480) at 80x24, truecolour blocks, against chafa's closest mode
    (`-f symbols -c full --symbols vhalf`);
  - `info` of the same PNG against ImageMagick's `identify`;
  - a 3840x2400 baseline JPEG to 80x24 plain ASCII against jp2a.
Wall time is hyperfine's median; peak RSS the median of five runs under /usr/bin/time. The two
images are made from ../shared/testdata (or $IMGVIEW_TESTDATA) with Pillow (04_coffee.png and 06_evening_glow.jpg,
resized) into bench-results/startup/.

Usage: python3 bench/bench_startup.py [--imgview PATH] [--runs N] [--json FILE]
Needs: curl chafa jp2a imagemagick hyperfine time, and pillow.
The binary measured is the installed one: `make bench` installs `make release`'s build into
bench-results/prefix first (scripts/install.sh), and passes --imgview bench-results/prefix/bin/imgview.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

TESTDATA = os.environ.get("IMGVIEW_TESTDATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "testdata")
# Goals of issue 27: imgview's figure over the peer's.
GOALS = {"version": ("curl", 1.0), "show-png": ("chafa", 0.8), "info-png": ("identify", 1.0), "ascii-jpeg": ("jp2a", 0.6)}
VERSION_RSS_GOAL_MB = 12
ASCII_RSS_GOAL_MB = 32


def make_images(folder):
    """The 640x480 PNG and the 3840x2400 baseline JPEG, made once."""
    from PIL import Image
    os.makedirs(folder, exist_ok=True)
    png = os.path.join(folder, "coffee-640x480.png")
    jpeg = os.path.join(folder, "evening-3840x2400.jpg")
    if not os.path.exists(png):
        Image.open(os.path.join(TESTDATA, "04_coffee.png")).convert("RGB").resize((640, 480), Image.LANCZOS).save(png, optimize=False)
    if not os.path.exists(jpeg):
        Image.open(os.path.join(TESTDATA, "06_evening_glow.jpg")).convert("RGB").resize((3840, 2400), Image.LANCZOS).save(
            jpeg, quality=90, progressive=False, optimize=False)
    return png, jpeg


def hyperfine_ms(commands, runs):
    """Median wall time in ms of each command, measured in one hyperfine run."""
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run(["hyperfine", "-N", "--style", "none", "--output", "pipe", "--warmup", "3", "--min-runs", str(runs),
                        "--export-json", report.name, *[shlex.join(c) for c in commands]],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        results = json.load(open(report.name))["results"]
        return [r["median"] * 1000 for r in results], [(min(r["times"]) * 1000, max(r["times"]) * 1000) for r in results]


def peak_rss_mb(argv, runs=5):
    peaks = []
    for _ in range(runs):
        run = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"{shlex.join(argv)} failed: {run.stderr.strip()}")
        peaks.append(int(run.stderr.strip().splitlines()[-1]) / 1024)
    return statistics.median(peaks)


def libraries(argv):
    """How many shared objects the dynamic loader mapped for the command (LD_DEBUG=files)."""
    run = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, "LD_DEBUG": "files"})
    return len({line.split("file=")[1].split()[0] for line in run.stderr.splitlines() if "file=" in line and "generating link map" in line})


def main():
    parser = benchlib.parser(runs=30, description=__doc__)
    args = parser.parse_args()
    benchlib.require(args, "bench_startup.py", ["curl", "chafa", "jp2a", "identify", "hyperfine", "/usr/bin/time"],
                     "curl chafa jp2a imagemagick hyperfine time")
    png, jpeg = make_images(os.path.abspath("bench-results/startup"))
    me = args.imgview
    rows = {
        "version": [("imgview", [me, "--version"]), ("curl", ["curl", "--version"]), ("chafa", ["chafa", "--version"]),
                    ("jp2a", ["jp2a", "--version"])],
        "show-png": [("imgview", [me, "show", png, "--size", "80x24", "--mode", "blocks", "--colors", "full"]),
                     ("chafa", ["chafa", "-f", "symbols", "-c", "full", "--symbols", "vhalf", "--size", "80x24", png])],
        "info-png": [("imgview", [me, "info", png]), ("identify", ["identify", png])],
        "ascii-jpeg": [("imgview", [me, "show", jpeg, "--size", "80x24", "--mode", "ascii", "--colors", "none"]),
                       ("jp2a", ["jp2a", "--width=80", "--height=24", jpeg])],
    }
    workloads = []
    for name, tools in rows.items():
        medians, ranges = hyperfine_ms([argv for _, argv in tools], args.runs)
        measured = []
        for (tool, argv), median, (low, high) in zip(tools, medians, ranges):
            measured.append({"tool": tool, "command": shlex.join(argv).replace(os.path.abspath("."), "."), "wall_ms": round(median, 2),
                             "wall_min_ms": round(low, 2), "wall_max_ms": round(high, 2), "rss_mb": round(peak_rss_mb(argv), 1),
                             "libraries": libraries(argv)})
            print(f"{name:10} {tool:9} {median:7.1f} ms {measured[-1]['rss_mb']:6.1f} MB {measured[-1]['libraries']:3} libraries",
                  flush=True)
        peer, goal = GOALS[name]
        mine = measured[0]
        theirs = next(m for m in measured if m["tool"] == peer)
        workloads.append({"workload": name, "tools": measured, "goal_peer": peer, "goal_ratio": goal,
                          "ratio": round(mine["wall_ms"] / theirs["wall_ms"], 3)})
    result = {"runs": args.runs, "png": "04_coffee.png resized to 640×480", "jpeg": "06_evening_glow.jpg resized to 3840×2400, baseline, quality 90",
              "version_rss_goal_mb": VERSION_RSS_GOAL_MB, "ascii_rss_goal_mb": ASCII_RSS_GOAL_MB, "workloads": workloads}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    for w in workloads:
        print(f"{w['workload']:10} imgview/{w['goal_peer']} {w['ratio']:.2f}× (goal ≤ {w['goal_ratio']}×)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
