#!/usr/bin/env python3
"""Memory and copying costs of the hardening work, in one run on this machine.

  1. Peak RSS of `imgview show IMAGE --size 100x40` for each large image: the large testdata
     photographs, and PNGs made here (9999×10000 grey, 8000×8000 interlaced RGBA). Goal: at most
     100 MB for any image at the default limits.
  2. `imgview get --all -O DIR` of 200 × 1 MB images already in the cache (so the cost is the
     outputs: clone or in-kernel copy, each a file of its own) against `cp` of the same blobs.
  3. Issue 26's small files that once took hundreds of megabytes (an animated WebP on a 10000²
     canvas, an RLE8 BMP declaring 10000², an 8000² AVIF, …), and local files larger than the
     cache keeps in memory (a 72 MB BMP, a 120 MB PNG), all made by the tests' generator,
     Tests/ImgviewTestSupport/Generators/memory_images.py): peak RSS of `imgview show FILE` into
     a pipe, at 80×24 and full screen (`--size 240x67`, blocks in truecolour), and of `imgview info
     FILE`, against chafa (FILE into a pipe at 80×24) and ImageMagick's `identify` on the same
     file. Goal: at most 100 MB for imgview; a peer may refuse or fail.

Usage: python3 bench/bench_hardening.py [--imgview PATH] [--runs N] [--json FILE] [--markdown FILE]
Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import zlib
import struct

RSS_GOAL_MB = 100
PEER_TIMEOUT_S = 120

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../Tests/ImgviewTestSupport/Generators"))
import memory_images  # noqa: E402  (the tests' generator of issue 26's files)


def timed(argv, cwd, env=None):
    """Runs argv under /usr/bin/time; returns (wall s, peak RSS kB)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", os.path.join(cwd, ".time")] + argv,
                         cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(argv)}\n{out.stderr.decode()[-2000:]}")
    wall, rss = open(os.path.join(cwd, ".time")).read().split()[-2:]
    return float(wall), int(rss)


def peak(argv, cwd, env=None):
    """Runs argv under /usr/bin/time, output into a pipe; returns (peak RSS kB, exit status), or
    (None, None) when it ran past PEER_TIMEOUT_S or is not installed."""
    if shutil.which(argv[0]) is None:
        return None, None
    report = os.path.join(cwd, ".peak")
    try:
        out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report] + argv, cwd=cwd, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=PEER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, None
    return int(open(report).read().split()[-1]), out.returncode


def decoder_memory(imgview, root, env):
    """Peak RSS of show (into a pipe) and info for each of issue 26's files, and of the peers."""
    folder = os.path.join(root, "memory")
    os.makedirs(folder)
    rows = []
    for path in memory_images.write(folder):
        show_kb, show_status = peak([imgview, "show", path], root, env)
        full_kb, full_status = peak([imgview, "show", "--size", "240x67", "--mode", "blocks", "--colors", "full", path], root, env)
        info_kb, info_status = peak([imgview, "info", path], root, env)
        chafa_kb, chafa_status = peak(["chafa", "--size", "80x24", "--animate", "off", path], root)
        identify_kb, identify_status = peak(["identify", path], root)
        rows.append({"image": os.path.basename(path), "bytes": os.path.getsize(path),
                     "show_rss_mb": show_kb / 1024, "show_status": show_status,
                     "full_screen_rss_mb": full_kb / 1024, "full_screen_status": full_status,
                     "info_rss_mb": info_kb / 1024, "info_status": info_status,
                     "chafa_rss_mb": chafa_kb / 1024 if chafa_kb else None, "chafa_status": chafa_status,
                     "identify_rss_mb": identify_kb / 1024 if identify_kb else None, "identify_status": identify_status})
    return rows


