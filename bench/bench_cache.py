#!/usr/bin/env python3
"""Times `imgview cache ls` and `cache stats` over a cache of 10,000 entries (goal: ≤ 300 ms each).

Fills a cache folder directly in the v1 layout that DiskCache writes: for each entry a blob
`v1/blobs/<ab>/<sha256 of body>` (a small synthetic PNG with a real header, so the hash is
valid) and its metadata `v1/entries/<sha256 of URL>.json`, with distinct fetch and use times.
A catalog names 1,000 of the URLs, so `ls` also does its name matching. Then it runs each
command several times with a release build and prints the median and best wall time:
  - cache ls          stdout a pipe: tab-separated lines
  - cache ls --json
  - cache ls on a terminal (a pty, 120 columns): the fitted table
  - cache stats, and cache stats --json
  - cache verify (for information: it rehashes every blob, so it is not held to the goal)

Usage: python3 bench/bench_cache.py [--imgview PATH] [--entries N] [--runs N] [--json FILE]
Exit status: 1 when a command fails or lists the wrong count; also 1 when a command held to the
goal misses it, unless --json is given (bench/report.py then judges the goal from the file).
Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview
(`make bench` does, and runs this as it is).
"""
import argparse
import hashlib
import json
import os
import pty
import select
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import time
import zlib
from datetime import datetime, timedelta, timezone

GOAL_MS = 300


def png(width, height, seed):
    """A PNG signature and a valid IHDR chunk, then seed-dependent filler: a unique, sniffable body."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    filler = hashlib.sha256(seed.to_bytes(8, "little")).digest() * 64  # 2 KB
    return b"\x89PNG\r\n\x1a\n" + chunk + filler


def iso(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def fill(cache, count, catalog_file):
    entries = os.path.join(cache, "v1", "entries")
    blobs = os.path.join(cache, "v1", "blobs")
    os.makedirs(entries)
    os.makedirs(os.path.join(cache, "v1", "tmp"))
    now = datetime.now(timezone.utc).replace(microsecond=0)
    catalog = []
    for index in range(count):
        url = f"https://images.example.org/gallery/{index // 100:03d}/photo-{index:05d}.png"
        width, height = 640 + index % 1000, 480 + index % 700
        body = png(width, height, index)
        digest = hashlib.sha256(body).hexdigest()
        shard = os.path.join(blobs, digest[:2])
        os.makedirs(shard, exist_ok=True)
        with open(os.path.join(shard, digest), "wb") as f:
            f.write(body)
        fetched = now - timedelta(seconds=60 * (count - index) + 3600)
        used = fetched + timedelta(seconds=30 + index % 600)
        entry = {
            "byteCount": len(body),
            "contentType": "image/png",
            "dimensions": {"height": height, "width": width},
            "etag": f'"{digest[:16]}"',
            "fetchedAt": iso(fetched),
            "finalURL": url,
            "format": "png",
            "freshUntil": iso(fetched + timedelta(minutes=30)),
            "lastAccessedAt": iso(used),
            "lastModified": "Sat, 01 Nov 2025 10:00:00 GMT",
            "revalidations": 0,
            "sha256": digest,
            "url": url,
        }
        name = hashlib.sha256(url.encode()).hexdigest() + ".json"
        with open(os.path.join(entries, name), "w") as f:
            json.dump(entry, f, sort_keys=True, separators=(",", ":"))
        if index % 10 == 0:
            catalog.append({"name": f"photo{index:05d}", "url": url})
    with open(catalog_file, "w") as f:
        json.dump({"images": catalog}, f)


def run_pipe(argv, env):
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0,):
        sys.exit(f"failed ({result.returncode}): {' '.join(argv)}\n{result.stderr.decode()[-2000:]}")
    return elapsed, result.stdout


def run_pty(argv, env, columns=120):
    """Runs argv with stdout on a pseudo-terminal of `columns` columns, reading all it prints."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(slave)
    output = b""
    while True:
        ready, _, _ = select.select([master], [], [], 10)
        if not ready:
            break
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    process.wait()
    elapsed = time.perf_counter() - started
    os.close(master)
    if process.returncode != 0:
        sys.exit(f"failed ({process.returncode}): {' '.join(argv)}\n{process.stderr.read().decode()[-2000:]}")
    return elapsed, output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imgview", default=os.path.abspath(".build-static/release/imgview"))
    parser.add_argument("--entries", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--json", help="also write the figures to this file, for bench/report.py")
    args = parser.parse_args()
    if not os.access(args.imgview, os.X_OK):
        sys.exit(f"{args.imgview}: not built; run swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview")

    root = tempfile.mkdtemp(prefix="imgview-bench-cache-")
    try:
        cache = os.path.join(root, "cache")
        catalog = os.path.join(root, "catalog.json")
        started = time.perf_counter()
        fill(cache, args.entries, catalog)
        print(f"filled {args.entries} entries in {time.perf_counter() - started:.1f} s ({cache})")
        env = dict(os.environ, IMGVIEW_CACHE_DIR=cache, IMGVIEW_CATALOG=catalog)
        env.pop("IMGVIEW_OFFLINE", None)

        # name, how it is run, held to the goal, the command as a user types it, where its output goes
        cases = [
            ("cache ls (pipe)", lambda: run_pipe([args.imgview, "cache", "ls"], env), True, "imgview cache ls", "a pipe"),
            ("cache ls --json", lambda: run_pipe([args.imgview, "cache", "ls", "--json"], env), True, "imgview cache ls --json", "a pipe"),
            ("cache ls (terminal)", lambda: run_pty([args.imgview, "cache", "ls"], env), True, "imgview cache ls", "a terminal, 120 columns"),
            ("cache stats (pipe)", lambda: run_pipe([args.imgview, "cache", "stats"], env), True, "imgview cache stats", "a pipe"),
            ("cache stats --json", lambda: run_pipe([args.imgview, "cache", "stats", "--json"], env), True, "imgview cache stats --json", "a pipe"),
            ("cache verify", lambda: run_pipe([args.imgview, "cache", "verify"], env), False, "imgview cache verify", "a pipe"),
        ]
        # Warm the page cache, and check the output is what it should be.
        _, lines = run_pipe([args.imgview, "cache", "ls"], env)
        assert lines.count(b"\n") == args.entries, "cache ls did not list every entry"
        _, stats = run_pipe([args.imgview, "cache", "stats", "--json"], env)
        assert json.loads(stats)["entries"] == args.entries, "cache stats did not count every entry"

        print(f"\n{'command':<22} {'median':>9} {'best':>9}   (goal ≤ {GOAL_MS} ms, {args.runs} runs, {args.entries} entries)")
        slow = False
        results = []
        for name, run, held, command, output in cases:
            times = [run()[0] * 1000 for _ in range(args.runs if held else 1)]
            median = statistics.median(times)
            verdict = ("ok" if median <= GOAL_MS else "SLOW") if held else "(not held to the goal)"
            slow = slow or (held and median > GOAL_MS)
            print(f"{name:<22} {median:>7.0f} ms {min(times):>6.0f} ms   {verdict}")
            results.append({"name": name, "command": command, "output": output, "held": held, "runs": len(times),
                            "median_ms": median, "best_ms": min(times), "worst_ms": max(times)})
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"entries": args.entries, "runs": args.runs, "goal_ms": GOAL_MS, "commands": results}, f, indent=1)
            sys.exit(0)
        sys.exit(1 if slow else 0)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
