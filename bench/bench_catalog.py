#!/usr/bin/env python3
"""A catalog of 100,000 images: `imgview list`, a command that needs no catalog, and the browser.

Writes a catalog file of N entries (name, title, an http URL each), and a cache holding 1,000 of
them (entries in the cache's own layout, so `list` shows their states), then times, median,
best and worst of several runs, with CPU time (wait4) and peak RSS (/usr/bin/time):
  - imgview --catalog FILE list            stdout a pipe: tab-separated lines   (goal: ≤ 0.5 s)
  - imgview --catalog FILE list --json
  - imgview --catalog FILE info PHOTO      a local file: the catalog is not read
and, once, the browser over the catalog in a detached tmux pane (offline, so nothing is
fetched): the time from starting it to the first frame that shows the tab strip, and from
pressing → to the frame with the next tab selected (tmux's own polling included).

Usage: python3 bench/bench_catalog.py [--imgview PATH] [--entries N] [--runs N] [--json FILE]
Exit status: 1 when a command fails or prints the wrong number of lines.
Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview
"""
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import benchlib

GOAL_S = 0.5


def write_catalog(path, count):
    with open(path, "w") as f:
        f.write('{"images": [\n')
        for index in range(count):
            separator = ",\n" if index + 1 < count else "\n"
            f.write(f'  {{"name": "img{index:06d}", "title": "Photograph number {index} of the big catalog", '
                    f'"url": "http://127.0.0.1:9/images/img{index:06d}.jpg"}}{separator}')
        f.write("]}\n")


def fill_cache(cache, count):
    """`count` entries for the catalog's first URLs, with blobs, as DiskCache writes them."""
    entries = os.path.join(cache, "v1", "entries")
    os.makedirs(entries)
    os.makedirs(os.path.join(cache, "v1", "tmp"))
    for index in range(count):
        url = f"http://127.0.0.1:9/images/img{index:06d}.jpg"
        body = b"\xff\xd8\xff\xe0" + hashlib.sha256(url.encode()).digest()
        digest = hashlib.sha256(body).hexdigest()
        blobs = os.path.join(cache, "v1", "blobs", digest[:2])
        os.makedirs(blobs, exist_ok=True)
        with open(os.path.join(blobs, digest), "wb") as f:
            f.write(body)
        entry = {"url": url, "finalURL": url, "contentType": "image/jpeg", "format": "jpeg", "byteCount": len(body),
                 "sha256": digest, "fetchedAt": "2026-01-01T00:00:00Z", "lastAccessedAt": "2026-01-01T00:00:00Z",
                 "freshUntil": "2126-01-01T00:00:00Z", "revalidations": 0}
        with open(os.path.join(entries, hashlib.sha256(url.encode()).hexdigest() + ".json"), "w") as f:
            json.dump(entry, f)


def measured(argv, env, runs):
    """Median, best and worst wall time of `runs` runs; median CPU (wait4, in microseconds) and peak
    RSS (/usr/bin/time: a child forked from this Python process would count Python's pages)."""
    figures = []
    output = b""
    for _ in range(runs):
        with tempfile.TemporaryFile() as sink, tempfile.NamedTemporaryFile() as report:
            started = time.monotonic()
            process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", report.name] + argv, env=env, stdout=sink,
                                       stderr=subprocess.PIPE)
            errors = process.stderr.read()
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.monotonic() - started
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"failed: {' '.join(argv)}\n{errors.decode()[-2000:]}")
            sink.seek(0)
            output = sink.read()
            rss = int(open(report.name).read().split()[-1])
        figures.append((wall, usage.ru_utime + usage.ru_stime, rss))
    walls = [f[0] for f in figures]
    return {"median_s": statistics.median(walls), "best_s": min(walls), "worst_s": max(walls),
            "cpu_s": statistics.median(f[1] for f in figures), "rss_kb": statistics.median(f[2] for f in figures)}, output


def tmux(socket, *arguments):
    return subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", *arguments], capture_output=True, text=True)