def png(path, width, height, color_type, interlace, row):
    """A PNG whose every row is `row` (bytes of one row), compressed fast."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    depth_bytes = {0: 1, 6: 4}[color_type]
    compressor = zlib.compressobj(1)
    data = []
    if interlace:
        # Adam7: the passes' rows, each as wide as the pass.
        passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        for x0, y0, dx, dy in passes:
            pass_width = (width - x0 + dx - 1) // dx if width > x0 else 0
            for _ in range(y0, height, dy):
                if pass_width:
                    data.append(compressor.compress(b"\0" + row[:pass_width * depth_bytes]))
    else:
        line = b"\0" + row
        for _ in range(height):
            data.append(compressor.compress(line))
    data.append(compressor.flush())
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 1 if interlace else 0)))
        f.write(chunk(b"IDAT", b"".join(data)))
        f.write(chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imgview", default=os.path.abspath(".build-static/release/imgview"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="imgview-bench-hardening-")
    server = None
    try:
        images = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "../../shared/testdata/*large*.jpg")))
        grey = os.path.join(root, "grey_9999x10000.png")
        png(grey, 9999, 10000, 0, False, bytes(range(256)) * 39 + bytes(15))
        interlaced = os.path.join(root, "interlaced_rgba_8000x8000.png")
        png(interlaced, 8000, 8000, 6, True, bytes([200, 100, 50, 255]) * 8000)
        images += [grey, interlaced]
        env = dict(os.environ, IMGVIEW_CACHE_DIR=os.path.join(root, "cache"))
        memory = []
        for image in images:
            results = [timed([args.imgview, "show", image, "--size", "100x40", "--mode", "ascii"], root, env) for _ in range(args.runs)]
            memory.append({"image": os.path.basename(image), "wall_s": statistics.median(r[0] for r in results),
                           "rss_mb": max(r[1] for r in results) / 1024})

        files = decoder_memory(args.imgview, root, env)

        # 200 cached images: get's outputs against cp of the cache's blobs.
        folder = os.path.join(root, "images")
        os.makedirs(folder)
        for index in range(200):
            with open(os.path.join(folder, f"img{index:03d}.jpg"), "wb") as f:
                f.write(bytes([0xFF, 0xD8, 0xFF, 0xE0]) + os.urandom(1_000_000 - 4))
        server = subprocess.Popen([args.imgview, "serve", folder], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        text = ""
        while not text.endswith("\n}\n"):
            chunk = server.stdout.read1(65536).decode()
            if not chunk:
                sys.exit("imgview serve stopped before printing its catalog")
            text += chunk
        catalog = os.path.join(root, "catalog.json")
        with open(catalog, "w") as f:
            f.write(text)
        warm = os.path.join(root, "warm")
        os.makedirs(warm)
        timed([args.imgview, "--catalog", catalog, "get", "--all", "-O", warm, "--jobs", "8", "--quiet"], root, env)
        blobs = glob.glob(os.path.join(root, "cache", "v1", "blobs", "*", "*"))
        gets, cps = [], []
        for run in range(args.runs):
            out = os.path.join(root, f"get{run}")
            os.makedirs(out)
            gets.append(timed([args.imgview, "--catalog", catalog, "--offline", "get", "--all", "-O", out, "--jobs", "8", "--quiet"],
                              root, env))
            copy = os.path.join(root, f"cp{run}")
            os.makedirs(copy)
            cps.append(timed(["cp"] + blobs + [copy], root, env))
        get_s = statistics.median(r[0] for r in gets)
        cp_s = statistics.median(r[0] for r in cps)
        lines = [f"Peak RSS of `imgview show IMAGE --size 100x40 --mode ascii` (max of {args.runs} runs; goal ≤ {RSS_GOAL_MB} MB):", "",
                 "| image | wall | peak RSS | goal |", "| --- | --- | --- | --- |"]
        for row in memory:
            lines.append(f"| {row['image']} | {row['wall_s']:.2f} s | {row['rss_mb']:.1f} MB | {'met' if row['rss_mb'] <= RSS_GOAL_MB else 'MISSED'} |")
        lines += ["", f"`get --all --offline` of 200 cached 1 MB images into a new folder: {get_s:.2f} s; "
                  f"`cp` of the same {len(blobs)} blobs: {cp_s:.2f} s ({cp_s / get_s:.2f}× cp's speed), median of {args.runs}."]
        lines += ["", f"Issue 26's files (small ones declaring much, large local ones), peak RSS (goal ≤ {RSS_GOAL_MB} MB for imgview; exit status in brackets when not 0):", "",
                  "| file | bytes | `show` into a pipe | `show` full screen (240×67) | `info` | chafa | identify |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]

        def cell(mb, status):
            if mb is None:
                return "—"
            return f"{mb:.1f} MB" + (f" (exit {status})" if status else "")
        for row in files:
            lines.append(f"| {row['image']} | {row['bytes']:,} | {cell(row['show_rss_mb'], row['show_status'])} | "
                         f"{cell(row['full_screen_rss_mb'], row['full_screen_status'])} | "
                         f"{cell(row['info_rss_mb'], row['info_status'])} | {cell(row['chafa_rss_mb'], row['chafa_status'])} | "
                         f"{cell(row['identify_rss_mb'], row['identify_status'])} |")
        report = "\n".join(lines)
        print(report)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(report + "\n")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"memory": memory, "files": files, "cached_get_s": get_s, "cp_s": cp_s, "runs": args.runs}, f, indent=1)
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
