#!/usr/bin/env python3
"""Downloads over loopback: `imgview get` against curl, in one run on this machine.

Serves a folder with `imgview serve` (the same loopback server for both tools), then times
  1. 200 images of 1 MB each, 8 at a time (imgview get --all --jobs 8 vs xargs -P 8 curl)
  2. one 100 MB image (imgview get vs curl -o)
reporting wall time, throughput, CPU time (user+sys) and peak RSS, each as a ratio to curl.
imgview starts each run with an empty cache, so it does the full network path.

Usage: python3 bench/bench_get.py [--imgview PATH] [--runs N] [--markdown FILE]
Build first: swift build -c release (docs/benchmarks.md uses the -static-stdlib build:
  swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static, then
  --imgview .build-static/release/imgview)
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def make_folder(root):
    """200 × 1 MB and one 100 MB file that sniff as JPEG (the server and imgview check the bytes)."""
    folder = os.path.join(root, "images")
    os.makedirs(folder)
    header = bytes([0xFF, 0xD8, 0xFF, 0xE0])
    for index in range(200):
        with open(os.path.join(folder, f"img{index:03d}.jpg"), "wb") as f:
            f.write(header + os.urandom(1_000_000 - len(header)))
    with open(os.path.join(folder, "big.jpg"), "wb") as f:
        f.write(header)
        for _ in range(100):
            f.write(os.urandom(1_000_000))
    return folder


def timed(argv, cwd, env=None):
    """Runs argv under /usr/bin/time; returns (wall s, cpu s, peak RSS kB)."""
    fmt = "%e %U %S %M"
    out = subprocess.run(["/usr/bin/time", "-f", fmt, "-o", os.path.join(cwd, ".time")] + argv,
                         cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(argv)}\n{out.stderr.decode()[-2000:]}")
    wall, user, system, rss = open(os.path.join(cwd, ".time")).read().split()[-4:]
    return float(wall), float(user) + float(system), int(rss)


def median_runs(runs, make_argv, prepare):
    results = []
    for _ in range(runs):
        cwd, env = prepare()
        results.append(timed(make_argv(cwd), cwd, env))
    return tuple(statistics.median(r[i] for r in results) for i in range(3))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imgview", default=os.path.abspath(".build/release/imgview"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--markdown")
    args = parser.parse_args()

    root = tempfile.mkdtemp(prefix="imgview-bench-get-")
    try:
        folder = make_folder(root)
        server = subprocess.Popen([args.imgview, "serve", folder], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        text = ""
        while not text.endswith("\n}\n"):
            text += server.stdout.read1(65536).decode()
        catalog = json.loads(text)
        catalog_file = os.path.join(root, "catalog.json")
        small = {"images": [i for i in catalog["images"] if i["name"] != "big"]}
        with open(catalog_file, "w") as f:
            json.dump(small, f)
        urls = [i["url"] for i in small["images"]]
        big_url = next(i["url"] for i in catalog["images"] if i["name"] == "big")
        url_file = os.path.join(root, "urls.txt")
        with open(url_file, "w") as f:
            f.write("\n".join(urls) + "\n")

        def fresh():
            cwd = tempfile.mkdtemp(dir=root)
            env = dict(os.environ, IMGVIEW_CACHE_DIR=os.path.join(cwd, "cache"))
            return cwd, env

        rows = []
        many_bytes = 200 * 1_000_000
        imgview_many = median_runs(args.runs, lambda cwd: [args.imgview, "--catalog", catalog_file, "get", "--all", "--jobs", "8", "-O", cwd, "--quiet"], fresh)
        curl_many = median_runs(args.runs, lambda cwd: ["sh", "-c", f"xargs -P 8 -n 1 curl -s -O < {url_file}"], fresh)
        rows.append(("200 × 1 MB, 8 jobs", many_bytes, imgview_many, curl_many))
        imgview_big = median_runs(args.runs, lambda cwd: [args.imgview, "get", big_url, "-O", cwd, "--quiet"], fresh)
        curl_big = median_runs(args.runs, lambda cwd: ["curl", "-s", "-O", big_url], fresh)
        rows.append(("1 × 100 MB", 100_000_000, imgview_big, curl_big))
        server.terminate()
        server.wait()

        lines = [
            f"Downloads over loopback, median of {args.runs} runs (`python3 bench/bench_get.py`); imgview starts with an empty cache.",
            "",
            "| workload | tool | wall | throughput | CPU (user+sys) | peak RSS | throughput vs curl | CPU vs curl | RSS vs curl |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for name, size, mine, theirs in rows:
            for tool, (wall, cpu, rss) in (("imgview", mine), ("curl", theirs)):
                ratio = ""
                if tool == "imgview":
                    ratio = f"{(size / wall) / (size / theirs[0]):.2f}× | {cpu / theirs[1]:.2f}× | {rss / theirs[2]:.2f}×"
                else:
                    ratio = "1× | 1× | 1×"
                lines.append(f"| {name} | {tool} | {wall:.2f} s | {size / wall / 1e6:.0f} MB/s | {cpu:.2f} s | {rss / 1024:.1f} MB | {ratio} |")
        report = "\n".join(lines)
        print(report)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(report + "\n")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