def browser(imgview, catalog, env, count):
    """Seconds from start to the first frame with the tab strip, and from → to the next tab shown."""
    if shutil.which("tmux") is None:
        return None
    socket = f"imgview-bench-{uuid.uuid4().hex[:8]}"
    variables = " ".join(f"{key}='{value}'" for key, value in env.items() if key.startswith("IMGVIEW") or key == "HOME")
    command = f"env TERM=tmux-256color LANG=C.UTF-8 {variables} '{imgview}' --catalog '{catalog}' --mode ascii --offline"
    started = time.monotonic()
    tmux(socket, "new-session", "-d", "-x", "120", "-y", "36", "sh", "-c", command + "; sleep 600")
    try:
        def wait(text, since):
            deadline = since + 30
            while time.monotonic() < deadline:
                if text in tmux(socket, "capture-pane", "-p").stdout:
                    return time.monotonic() - since
                time.sleep(0.005)
            sys.exit(f"the browser never showed {text!r}:\n{tmux(socket, 'capture-pane', '-p').stdout}")
        first = wait("[ img000000 ]", started)
        pressed = time.monotonic()
        tmux(socket, "send-keys", "Right")
        switch = wait("[ img000001 ]", pressed)
        return {"first_frame_s": first, "switch_s": switch}
    finally:
        tmux(socket, "kill-server")


def main():
    parser = benchlib.parser(runs=7)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--cached", type=int, default=1_000, help="how many of the entries the cache holds")
    args = parser.parse_args()
    benchlib.require(args, "bench_catalog.py", ["/usr/bin/time"], "time")

    root = tempfile.mkdtemp(prefix="imgview-bench-catalog-")
    try:
        catalog = os.path.join(root, "catalog.json")
        write_catalog(catalog, args.entries)
        cache = os.path.join(root, "cache")
        fill_cache(cache, args.cached)
        photo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Assets", "images", "01_grace_hopper.jpg")
        env = dict(os.environ, IMGVIEW_CACHE_DIR=cache, HOME=root)
        for key in ("IMGVIEW_CATALOG", "IMGVIEW_OFFLINE", "IMGVIEW_HTTP"):
            env.pop(key, None)
        commands = [
            ("list", "imgview --catalog CATALOG list", [args.imgview, "--catalog", catalog, "list"], True),
            ("list --json", "imgview --catalog CATALOG list --json", [args.imgview, "--catalog", catalog, "list", "--json"], False),
            ("info of a local file", "imgview --catalog CATALOG info PHOTO", [args.imgview, "--catalog", catalog, "info", photo], False),
        ]
        rows = []
        for name, text, argv, held in commands:
            figures, output = measured(argv, env, args.runs)
            if name == "list":
                lines = output.decode().splitlines()
                if len(lines) != args.entries or sum(1 for line in lines if line.endswith("\tfresh")) != args.cached:
                    sys.exit(f"list printed {len(lines)} lines, {sum(1 for l in lines if l.endswith(chr(9) + 'fresh'))} fresh")
            rows.append({"name": name, "command": text, "held": held, **figures})
            print(f"{name:22} median {figures['median_s'] * 1000:.0f} ms (best {figures['best_s'] * 1000:.0f}, worst "
                  f"{figures['worst_s'] * 1000:.0f})  CPU {figures['cpu_s'] * 1000:.0f} ms  RSS {figures['rss_kb'] / 1024:.0f} MB"
                  + (f"  goal ≤ {GOAL_S * 1000:.0f} ms" if held else ""))
        tui = browser(args.imgview, catalog, env, args.entries)
        if tui:
            print(f"browser: first frame {tui['first_frame_s'] * 1000:.0f} ms, → to the next tab {tui['switch_s'] * 1000:.0f} ms")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"entries": args.entries, "cached": args.cached, "runs": args.runs, "goal_s": GOAL_S,
                           "commands": rows, "browser": tui}, f, indent=1)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
