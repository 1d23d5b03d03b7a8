#!/usr/bin/env python3
"""Writes docs/benchmarks.md from what one `make bench` run measured (scripts/bench.sh).

Reads, in the results folder (bench-results/):
  quality/results/<SIZE>.jsonl, speed/results/<SIZE>.jsonl   ../shared/bench/bench.py's records
  get.json, slow.json, catalog.json, cache.json, tui.json,  bench/bench_get.py, bench_slow.py, bench_catalog.py,
  browse.json, formats.json, pixels.json, partial.json,     bench_cache.py, bench_tui.py, bench_browse.py,
  hardening.json, startup.json, grid.json,                  bench_formats.py, bench_pixels.py, bench_partial.py,
  grid-browser.json                                         bench_hardening.py, bench_startup.py, bench_grid.py,
                                                            bench_grid_browser.py --json
  commands.txt, steps.tsv, started, finished, load-before, load-after, quick   written by scripts/bench.sh
and describes the machine it runs on (the one that ran the benchmarks). Every figure in the
output comes from those files; the text around them only says what is measured and what the
goals are. The output is written to a temporary file and renamed, so it is whole or untouched.

Usage: python3 bench/report.py [--results bench-results] [--output docs/benchmarks.md]
Exit status: 1 when a result is missing or a renderer failed.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime

SIZES = ["80x24", "100x40"]
EXIF_IMAGE = "12_exif_orient6.jpg"  # the same pixels as 01_grace_hopper, stored rotated: not in the means
LARGE = [  # (image, label) timed by the speed pass
    ("06_evening_glow.jpg", "2560×1600 JPEG"),
    ("10_large_6000x4000.jpg", "6000×4000 JPEG"),
    ("11_large_progressive.jpg", "6000×4000 progressive JPEG"),
    ("13_large_mosaic.jpg", "6000×4000 mosaic JPEG"),
]
GOAL_IMAGES = ["10_large_6000x4000.jpg", "11_large_progressive.jpg", "13_large_mosaic.jpg"]  # "the 6000×4000 JPEGs"
ASCII_SCORE_GOAL, TRUECOLOR_SCORE_GOAL, COLOR256_SCORE_GOAL = 0.50, 0.94, 0.85
WALL_VS_JP2A_GOAL, PREVIEW_RSS_GOAL_MB = 0.6, 32
PROGRESSIVE = ("11_large_progressive.jpg", "10_large_6000x4000.jpg")  # the same picture, progressive and baseline
PROGRESSIVE_WALL_GOAL, PROGRESSIVE_SCORE_TOLERANCE = 0.5, 0.005
HARDENING_RSS_GOAL_MB = 100
GRID_COLD_GOAL, GRID_WARM_GOAL, GRID_RSS_GOAL_MB = 0.5, 0.1, 100  # issue 29
THROUGHPUT_GOAL, DOWNLOAD_RSS_GOAL_MB = 0.9, 64
MANY_FILES_THROUGHPUT_GOAL = 1.0
RESUME_MOVED_GOAL_MB = 11  # issue 31: resuming a 100 MB file at 90 % moves at most this much
SWITCH_P99_GOAL_MS = 16
IMGVIEW_CONFIGS = ["imgview_ascii", "imgview_blocks_tc", "imgview_blocks_256"]
SKIPPED_CONFIGS = {"jp2a_invert"}  # bench.py's polarity check, not a way anyone runs jp2a
PEER_PACKAGES = [("chafa", "chafa"), ("jp2a", "jp2a"), ("timg", "timg"), ("catimg", "catimg"),
                 ("img2txt", "caca-utils"), ("hyperfine", "hyperfine"), ("curl", "curl"), ("tmux", "tmux"),
                 ("libjpeg-turbo", "libjpeg62-turbo"), ("libspng", "libspng0"), ("giflib", "libgif7"), ("libwebp", "libwebp7"),
                 ("libavif", "libavif15"), ("ImageMagick", "imagemagick-6.q16")]
FORMAT_NAMES = {"gif": "GIF", "webp": "WebP", "avif": "AVIF", "bmp": "BMP", "jpeg": "JPEG", "png": "PNG", "tiff": "TIFF",
                "heic": "HEIC", "jxl": "JPEG XL", "svg": "SVG", "qoi": "QOI", "ico": "ICO", "apng": "APNG"}
LARGE_HEIC_GOAL, LARGE_JXL_GOAL = 0.5, 0.5  # issue 30: ≤ 0.5× heif-convert's and djxl's time for that file


def fail(message):
    sys.exit(f"report.py: {message}")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as error:
        fail(f"cannot read {path} ({error.strerror}); run `make bench`")


def load_json(path):
    try:
        return json.loads(read(path))
    except json.JSONDecodeError as error:
        fail(f"{path}: {error}")


def load_records(folder, size):
    """bench.py appends; the last record per (config, image) wins, as in ../shared/bench/report.py."""
    path = os.path.join(folder, "results", f"{size}.jsonl")
    records = {}
    for line in read(path).splitlines():
        if line.strip():
            record = json.loads(line)
            records[(record["config"], record["image"])] = record
    if not records:
        fail(f"{path} holds no record")
    broken = [f"{r['config']} on {r['image']} ({'exit ' + str(r['rc']) if r['rc'] else r.get('error')})"
              for r in records.values() if r["rc"] != 0 or "error" in r]
    if broken:
        fail(f"{path}: renderers failed: " + "; ".join(broken))
    return records


def command(text):
    return subprocess.run(text, shell=True, capture_output=True, text=True).stdout.strip()


def package_version(name):
    return command(f"dpkg-query -W -f='${{Version}}' {name} 2>/dev/null") or "?"


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "?"
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    system = "?"
    if os.path.exists("/etc/os-release"):
        fields = dict(line.split("=", 1) for line in read("/etc/os-release").splitlines() if "=" in line)
        system = fields.get("PRETTY_NAME", "?").strip('"')
    if os.path.exists("/etc/debian_version"):
        system += f" (debian_version {read('/etc/debian_version').strip()})"
    swift = next((line for line in command("swift --version 2>&1").splitlines() if "Swift version" in line), "?")
    return {"cpu": cpu, "cores": os.cpu_count(), "memory": memory, "kernel": platform.release(), "system": system,
            "swift": swift.strip()}


def ratio(value):
    return f"{value:.2f}×"


def verdict(ok):
    return "met" if ok else "**not met**"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


class Previews:
    def __init__(self, results):
        self.quality = {size: load_records(os.path.join(results, "quality"), size) for size in SIZES}
        self.speed = {size: load_records(os.path.join(results, "speed"), size) for size in SIZES}
        configs = []
        for size in SIZES:
            for config, _ in list(self.quality[size]) + list(self.speed[size]):
                if config not in configs and config not in SKIPPED_CONFIGS:
                    configs.append(config)
        missing = [c for c in IMGVIEW_CONFIGS if c not in configs]
        if missing:
            fail(f"no preview record for {', '.join(missing)}")
        self.configs = configs

    def klass(self, config):
        for size in SIZES:
            for (c, _), record in self.quality[size].items():
                if c == config:
                    return record["class"]
        return "color"

    def scored_images(self, size, config):
        return [r for (c, image), r in self.quality[size].items() if c == config and image != EXIF_IMAGE and "score" in r]

    def mean_score(self, size, config):
        records = self.scored_images(size, config)
        return statistics.mean(r["score"] for r in records) if records else None

    def image_count(self):
        return len({image for size in SIZES for (_, image) in self.quality[size] if image != EXIF_IMAGE})

    def timing(self, size, config, image):
        record = self.speed[size].get((config, image), {})
        return (record["ms_median"], record["rss_kb"] / 1024) if "ms_median" in record else None

    @staticmethod
    def counterpart(config, klass):
        """The imgview configuration a peer is compared with: same kind of output and colour depth."""
        if klass == "ascii":
            return "imgview_ascii"
        return "imgview_blocks_256" if ("256" in config or config.endswith("_16")) else "imgview_blocks_tc"

    def example_command(self, config):
        for size in SIZES:
            for folder in (self.speed[size], self.quality[size]):
                record = folder.get((config, "10_large_6000x4000.jpg")) or next(
                    (r for (c, _), r in folder.items() if c == config), None)
                if record:
                    text = record["cmd"].replace(os.path.join("..", "testdata", record["image"]), "IMAGE")
                    text = text.replace(record["image"], "IMAGE")
                    words = text.split(" ")
                    if words[0].endswith("/imgview"):
                        words[0] = "imgview"
                    if words[0].endswith("python3") or "/python" in words[0]:
                        words[0] = "python3"
                    return f"`{' '.join(words)}` ({record['size']}, on {record['image']})"
        return "?"

    def quality_table(self, klass):
        rows = []
        for config in self.configs:
            if self.klass(config) != klass:
                continue
            mine = self.counterpart(config, klass)
            reference = config.startswith("ref_")
            compared = config not in IMGVIEW_CONFIGS and not reference
            row = [f"`{config}`" + (" (reference)" if reference else ""), f"`{mine}`" if compared else ""]
            for size in SIZES:
                score = self.mean_score(size, config)
                other = self.mean_score(size, mine)
                row.append("-" if score is None else f"{score:.3f}")
                row.append(ratio(other / score) if compared and score and other else "")
            rows.append(row)
        header = ["renderer", "imgview compared"]
        for size in SIZES:
            header += [f"score {size}", f"imgview ÷ it, {size}"]
        return table(header, rows)

    def speed_table(self, klass, size):
        images = [(image, label) for image, label in LARGE
                  if any((c, image) in self.speed[size] for c in self.configs)]
        rows = []
        for config in self.configs:
            if self.klass(config) != klass or not any(self.timing(size, config, image) for image, _ in images):
                continue
            mine = self.counterpart(config, klass)
            row = [f"`{config}`"]
            for image, _ in images:
                figures = self.timing(size, config, image)
                if figures is None:
                    row.append("-")
                    continue
                cell = f"{figures[0]:.0f} ms · {figures[1]:.1f} MB"
                other = self.timing(size, mine, image)
                if config not in IMGVIEW_CONFIGS and other:
                    cell += f" (imgview {ratio(other[0] / figures[0])} · {ratio(other[1] / figures[1])})"
                row.append(cell)
            rows.append(row)
        return table(["renderer"] + [label for _, label in images], rows)

    def goals(self):
        rows = []
        for config, goal, label in (("imgview_ascii", ASCII_SCORE_GOAL, "ASCII"),
                                    ("imgview_blocks_tc", TRUECOLOR_SCORE_GOAL, "blocks, truecolour"),
                                    ("imgview_blocks_256", COLOR256_SCORE_GOAL, "blocks, 256 colours")):
            scores = [(size, self.mean_score(size, config)) for size in SIZES]
            figure = ", ".join(f"{s:.3f} at {size}" for size, s in scores if s is not None)
            ok = all(s is not None and s >= goal for _, s in scores)
            rows.append([f"preview: {label} mean score ≥ {goal:.2f}", figure, verdict(ok)])
        labels = dict(LARGE)
        for image in GOAL_IMAGES:
            ratios, rss, ok_wall, ok_rss, measured = [], [], True, True, False
            for size in SIZES:
                mine, jp2a = self.timing(size, "imgview_ascii", image), self.timing(size, "jp2a", image)
                if mine and jp2a:
                    measured = True
                    value = mine[0] / jp2a[0]
                    ratios.append(f"{ratio(value)} at {size} ({mine[0]:.0f} vs {jp2a[0]:.0f} ms)")
                    ok_wall = ok_wall and value <= WALL_VS_JP2A_GOAL
                peaks = [self.timing(size, c, image) for c in IMGVIEW_CONFIGS]
                peaks = [p[1] for p in peaks if p]
                if peaks:
                    rss.append(f"{max(peaks):.1f} MB at {size}")
                    ok_rss = ok_rss and max(peaks) <= PREVIEW_RSS_GOAL_MB
            if not measured:
                continue
            rows.append([f"preview, {labels[image]}: ASCII wall time ≤ {WALL_VS_JP2A_GOAL}× jp2a's", "; ".join(ratios),
                         verdict(ok_wall)])
            rows.append([f"preview, {labels[image]}: peak RSS ≤ {PREVIEW_RSS_GOAL_MB} MB (the largest of imgview's three modes)",
                         "; ".join(rss), verdict(ok_rss)])
        return rows

    def progressive_goals(self):
        """A progressive JPEG previewed at 80×24 from its first scans: faster and smaller than jp2a,
        and scoring as the baseline encoding of the same picture does (decoded whole)."""
        progressive, baseline = PROGRESSIVE
        size = "80x24"
        rows = []
        mine, jp2a = self.timing(size, "imgview_ascii", progressive), self.timing(size, "jp2a", progressive)
        if mine and jp2a:
            rows.append([f"preview, progressive 6000×4000 JPEG at {size}: ASCII wall time ≤ {PROGRESSIVE_WALL_GOAL}× jp2a's",
                         f"{ratio(mine[0] / jp2a[0])} ({mine[0]:.0f} vs {jp2a[0]:.0f} ms)",
                         verdict(mine[0] / jp2a[0] <= PROGRESSIVE_WALL_GOAL)])
            rows.append([f"preview, progressive 6000×4000 JPEG at {size}: ASCII peak RSS ≤ jp2a's",
                         f"{ratio(mine[1] / jp2a[1])} ({mine[1]:.1f} vs {jp2a[1]:.1f} MB)", verdict(mine[1] <= jp2a[1])])
        scores = [self.quality[size].get(("imgview_ascii", image), {}).get("score") for image in PROGRESSIVE]
        if None not in scores:
            difference = scores[0] - scores[1]
            rows.append([f"preview, progressive 6000×4000 JPEG at {size}: ASCII score within {PROGRESSIVE_SCORE_TOLERANCE} "
                         "of the same picture's baseline JPEG", f"{scores[0]:.4f} vs {scores[1]:.4f} ({difference:+.4f})",
                         verdict(abs(difference) <= PROGRESSIVE_SCORE_TOLERANCE)])
        return rows


STARTUP_LABELS = {"version": "`--version`", "show-png": "`show` of a 640×480 PNG at 80×24, truecolour blocks",
                  "info-png": "`info` of the same PNG", "ascii-jpeg": "a 3840×2400 baseline JPEG to 80×24 ASCII"}


def startup(results):
    data = load_json(os.path.join(results, "startup.json"))
    rows, goals = [], []
    for w in data["workloads"]:
        mine = w["tools"][0]
        for f in w["tools"]:
            rows.append([STARTUP_LABELS[w["workload"]] if f is mine else "", f["tool"],
                         f"{f['wall_ms']:.1f} ms ({f['wall_min_ms']:.1f}–{f['wall_max_ms']:.1f})", f"{f['rss_mb']:.1f} MB",
                         str(f["libraries"]),
                         "" if f is mine else f"{ratio(mine['wall_ms'] / f['wall_ms'])} · {ratio(mine['rss_mb'] / f['rss_mb'])}"])
        goals.append([f"start-up, {STARTUP_LABELS[w['workload']]}: ≤ {w['goal_ratio']}× {w['goal_peer']}'s wall time",
                      ratio(w["ratio"]), verdict(w["ratio"] <= w["goal_ratio"])])
        if w["workload"] == "version":
            goals.append([f"start-up, `--version`: peak RSS ≤ {data['version_rss_goal_mb']} MB", f"{mine['rss_mb']:.1f} MB",
                          verdict(mine["rss_mb"] <= data["version_rss_goal_mb"])])
        if w["workload"] == "ascii-jpeg":
            goals.append([f"start-up, {STARTUP_LABELS[w['workload']]}: peak RSS ≤ {data['ascii_rss_goal_mb']} MB",
                          f"{mine['rss_mb']:.1f} MB", verdict(mine["rss_mb"] <= data["ascii_rss_goal_mb"])])
    header = ["workload", "tool", "wall, median (range)", "peak RSS", "shared objects loaded", "imgview / tool: wall · RSS"]
    commands = [(w["workload"], f["tool"], f["command"]) for w in data["workloads"] for f in w["tools"]]
    return data, table(header, rows), goals, commands


def downloads(results):
    data = load_json(os.path.join(results, "get.json"))
    rows, goals = [], []
    for w in data["workloads"]:
        mine, curl = w["imgview"], w["curl"]
        throughput = curl["wall_s"] / mine["wall_s"]
        mb = w["bytes"] / 1e6
        for tool, f in (("imgview", mine), ("curl", curl)):
            rows.append([w["workload"], tool, f"{f['wall_s']:.2f} s ({f['wall_min_s']:.2f}–{f['wall_max_s']:.2f})",
                         f"{mb / f['wall_s']:.0f} MB/s", f"{f['cpu_s']:.2f} s", f"{f['rss_kb'] / 1024:.1f} MB",
                         *( [ratio(throughput), ratio(mine['cpu_s'] / max(curl['cpu_s'], 0.01)), ratio(mine['rss_kb'] / curl['rss_kb'])]
                            if tool == "imgview" else ["", "", ""])])
        if "moved_bytes" in w:
            # Issue 31's goal for resuming is the bytes moved, not throughput: curl continues its
            # output file in place, imgview finishes a partial in its cache and then publishes it,
            # so their times are shown above for comparison only.
            moved = w["moved_bytes"]["imgview"] / 1e6
            goals.append([f"downloads, {w['workload']}: moves ≤ {RESUME_MOVED_GOAL_MB} MB",
                          f"{moved:.1f} MB (curl {w['moved_bytes']['curl'] / 1e6:.1f} MB)", verdict(moved <= RESUME_MOVED_GOAL_MB)])
            continue
        # Issue 31: one large file at 0.9× curl's throughput at least; many 1 MB files at 1.0×.
        goal = MANY_FILES_THROUGHPUT_GOAL if w["files"] > 1 else THROUGHPUT_GOAL
        goals.append([f"downloads, {w['workload']}: throughput ≥ {goal}× curl's", ratio(throughput),
                      verdict(throughput >= goal)])
        if w["files"] == 1:  # the goal's "100 MB file"
            rss = mine["rss_kb"] / 1024
            goals.append([f"downloads, {w['workload']}: peak RSS ≤ {DOWNLOAD_RSS_GOAL_MB} MB", f"{rss:.1f} MB",
                          verdict(rss <= DOWNLOAD_RSS_GOAL_MB)])
    header = ["workload", "tool", "wall, median (range)", "throughput", "CPU (user+sys)", "peak RSS",
              "imgview/curl throughput", "imgview/curl CPU", "imgview/curl RSS"]
    commands = [(w["workload"], w["imgview_command"], w["curl_command"]) for w in data["workloads"]]
    return data, table(header, rows), goals, commands


def slow_transfer(results):
    data = load_json(os.path.join(results, "slow.json"))
    curl = next(t for t in data["tools"] if t["tool"] == "curl")
    rows = []
    for t in data["tools"]:
        ratio_text = ratio(t["cpu_s"] / curl["cpu_s"]) if t is not curl and curl["cpu_s"] > 0 else ""
        rows.append([t["tool"], f"`{t['command']}`", f"{t['wall_s']:.2f} s", f"{t['cpu_s'] * 1000:.0f} ms "
                     f"({t['cpu_min_s'] * 1000:.0f}–{t['cpu_max_s'] * 1000:.0f})", f"{t['rss_kb'] / 1024:.1f} MB", ratio_text])
    mine = next(t for t in data["tools"] if t["tool"] == "imgview")
    cpu_ratio = mine["cpu_s"] / curl["cpu_s"] if curl["cpu_s"] > 0 else float("inf")
    goals = [[f"slow download (~{data['bytes'] * data['pause_s'] / data['chunk']:.0f} s): CPU ≤ {data['goal_ratio']:g}× curl's",
              f"{mine['cpu_s'] * 1000:.0f} ms vs {curl['cpu_s'] * 1000:.0f} ms ({ratio(cpu_ratio)})",
              verdict(cpu_ratio <= data["goal_ratio"])]]
    return data, table(["tool", "command", "wall", "CPU (user+sys), median (range)", "peak RSS", "CPU vs curl"], rows), goals


def catalog_at_scale(results):
    data = load_json(os.path.join(results, "catalog.json"))
    rows, goals = [], []
    for c in data["commands"]:
        rows.append([f"`{c['command']}`", f"{c['median_s'] * 1000:.0f} ms", f"{c['best_s'] * 1000:.0f} ms",
                     f"{c['worst_s'] * 1000:.0f} ms", f"{c['cpu_s'] * 1000:.0f} ms", f"{c['rss_kb'] / 1024:.0f} MB",
                     f"≤ {data['goal_s'] * 1000:.0f} ms: {verdict(c['median_s'] <= data['goal_s'])}" if c["held"] else ""])
        if c["held"]:
            goals.append([f"catalog: `{c['name']}` of {data['entries']:,} entries ≤ {data['goal_s'] * 1000:.0f} ms (median)",
                          f"{c['median_s'] * 1000:.0f} ms", verdict(c["median_s"] <= data["goal_s"])])
    return data, table(["command", "median", "best", "worst", "CPU", "peak RSS", "goal"], rows), goals


def cache(results):
    data = load_json(os.path.join(results, "cache.json"))
    rows, goals = [], []
    for c in data["commands"]:
        rows.append([f"`{c['command']}`", c["output"], f"{c['median_ms']:.0f} ms", f"{c['best_ms']:.0f} ms", f"{c['worst_ms']:.0f} ms",
                     f"≤ {data['goal_ms']} ms: {verdict(c['median_ms'] <= data['goal_ms'])}" if c["held"] else "no goal (rehashes every blob)"])
        if c["held"]:
            goals.append([f"cache: {c['name']} ≤ {data['goal_ms']} ms at {data['entries']:,} entries (median)",
                          f"{c['median_ms']:.0f} ms", verdict(c["median_ms"] <= data["goal_ms"])])
    return data, table(["command", "output to", "median", "best", "worst", "goal"], rows), goals


def browser(results):
    data = load_json(os.path.join(results, "tui.json"))
    rows = [[s["label"], s["n"], f"{s['p50_ms']:.1f} ms", f"{s['p95_ms']:.1f} ms", f"{s['p99_ms']:.1f} ms", f"{s['max_ms']:.1f} ms"]
            for s in data["switches"].values()]
    p99 = data["switches"]["cached"]["p99_ms"]
    size = f"{data['columns']}×{data['rows']}"
    idle_share = 100 * data["idle_cpu_s"] / data["idle_s"]
    goals = [
        [f"browser: tab switch p99 ≤ {SWITCH_P99_GOAL_MS} ms at {size} (a tab in memory, one key at a time)",
         f"{p99:.1f} ms", verdict(p99 <= SWITCH_P99_GOAL_MS)],
        [f"browser: idle CPU about 0 (at most one clock tick, {data['clock_tick_s'] * 1000:.0f} ms, over {data['idle_s']:.0f} s)",
         f"{data['idle_cpu_s']:.3f} s ({idle_share:.2f}% of a core)", verdict(data["idle_cpu_s"] <= data["clock_tick_s"] + 1e-9)],
    ]
    holding = data["holding"]
    share = holding["held_cpu_s"] / holding["single_cpu_s"]
    rows.append([f"hold → across {holding['presses']} large JPEGs not in memory, CPU", "", "",
                 f"{holding['held_cpu_s']:.2f} s", f"{share:.2f}× showing one ({holding['single_cpu_s']:.2f} s)", ""])
    return data, table(["what", "switches", "p50", "p95", "p99", "max"], rows), goals


def browsing(results):
    data = load_json(os.path.join(results, "browse.json"))
    started, selected, later, homes = data["startup_ms"], data["end_selected_ms"], data["end_in_memory_ms"], data["home_ms"]
    worst_end = max(selected + later)

    def row(what, values, digits=1):
        return [what, len(values), f"{statistics.median(values):.{digits}f} ms", f"{min(values):.{digits}f} ms",
                f"{max(values):.{digits}f} ms"]

    rows = [
        row(f"`imgview DIR`, {data['files']:,} files in DIR, to the first preview on screen", started, 0),
        row(f"End in a {data['entries']:,}-entry catalog, to the last tab selected on screen", selected),
        ["End, to the last tab's preview the first time (read, decode, render a 451×300 PNG)", 1,
         f"{data['end_first_preview_ms']:.1f} ms", "", ""],
        row("End again, to the preview (in memory)", later),
        row("Home, back to the first tab's preview (in memory)", homes),
    ]
    goals = [
        [f"browser: `imgview DIR` with {data['files']:,} files to the first preview ≤ {data['startup_goal_ms']} ms (median)",
         f"{statistics.median(started):.0f} ms", verdict(statistics.median(started) <= data["startup_goal_ms"])],
        [f"browser: End in a {data['entries']:,}-entry catalog ≤ {data['end_goal_ms']} ms (the tab on screen every press; "
         "its preview when in memory)", f"{worst_end:.1f} ms", verdict(worst_end <= data["end_goal_ms"])],
    ]
    return data, table(["what", "runs", "median", "best", "worst"], rows), goals


def partial(results):
    data = load_json(os.path.join(results, "partial.json"))
    rows = [[r["image"], f"{r['bytes'] / 1e6:.2f} MB", f"{r['first_partial_ms']:.0f} ms",
             f"{r['received'] / 1e3:.0f} kB ({100 * r['share']:.1f}%)", f"{r['bytes'] / data['rate']:.1f} s"]
            for r in data["results"]]
    return data, table(["image", "size", "first picture after the first byte", "arrived by then", "whole download"], rows)


def hardening(results):
    data = load_json(os.path.join(results, "hardening.json"))
    rows = [[m["image"], f"{m['wall_s']:.2f} s", f"{m['rss_mb']:.1f} MB"] for m in data["memory"]]
    worst = max(data["memory"], key=lambda m: m["rss_mb"])
    goals = [[f"memory: peak RSS ≤ {HARDENING_RSS_GOAL_MB} MB for any image at the default limits (`show`, 100×40)",
              f"{worst['rss_mb']:.1f} MB ({worst['image']})", verdict(worst["rss_mb"] <= HARDENING_RSS_GOAL_MB)]]
    memory_table = table(["image", "wall, median", "peak RSS, largest"], rows)
    files = data.get("files")
    if not files:
        return data, memory_table, goals

    def cell(mb, status):
        return "—" if mb is None else f"{mb:.1f} MB" + (f" (exit {status})" if status else "")

    def ratio(mine, peer):
        return "—" if peer is None else f"{mine / peer:.2f}×"
    def full(f):  # hardening.json from before the full-screen column has none
        return f.get("full_screen_rss_mb", f["show_rss_mb"])
    file_rows = [[f["image"], f"{f['bytes']:,} B", cell(f["show_rss_mb"], f["show_status"]),
                  cell(f.get("full_screen_rss_mb"), f.get("full_screen_status")), cell(f["info_rss_mb"], f["info_status"]),
                  cell(f["chafa_rss_mb"], f["chafa_status"]), ratio(f["show_rss_mb"], f["chafa_rss_mb"]),
                  cell(f["identify_rss_mb"], f["identify_status"]), ratio(f["info_rss_mb"], f["identify_rss_mb"])] for f in files]
    worst_file = max(files, key=lambda f: max(f["show_rss_mb"], full(f), f["info_rss_mb"]))
    worst_mb = max(worst_file["show_rss_mb"], full(worst_file), worst_file["info_rss_mb"])
    goals.append([f"memory: peak RSS ≤ {HARDENING_RSS_GOAL_MB} MB for issue 26's small files (`show` into a pipe at 80×24 and "
                  "240×67, `info`)",
                  f"{worst_mb:.1f} MB ({worst_file['image']})", verdict(worst_mb <= HARDENING_RSS_GOAL_MB)])
    files_table = table(["file", "size", "show into a pipe", "show full screen", "info", "chafa", "show / chafa", "identify",
                         "info / identify"], file_rows)
    return data, memory_table + "\n\nIssue 26's small files (peak RSS; exit status when not 0):\n\n" + files_table, goals


def formats(results):
    data = load_json(os.path.join(results, "formats.json"))
    by_key = {(r["format"], r["mode"]): r for r in data["quality"]}
    modes = [("ascii", "ASCII"), ("blocks", "blocks, truecolour")]
    quality_rows, goals = [], []
    for fmt in dict.fromkeys(r["format"] for r in data["quality"]):
        goal = data.get("goals", {}).get(fmt, data["goal"])
        row = [FORMAT_NAMES[fmt]]
        for mode, _ in modes:
            r = by_key[(fmt, mode)]
            row.append(f"{r['mean_score']:.3f} vs {r['mean_original']:.3f} ({r['mean_delta']:+.3f}; worst image {r['worst_delta']:+.3f})")
        quality_rows.append(row)
        deltas = [by_key[(fmt, mode)]["mean_delta"] for mode, _ in modes]
        goals.append([f"formats: {FORMAT_NAMES[fmt]} previews score within {goal} of the JPEG/PNG originals (mean)",
                      ", ".join(f"{d:+.3f} {label}" for d, (_, label) in zip(deltas, modes)),
                      verdict(all(abs(d) <= goal for d in deltas))])
    speed_rows = []
    for r in data["speed"]:
        peer = f"{r['chafa_ms']:.0f} ms · {r['chafa_rss_mb']:.1f} MB" if r.get("chafa_ms") else "cannot read it"
        ratios = (f"{ratio(r['imgview_ms'] / r['chafa_ms'])} · {ratio(r['imgview_rss_mb'] / r['chafa_rss_mb'])}"
                  if r.get("chafa_ms") else "—")
        speed_rows.append([r["image"], FORMAT_NAMES.get(r["format"], r["format"]), f"{r['bytes'] / 1e6:.2f} MB",
                           f"{r['imgview_ms']:.0f} ms · {r['imgview_rss_mb']:.1f} MB", peer, ratios])
    quality_table = table(["format", *[f"{label}: mean score vs the original's (difference)" for _, label in modes]], quality_rows)
    speed_table = table(["photograph", "format", "file", "imgview (wall · peak RSS)", "chafa (wall · peak RSS)", "imgview/chafa"],
                        speed_rows)
    large_rows = []
    for r in data.get("large", []):
        for peer in r["peers"]:
            large_rows.append([r["file"], f"{r['bytes'] / 1e6:.2f} MB",
                               f"{r['imgview_cpu_s']:.2f} s · {r['imgview_wall_s']:.2f} s · {r['imgview_rss_mb']:.0f} MB", peer["peer"],
                               f"{peer['cpu_s']:.2f} s · {peer['wall_s']:.2f} s · {peer['rss_mb']:.0f} MB",
                               f"{ratio(peer['cpu_ratio'])} · {ratio(peer['wall_ratio'])}"])
        # The goals are against each tool's cheapest output (JPEG, PPM): a PNG encode is most of the PNG rows' time.
        cheapest = min(r["peers"], key=lambda p: p["cpu_s"])
        limit = LARGE_JXL_GOAL if r["file"].startswith("jxl") else LARGE_HEIC_GOAL
        label = {"heic-thumbnail": "HEIC with a thumbnail", "heic": "HEIC without a thumbnail", "jxl": "JPEG XL (VarDCT)",
                 "jxl-jpeg": "JPEG XL recompressed from a JPEG"}[r["file"]]
        goals.append([f"formats: a 12 MP {label} to an {data['size']} preview ≤ {limit}× {cheapest['peer']}'s CPU time",
                      f"{ratio(cheapest['cpu_ratio'])} ({r['imgview_cpu_s']:.2f} s against {cheapest['cpu_s']:.2f} s)",
                      verdict(cheapest["cpu_ratio"] <= limit)])
    large_table = table(["12 MP file", "size", "imgview: CPU · wall · peak RSS", "peer", "peer: CPU · wall · peak RSS",
                         "imgview/peer CPU · wall"], large_rows) if large_rows else None
    return data, quality_table, speed_table, large_table, goals


PIXEL_TIME_GOAL = 0.7


def pixels(results):
    data = load_json(os.path.join(results, "pixels.json"))
    rows, goals = [], []
    for r in data["results"]:
        mine, chafa = r["imgview"], r["chafa"]
        rows.append([r["mode"], r["image"], r["emulator"],
                     f"{mine['wall_s']:.3f} s · {mine['bytes'] / 1e6:.2f} MB · {mine['ssim']:.3f}",
                     f"{chafa['wall_s']:.3f} s · {chafa['bytes'] / 1e6:.2f} MB · {chafa['ssim']:.3f}",
                     ratio(r["time_ratio"]), ratio(r["bytes_ratio"]),
                     verdict(r["time_ratio"] <= PIXEL_TIME_GOAL and mine["ssim"] >= chafa["ssim"])])
    for mode in sorted({r["mode"] for r in data["results"]}):
        mode_rows = [r for r in data["results"] if r["mode"] == mode]
        worst_time = max(r["time_ratio"] for r in mode_rows)
        worst_score = min(r["imgview"]["ssim"] - r["chafa"]["ssim"] for r in mode_rows)
        goals.append([f"pixels, {mode}: at least chafa's screenshot SSIM in ≤ {PIXEL_TIME_GOAL}× its time (worst image)",
                      f"{ratio(worst_time)} time, SSIM {worst_score:+.3f}",
                      verdict(worst_time <= PIXEL_TIME_GOAL and worst_score >= 0)])
    header = ["mode", "image", "drawn by", "imgview: wall · bytes · SSIM", "chafa: wall · bytes · SSIM",
              "imgview/chafa time", "imgview/chafa bytes", "goal"]
    return data, table(header, rows), goals


def grid(results):
    data = load_json(os.path.join(results, "grid.json"))
    timg = data["timg"]

    def row(name, r):
        versus = f"{ratio(r['screen_ratio'])} · {ratio(r['wall_ratio'])}" if "screen_ratio" in r else ""
        return [name, f"{r['screen_s']:.3f} s", f"{r['wall_s']:.3f} s", f"{r['cpu_s']:.3f} s", f"{r['peak_rss_mb']:.0f} MB", versus]

    rows = [row("timg", timg), row("imgview, cold (no thumbnails)", data["cold"]), row("imgview, warm (thumbnails made)", data["warm"])]
    header = ["run", "screen whole", "exit", "CPU", "peak RSS", "imgview/timg: screen · exit"]
    rss = max(data["cold"]["peak_rss_mb"], data["warm"]["peak_rss_mb"])
    goals = [
        [f"contact sheet of {data['photos']} photos, cold: the screen in ≤ {GRID_COLD_GOAL}× timg's time",
         ratio(data["cold"]["screen_ratio"]), verdict(data["cold"]["screen_ratio"] <= GRID_COLD_GOAL)],
        [f"contact sheet, thumbnails made: ≤ {GRID_WARM_GOAL}× timg's time", ratio(data["warm"]["screen_ratio"]),
         verdict(data["warm"]["screen_ratio"] <= GRID_WARM_GOAL)],
        [f"contact sheet: peak RSS ≤ {GRID_RSS_GOAL_MB} MB", f"{rss:.0f} MB", verdict(rss <= GRID_RSS_GOAL_MB)],
    ]
    return data, table(header, rows), goals


def grid_browser(results):
    data = load_json(os.path.join(results, "grid-browser.json"))
    goals = [
        [f"a folder of {data['many']:,} photos opens its grid in the same time as {data['few']} "
         f"(cold, first screen whole, ≤ {data['same_time_goal']}×)",
         f"{ratio(data['ratio'])} ({data['many_median_ms']:.0f} ms · {data['few_median_ms']:.0f} ms)",
         verdict(data["ratio"] <= data["same_time_goal"])],
        [f"grid of {data['many']:,} photos: End shows the last screen in ≤ {data['end_goal_ms'] / 1000:g} s",
         f"{data['end_median_ms']:.0f} ms", verdict(data["end_median_ms"] <= data["end_goal_ms"])],
    ]
    sheet = load_json(os.path.join(results, "grid.json")) if os.path.exists(os.path.join(results, "grid.json")) else None
    if sheet:
        # timg has no browser: its grid of the same photographs, from its start, in the same make bench.
        versus = data["few_median_ms"] / 1000 / sheet["timg"]["screen_s"]
        goals.append([f"the browser's grid of {data['few']} photos, cold, from `g` to its first screen whole: ≤ {GRID_COLD_GOAL}× "
                      "timg's grid of them (`bench_grid.py`'s timg, from its start)",
                      f"{ratio(versus)} ({data['few_median_ms']:.0f} ms · timg {sheet['timg']['screen_s'] * 1000:.0f} ms)",
                      verdict(versus <= GRID_COLD_GOAL)])
    if "peak_rss_mb" in data:
        goals.append([f"the browser's grid over {data['few']} and {data['many']:,} photos: peak RSS ≤ {data['rss_goal_mb']} MB",
                      f"{data['peak_rss_mb']:.0f} MB", verdict(data["peak_rss_mb"] <= data["rss_goal_mb"])])
    rows = [[f"{data['few']} photos", "the grid's first screen (g)", ms_list(data["few_ms"]), f"{data['few_median_ms']:.0f} ms"],
            [f"{data['many']:,} photos", "the grid's first screen (g)", ms_list(data["many_ms"]), f"{data['many_median_ms']:.0f} ms"],
            [f"{data['many']:,} photos", "End: the last screen", ms_list(data["end_ms"]), f"{data['end_median_ms']:.0f} ms"]]
    return data, table(["folder", "key to every visible cell drawn", "runs", "median"], rows), goals


def ms_list(values):
    return ", ".join(f"{value:.0f}" for value in values) + " ms"


def write(results, output):
    quick = os.path.exists(os.path.join(results, "quick"))
    previews = Previews(results)
    get_data, get_table, get_goals, get_commands = downloads(results)
    slow_data, slow_table, slow_goals = slow_transfer(results)
    catalog_data, catalog_table, catalog_goals = catalog_at_scale(results)
    cache_data, cache_table, cache_goals = cache(results)
    tui_data, tui_table, tui_goals = browser(results)
    browse_data, browse_table, browse_goals = browsing(results)
    formats_data, formats_quality, formats_speed, formats_large, formats_goals = formats(results)
    pixel_data, pixel_table, pixel_goals = pixels(results)
    partial_data, partial_table = partial(results)
    hardening_data, hardening_table, hardening_goals = hardening(results)
    startup_data, startup_table, startup_goals, startup_commands = startup(results)
    grid_data, grid_table, grid_goals = grid(results)
    grid_browser_data, grid_browser_table, grid_browser_goals = grid_browser(results)
    info = machine()
    started, finished = read(os.path.join(results, "started")).strip(), read(os.path.join(results, "finished")).strip()
    start_time = datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ")
    minutes = (datetime.strptime(finished, "%Y-%m-%dT%H:%M:%SZ") - start_time).total_seconds() / 60
    steps = [line.split("\t") for line in read(os.path.join(results, "steps.tsv")).splitlines() if line.strip()]
    commands = read(os.path.join(results, "commands.txt")).strip()
    load_before, load_after = read(os.path.join(results, "load-before")).strip(), read(os.path.join(results, "load-after")).strip()
    imgview = os.path.abspath(".build-static/release/imgview")
    version = command(f"{imgview} --version") or "?"
    commit = command("git rev-parse --short HEAD") or "?"
    if command("git status --porcelain -- . ':!docs/benchmarks.md' ':!bench-results'"):
        commit += " with uncommitted changes"
    peers = ", ".join(f"{name} {package_version(package)}" for name, package in PEER_PACKAGES)

    out = []
    add = out.append
    add("# Benchmarks")
    add("")
    add("<!-- Written by `make bench` (scripts/bench.sh, then bench/report.py). Do not edit: run `make bench` again. -->")
    add("")
    if quick:
        add("> **A quick run** (`scripts/bench.sh --quick`): fewer images, runs and switches, to check the scripts. "
            "Its figures are not the ones to quote; `make bench` runs the full set.")
        add("")
    add("Every figure on this page comes from one run of `make bench`, which builds the release binary and then "
        "runs each benchmark in turn on one machine. Where there is a peer (chafa, jp2a, timg, catimg and img2txt "
        "for previews, curl for downloads), the peer ran in the same run and imgview's figure is given beside it as "
        "a ratio. Wall times depend on whatever else the machine was doing: the load average when each step "
        "started is listed below, and a second run of `make bench` is the way to see the spread.")
    add("")
    add("## The run")
    add("")
    add(table(["what", "this run"], [
        ["date", f"{start_time:%Y-%m-%d}, {started[11:16]}–{finished[11:16]} UTC ({minutes:.0f} min)"],
        ["CPU", f"{info['cpu']}, {info['cores']} cores"],
        ["memory", info["memory"]],
        ["system", f"{info['system']}, kernel {info['kernel']}"],
        ["Swift", info["swift"]],
        ["imgview", f"{version}, commit {commit}, `make release` (`swift build -c release -Xswiftc -static-stdlib`, "
                    "DECISIONS.md), installed by `make install`"],
        ["peers and tools (Debian packages)", peers],
        ["load average (1 min)", f"{load_before} before the run, {load_after} after the last benchmark"],
    ]))
    add("")
    add(table(["step", "time", "load average when it started"],
              [[name, f"{float(seconds):.0f} s", load] for name, seconds, load in steps]
              + [["all of the above", f"{sum(float(seconds) for _, seconds, _ in steps):.0f} s", ""]]))
    add("")
    add("## Commands")
    add("")
    add("`make bench` runs `scripts/bench.sh`, which installs what is missing (Debian packages; numpy and pillow "
        "from PyPI), empties `bench-results/` (git-ignored) and runs, from the repository's root, with the shared "
        "harness in `../shared/bench` and its photographs in `../shared/testdata`:")
    add("")
    add("```sh")
    add(commands)
    add("```")
    add("")
    add("Each step's output is in `bench-results/logs/`; the harness's full tables (every image, every metric) "
        "are in `bench-results/quality/results/*.md` and `bench-results/speed/results/*.md`.")
    add("")
    add("## Goals")
    add("")
    add(table(["goal", "this run", "verdict"], startup_goals + previews.goals() + previews.progressive_goals() + formats_goals + get_goals
                + slow_goals + catalog_goals + cache_goals + tui_goals + browse_goals + pixel_goals + hardening_goals
                + grid_goals + grid_browser_goals))
    add("")
    add("## Start-up: the installed binary against curl, chafa, jp2a and identify")
    add("")
    add(f"`bench/bench_startup.py` runs the binary `make install` put in `bench-results/prefix/bin` (what `make release` "
        "built) and each peer in one hyperfine invocation per workload, so their runs interleave, output to a pipe: "
        f"at least {startup_data['runs']} runs after 3 warm-ups, the median and the range; peak RSS is the median of five "
        "runs under `/usr/bin/time`; the shared objects are those the dynamic loader mapped (`LD_DEBUG=files`). The PNG "
        f"is {startup_data['png']}, the JPEG {startup_data['jpeg']} (Pillow). A ratio below 1× means imgview is faster or "
        "smaller.")
    add("")
    add(startup_table)
    add("")
    add(table(["workload", "tool", "command"], [[name, tool, f"`{text}`"] for name, tool, text in startup_commands]))
    add("")
    add("## Previews: `imgview show` against chafa, jp2a, timg, catimg and img2txt")
    add("")
    add(f"The shared harness (`../shared/bench/README.md`) runs each renderer on every photograph in "
        f"`../shared/testdata` ({previews.image_count()} upright images, plus one stored rotated with an EXIF "
        "orientation, which is left out of the means) at 80×24 and 100×40 cells. The quality score rasterises what "
        "a renderer printed with DejaVu Sans Mono, light on black, and compares it with the photograph in linear "
        "light, cell by cell and sub-cell by sub-cell (SSIM); blank output scores about 0 and higher is better. "
        "The `ref_` rows are the harness's reference renderers, not tools. "
        "A ratio is imgview's figure divided by the peer's, for the imgview mode that matches the peer's output "
        "(ASCII, truecolour blocks, or 256-colour blocks for 256- and 16-colour peers): above 1× imgview scores "
        "higher; for wall time and memory, below 1× imgview is faster or smaller.")
    add("")
    add(f"### Quality: mean score over the upright images")
    add("")
    add("Plain ASCII, no colour:")
    add("")
    add(previews.quality_table("ascii"))
    add("")
    add("Colour:")
    add("")
    add(previews.quality_table("color"))
    add("")
    add("### Speed and memory on large photographs")
    add("")
    add("Wall time is hyperfine's median (output to a pipe, warm page cache, at least 10 runs and 3 s per "
        "renderer and image); peak RSS is the median of three runs under `/usr/bin/time`. Each cell is "
        "`wall · peak RSS`, and for a peer, in brackets, imgview's wall time and peak RSS divided by the peer's. "
        "Only the large photographs are timed: hyperfine's minimum time per renderer and image would make "
        "timing all of them longer than every other benchmark together. The harness times one renderer after "
        "another, so a change in the machine's load during the step (see its load average above) moves these "
        "ratios more than the download ones, where the tools take turns.")
    for size in SIZES:
        for klass, label in (("ascii", "plain ASCII"), ("color", "colour")):
            add("")
            add(f"{size}, {label}:")
            add("")
            add(previews.speed_table(klass, size))
    add("")
    add("The renderers as the harness runs them (the image path and its fitted size vary):")
    add("")
    add(table(["renderer", "command"], [[f"`{c}`", previews.example_command(c)] for c in previews.configs]))
    add("")
    add("## Formats: every format against its original, against chafa and against its own tools")
    add("")
    add(f"`bench/bench_formats.py` makes each format from the upright photographs "
        f"({len(formats_data['quality_images'])} of them) with Debian's encoders — "
        + ", ".join(f"{FORMAT_NAMES[k]}: `{v}`" for k, v in formats_data["encoders"].items())
        + f" — and scores `imgview show` of each at {formats_data['size']} against the original photograph, beside "
        "the score of imgview's preview of the original JPEG or PNG itself. A format's preview can only lose what its "
        "encoding lost (GIF's 256 colours most), so the difference is the measure.")
    add("")
    add(formats_quality)
    add("")
    add("Decode, scale and render to a preview of the same files, imgview (truecolour blocks) and chafa (`-c full "
        "--symbols vhalf`, the closest mode; chafa 1.12 reads AVIF and BMP through ImageMagick, and neither JPEG XL nor "
        "QOI): hyperfine's median wall time with output to a pipe, and the median peak RSS of three runs.")
    add("")
    add(formats_speed)
    add("")
    if formats_large:
        add("12 megapixels (`10_large_6000x4000.jpg` cropped to 4000×3000): a HEIC as a camera writes it (`heif-enc -q 80 "
            "-t 320`, with a 320-pixel thumbnail), the same without a thumbnail, a JPEG XL (`cjxl -d 1`, VarDCT) and "
            "the JPEG recompressed (`cjxl --lossless_jpeg=1`, cjxl's default for a JPEG), previewed at the same size, "
            "against the formats' own decoders writing their cheapest output of pixels (a JPEG for heif-convert, a PPM "
            "for djxl) and a PNG, and for the recompressed JPEG, djxl rebuilding it (which costs djxl 0.7 more than a "
            "PPM). CPU time is user + system, the median of the runs; djxl uses two threads, imgview one. libheif 1.15 cannot "
            "decode at a reduced size, 80x24 blocks ask more than a 320-pixel thumbnail has, and libjxl 0.7 gains "
            "nothing from its DC-only path (DECISIONS.md, \"HEIC thumbnails for text previews: not below the box…\"); a "
            "recompressed JPEG is rebuilt and decoded at a DCT scale.")
        add("")
        add(formats_large)
        add("")
    add("## Downloads: `imgview get` against curl")
    add("")
    add(f"`bench/bench_get.py` serves a folder with `imgview serve` on 127.0.0.1, so both tools fetch from the same "
        f"loopback server, and runs each workload {get_data['runs']} times per tool, the two tools taking turns. "
        "imgview starts every run with an empty cache, so it does the whole path: download, SHA-256, cache store, "
        f"output (an unnamed file in the destination folder, filled as the body arrives and named when whole). Wall and CPU time and peak RSS come from `/usr/bin/time`; "
        f"figures are medians. {get_data['curl_version'].split(' (')[0]}.")
    add("")
    add(table(["workload", "imgview", "curl"], [[name, f"`{mine}`", f"`{theirs}`"] for name, mine, theirs in get_commands]))
    add("")
    add(get_table)
    add("")
    add("Throughput is bytes over wall time, so imgview/curl throughput is curl's wall time over imgview's: above 1× "
        "imgview is faster. For CPU and RSS below 1× imgview uses less. For the 200 files curl runs as 200 "
        "processes, eight at a time: its CPU time is theirs summed, its peak RSS that of the largest. The resumed "
        "row's goal is the bytes it moves (≤ 11 MB), not its speed: its times are shown for comparison.")
    add("")
    add("### A slow download: CPU time while a transfer waits")
    add("")
    add(f"`bench/bench_slow.py` serves a {slow_data['bytes'] / 1e6:.1f} MB body in {slow_data['chunk'] // 1024} KB pieces every "
        f"{slow_data['pause_s'] * 1000:.0f} ms from a small Python server, so one transfer lasts about "
        f"{slow_data['bytes'] * slow_data['pause_s'] / slow_data['chunk']:.0f} s, and measures the CPU time (user+sys, "
        f"from `wait4`) of each client over it, median of {slow_data['runs']} runs taking turns. imgview's figure includes "
        "its start-up and the SHA-256 of the body; a URLSession row (`IMGVIEW_HTTP=urlsession`) is for comparison and "
        "has no goal, and is there only when the binary has the URLSession trait, which `make release` leaves out on Linux.")
    add("")
    add(slow_table)
    add("")
    add(f"## A catalog of {catalog_data['entries']:,} images")
    add("")
    add(f"`bench/bench_catalog.py` writes a catalog file of {catalog_data['entries']:,} entries (name, title, http URL) "
        f"and a cache holding {catalog_data['cached']:,} of them, then times each command, median, best and worst of "
        f"{catalog_data['runs']} runs, CPU and peak RSS from `wait4`. `info` of a local file shows that a command which "
        "needs no catalog does not read it.")
    add("")
    add(catalog_table)
    add("")
    if catalog_data.get("browser"):
        tui = catalog_data["browser"]
        add(f"The browser over the same catalog (tmux, 120×36, offline): first frame {tui['first_frame_s'] * 1000:.0f} ms "
            f"after starting it; → to the next tab's frame {tui['switch_s'] * 1000:.0f} ms (tmux's polling included).")
        add("")
    add(f"## Cache commands at {cache_data['entries']:,} entries")
    add("")
    add(f"`bench/bench_cache.py` writes {cache_data['entries']:,} synthetic entries (entry JSON and blobs with valid "
        "hashes, in the cache's own layout), with a catalog naming a tenth of them, and times each command, "
        f"median, best and worst of {cache_data['runs']} runs (`cache verify` once). There is no peer.")
    add("")
    add(cache_table)
    add("")
    add("## Browser: tab switch latency and idle CPU")
    add("")
    add(f"`bench/bench_tui.py` starts `imgview demo` in a detached tmux pane of {tui_data['columns']}×{tui_data['rows']} "
        f"cells ({tui_data['tmux']}, `TERM=tmux-256color`, colour blocks in 256 colours), visits every tab once so "
        "each image is decoded and rendered, then switches tabs; the browser appends to `$IMGVIEW_FRAME_LOG` the "
        "time from reading the key to the return of ncurses' `refresh` for the frame that shows the new tab. tmux's "
        "own input and drawing are outside the figure. Then it leaves the browser alone and reads its CPU time from "
        "`/proc`. There is no peer: no other terminal image browser ships a comparable view.")
    add("")
    add(tui_table)
    add("")
    add(f"Idle: {tui_data['idle_cpu_s']:.3f} s of CPU over {tui_data['idle_s']:.0f} s. Peak RSS of the demo after "
        f"visiting every image: {tui_data['peak_rss_mb']:.0f} MB.")
    add("")
    add(f"Holding →: a catalog of 22 `file://` copies of {tui_data['holding']['image']} (24 MP), none in memory. Showing "
        "one is the CPU time from pressing 9 until the browser is quiet again (tab 9 and its two neighbours decoded); "
        f"holding is {tui_data['holding']['presses']} presses of → 30 ms apart, measured the same way. Superseded "
        "decodes stop between rows, so holding costs about what the first and last tabs cost.")
    add("")
    add("## Browser: a big folder, a big catalog")
    add("")
    add(f"`bench/bench_browse.py` starts `imgview DIR` in a fresh tmux pane, DIR holding {browse_data['files']:,} hard "
        "links to one 61 kB JPEG, and takes the time from just before the pane's shell execs imgview to the frame "
        "that first shows a preview (`first-preview` in `$IMGVIEW_FRAME_LOG`): listing and sorting the folder, "
        "reading the first files' signatures, decoding and drawing; the rest of the folder is listed behind the "
        f"browser. Then it opens a catalog of {browse_data['entries']:,} entries (file URLs) and sends End and Home "
        "in turn, one every 300 ms; the figures are from reading the key to the first frame with the tab selected, "
        "and to the frame with its preview. The first End's preview waits for the image to be read, decoded and "
        "rendered, as any image's first showing does, whatever the catalog's size; the goal is on what the size "
        "of the catalog can slow down.")
    add("")
    add(browse_table)
    add("")
    add("## Previews while the bytes arrive")
    add("")
    add(f"`bench/bench_partial.py` serves each large photograph from a Python server on loopback at "
        f"{partial_data['rate'] / 1000:.0f} kB/s (8 kB every 40 ms) to the browser (`imgview --catalog` over a one-image "
        "catalog, 120×36 cells in tmux, an empty cache). The figure is the time from the server writing the first byte "
        "of the body to the browser drawing the first picture of what has arrived (`$IMGVIEW_FRAME_LOG`). There is no "
        "peer: no other terminal viewer shows an image before its last byte.")
    add("")
    add(partial_table)
    add("")
    add("## Memory under hostile images and outputs that are files of their own")
    add("")
    add(f"`bench/bench_hardening.py`: peak RSS of `imgview show IMAGE --size 100x40 --mode ascii` for the large "
        f"photographs, a 9999×10000 grey PNG and an 8000×8000 interlaced RGBA PNG (max of {hardening_data['runs']} runs); "
        "then issue 26's small files that once took hundreds of megabytes (the tests' generator, "
        "`Tests/ImgviewTestSupport/Generators/memory_images.py`): `imgview show FILE` into a pipe and `imgview info FILE` at the "
        "default limits, against chafa (80×24, into a pipe) and ImageMagick's `identify` on the same file, one run each.")
    add("")
    add(hardening_table)
    add("")
    add(f"`get --all --offline` of 200 cached 1 MB images into a new folder: {hardening_data['cached_get_s']:.2f} s; "
        f"`cp` of the same blobs: {hardening_data['cp_s']:.2f} s ({ratio(hardening_data['cached_get_s'] / hardening_data['cp_s'])} "
        f"cp's time), median of {hardening_data['runs']}. Each output is a file of its own: a clone where the file "
        "system has one, else an in-kernel copy.")
    add("")
    add("## Pixels: `imgview show --mode sixel|kitty|iterm` against chafa")
    add("")
    cells = ", ".join(f"{name} {w}×{h}" for name, (w, h) in pixel_data["cells"].items())
    add(f"`bench/bench_pixels.py` runs both tools on a pseudo-terminal of {pixel_data['columns']}×{pixel_data['rows']} cells "
        f"whose size in pixels (set with TIOCSWINSZ) is what the terminal that will draw the output reports for its own "
        f"cells ({cells}), so both scale to the box that terminal really has, neither asks it anything, and it shows the "
        f"image as sent rather than scaling it again; {pixel_data['runs']} runs each after a warm-up, the two tools taking "
        "turns; wall is the median, "
        "bytes what reached the terminal. One output of each is then drawn by that terminal under Xvfb (xterm -ti vt340 for "
        "sixel, kitty 0.26 for kitty, mlterm for iTerm2), screenshot, and scored by SSIM against the photograph "
        f"(higher is better). chafa: {pixel_data['chafa_version']}. Goal: at least chafa's score in at most "
        f"{PIXEL_TIME_GOAL}× its time.")
    add("")
    add(pixel_table)
    add("")
    add("## Contact sheets: `imgview show --grid` against timg's grid")
    add("")
    add(f"`bench/bench_grid.py` makes {grid_data['photos']} photographs of {grid_data['size'].replace('x', '×')} (four pictures "
        "from the shared testdata, six copies each, JPEG quality 92) and runs `"
        + grid_data["imgview_command"] + "` and `" + grid_data["timg_command"] + "` into a pipe, taking turns, "
        f"{grid_data['runs']} runs each; medians. Both write quarter blocks in 24-bit colour ({grid_data['timg_version']} has no sixel: its "
        f"`-ps` output {'is' if grid_data['timg_ps_is_pq'] else 'is not'} byte for byte its `-pq` output here). "
        "\"Screen whole\" is the time to the sheet's last byte, \"exit\" to the end of the process: imgview writes the "
        "thumbnails it made after the sheet and waits for them before it exits. Cold runs start with an empty "
        f"`$XDG_CACHE_HOME` (every photograph decoded, {grid_data['thumbnails_written']} thumbnails written by one run); "
        "warm runs find the thumbnails one run made. CPU and peak RSS from `wait4`. The issue's goals are for the first "
        f"screen of the browser's grid; the contact sheet is the same work in a form timg also has. Load average "
        f"{grid_data['load']} at the end of the step, {grid_data['cores']} cores.")
    add("")
    add(grid_table)
    add("")
    add("## The browser's grid: 2,000 photographs against 24")
    add("")
    add(f"`bench/bench_grid_browser.py` opens a folder of the same {grid_browser_data['few']} photographs, and one of "
        f"{grid_browser_data['many']:,} hard links to them under as many names (each a file of its own to imgview, its own "
        "thumbnail; the page cache serves the bytes), in the browser in a detached tmux pane of "
        f"{grid_browser_data['box'].replace('x', '×')} (a screen of the grid holds 20 cells there, which the 24 fill), "
        "`--mode blocks`, cold (empty `$XDG_CACHE_HOME` and cache: every cell a "
        "decode at the smallest DCT scale that covers it). Once the folder is listed and the single view has settled, "
        "it sends `g`; imgview logs the milliseconds from the key to the first frame in which every visible cell shows "
        f"its thumbnail. In the {grid_browser_data['many']:,}, End then goes to the last image: the time to its screen, "
        f"whole. Runs take turns between the folders, {grid_browser_data['runs']} each. Load average "
        f"{grid_browser_data['load']} at the end of the step, {grid_browser_data['cores']} cores.")
    add("")
    add(grid_browser_table)
    add("")
    add("## What the figures depend on")
    add("")
    add("What the investigations behind these benchmarks found, with the figures of the time, is in "
        "[performance-notes.md](performance-notes.md); the choices they led to are in DECISIONS.md. In short:")
    add("")
    add("- Previews: a baseline JPEG is decoded by libjpeg-turbo at the smallest DCT scale that still covers the box, "
        "but the entropy decoding of the whole file cannot be skipped, and start-up of the Swift runtime comes on top; "
        "the static build (`-static-stdlib`) starts faster and smaller than a dynamically linked one. A progressive "
        "JPEG whose preview needs at most 1/8 of its pixels is decoded from its DC scans alone and the file is not "
        "read further; at 1/4 everything but the last refinement of luma's lowest bit is read, and at larger scales "
        "every scan, as jp2a does. The 256-colour "
        "block mode does the most work per cell: it ranks candidate patterns again after quantising them to the palette.")
    add("- Pixel previews: the decoder is asked for one and a half times the box on each side (DCT scaling and the "
        "other formats' reducers average blocks, a box filter that Lanczos-3 cannot sharpen again from barely more "
        "pixels than it shows), which for these photos at 80×24 is a JPEG at 1/4. A progressive JPEG at that scale "
        "keeps every coefficient of the whole image until its scans are in, which is where its extra time goes; the "
        "last scan, luma's lowest bit (a third of the file here), is left out, as at that size it moves pixels by a "
        "level or two. At 1/8 only its DC scans would be read, at the cost of a visibly softer image. Scaling runs "
        "on both cores in two bands of rows; decoding, quantising and dithering on one.")
    add("- Downloads: imgview receives through libcurl directly, every transfer on one multi handle driven by one "
        "thread that sleeps until a socket has data; it hashes the body (SHA-256, which curl does not do) on a "
        "queue of its own and writes it in large blocks, to the cache's blob and, as it arrives, to the output (a "
        "file of its own, named when whole). On a virtual machine the first write into page-cache memory the guest has not touched "
        "recently is slow, and which tool gets recycled pages depends on what ran before it: this is what moves the "
        "100 MB figures between runs (DECISIONS.md).")
    add("- The browser: a tab switch redraws nearly every cell of the pane, each with its own pair of 256-colour "
        "escape sequences, and most of the time goes to ncurses formatting and writing them to the terminal.")
    add("- Cache commands: `ls` and `stats` read every entry's metadata file; `verify` also reads and hashes every "
        "blob.")
    text = "\n".join(out) + "\n"

    folder = os.path.dirname(os.path.abspath(output))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".benchmarks-", suffix=".md")
    try:
        with os.fdopen(handle, "w") as f:
            f.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, output)
    except BaseException:
        os.unlink(temporary)
        raise


def main():
    parser = argparse.ArgumentParser(description="Writes docs/benchmarks.md from a `make bench` run's results.")
    parser.add_argument("--results", default="bench-results")
    parser.add_argument("--output", default="docs/benchmarks.md")
    args = parser.parse_args()
    write(args.results, args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
