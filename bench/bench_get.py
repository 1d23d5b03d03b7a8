#!/usr/bin/env python3
"""Downloads over loopback: `imgview get` against curl, in one run on this machine.

Serves a folder with `imgview serve` (the same loopback server for both tools), then times
  1. 200 images of 1 MB each, 8 at a time (imgview get --all --jobs 8 vs xargs -P 8 curl)
  2. one 100 MB image (imgview get vs curl -o)
  3. the same image resumed from 90 % (imgview continuing its partial in the cache vs curl -C -),
     with the bytes each moved
reporting wall time, throughput, CPU time (user+sys) and peak RSS, each as a ratio to curl.
imgview starts each run with an empty cache, so it does the full network path. The two tools
take turns (imgview then curl, then curl then imgview, ...), so a change in the machine's load
or page-cache state during the run falls on both; each figure is the median over the runs,
with the range beside it. Outputs are kept until the end, as a user's downloads would be.

Usage: python3 bench/bench_get.py [--imgview PATH] [--runs N] [--markdown FILE] [--json FILE]
Exit status: 0 when every run succeeded (goals are judged by bench/report.py), 1 otherwise.
Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview
(`make bench` does, and runs this with --runs 5).
"""
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import benchlib


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


def summary(results):
    """Median, min and max of wall, CPU and peak RSS over the runs."""
    out = {}
    for index, key in enumerate(("wall_s", "cpu_s", "rss_kb")):
        values = [r[index] for r in results]
        out[key] = statistics.median(values)
        out[key.replace("_", "_min_", 1)] = min(values)
        out[key.replace("_", "_max_", 1)] = max(values)
    out["runs"] = len(results)
    return out


def alternating_runs(runs, first_argv, second_argv, prepare):
    """Runs both commands `runs` times, taking turns: A B, B A, A B, ... Returns their summaries."""
    first, second = [], []
    for index in range(runs):
        order = [(first_argv, first), (second_argv, second)]
        if index % 2:
            order.reverse()
        for make_argv, results in order:
            cwd, env = prepare()
            results.append(timed(make_argv(cwd), cwd, env))
    return summary(first), summary(second)


def main():
    parser = benchlib.parser(runs=3)
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    benchlib.require(args, "bench_get.py", ["curl", "/usr/bin/time"], "curl time")

    root = tempfile.mkdtemp(prefix="imgview-bench-get-")
    server = None
    try:
        folder = make_folder(root)
        server = subprocess.Popen([args.imgview, "serve", folder], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        text = ""
        while not text.endswith("\n}\n"):
            chunk = server.stdout.read1(65536).decode()
            if not chunk:
                sys.exit(f"imgview serve stopped before printing its catalog:\n{server.stderr.read().decode()[-2000:]}")
            text += chunk
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
            env.pop("IMGVIEW_OFFLINE", None)
            env.pop("IMGVIEW_CATALOG", None)
            return cwd, env

        workloads = [
            ("200 × 1 MB, 8 jobs", 200 * 1_000_000,
             lambda cwd: [args.imgview, "--catalog", catalog_file, "get", "--all", "--jobs", "8", "-O", cwd, "--quiet"],
             lambda cwd: ["sh", "-c", f"xargs -P 8 -n 1 curl -s -f -O < {url_file}"],
             f"imgview --catalog CATALOG get --all --jobs 8 -O DIR --quiet", "xargs -P 8 -n 1 curl -s -f -O < URLS"),
            ("1 × 100 MB", 100_000_000,
             lambda cwd: [args.imgview, "get", big_url, "-O", cwd, "--quiet"],
             lambda cwd: ["curl", "-s", "-f", "-O", big_url],
             "imgview get URL -O DIR --quiet", "curl -s -f -O URL"),
        ]
        rows = []
        for name, size, imgview_argv, curl_argv, imgview_text, curl_text in workloads:
            mine, theirs = alternating_runs(args.runs, imgview_argv, curl_argv, fresh)
            rows.append({"workload": name, "bytes": size, "files": 200 if size == 200 * 1_000_000 else 1, "imgview": mine, "curl": theirs,
                         "imgview_command": imgview_text, "curl_command": curl_text})

        # Resuming: each run starts with 90 % of the body kept, imgview's as the partial download
        # an interrupted `get` leaves in its cache, curl's as the output file `curl -C -` continues.
        big_file = os.path.join(folder, "big.jpg")
        total = os.path.getsize(big_file)
        kept = total * 9 // 10
        head = subprocess.run(["curl", "-s", "-f", "-I", big_url], capture_output=True, text=True).stdout
        etag = next(line.split(":", 1)[1].strip() for line in head.splitlines() if line.lower().startswith("etag:"))

        def resumable():
            cwd, env = fresh()
            with open(big_file, "rb") as source:
                prefix = source.read(kept)
            os.makedirs(os.path.join(cwd, "out"))
            with open(os.path.join(cwd, "big.jpg"), "wb") as f:
                f.write(prefix)
            tmp = os.path.join(env["IMGVIEW_CACHE_DIR"], "v1", "tmp")
            os.makedirs(tmp)
            name = "partial-" + hashlib.sha256(big_url.encode()).hexdigest()
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(prefix)
            with open(os.path.join(tmp, name + ".json"), "w") as f:
                json.dump({"version": 1, "url": big_url, "etag": etag, "last_modified": None, "total": total,
                           "content_type": "image/jpeg", "started_at": "2026-01-01T00:00:00Z"}, f)
            return cwd, env

        mine, theirs = alternating_runs(
            args.runs, lambda cwd: [args.imgview, "get", big_url, "-O", os.path.join(cwd, "out"), "--quiet"],
            lambda cwd: ["curl", "-s", "-f", "-C", "-", "-o", "big.jpg", big_url], resumable)
        # Once more each, to see how many bytes came over the network.
        cwd, env = resumable()
        report_line = subprocess.run([args.imgview, "get", big_url, "-O", os.path.join(cwd, "out"), "--quiet", "--json"],
                                     cwd=cwd, env=env, capture_output=True, text=True).stdout
        result = json.loads(report_line)
        if result["status"] != "resumed":
            sys.exit(f"imgview did not resume: {report_line}")
        moved_imgview = result["bytes"] - result["resumed_from"]
        cwd, env = resumable()
        moved_curl = int(subprocess.run(["curl", "-s", "-f", "-C", "-", "-o", "big.jpg", "-w", "%{size_download}", big_url],
                                        cwd=cwd, capture_output=True, text=True).stdout)
        rows.append({"workload": "1 × 100 MB resumed from 90 %", "bytes": total - kept, "files": 1, "imgview": mine, "curl": theirs,
                     "moved_bytes": {"imgview": moved_imgview, "curl": moved_curl},
                     "imgview_command": "imgview get URL -O DIR --quiet (its cache holding 90 % as a partial)",
                     "curl_command": "curl -s -f -C - -o FILE URL (FILE holding 90 %)"})

        lines = [
            f"Downloads over loopback, median of {args.runs} runs each, taking turns (`python3 bench/bench_get.py`); imgview starts with an empty cache.",
            "",
            "| workload | tool | wall | throughput | CPU (user+sys) | peak RSS | throughput vs curl | CPU vs curl | RSS vs curl |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for row in rows:
            size, mine, theirs = row["bytes"], row["imgview"], row["curl"]
            for tool, figures in (("imgview", mine), ("curl", theirs)):
                if tool == "imgview":
                    # A short transfer can use less CPU than the clock's 10 ms tick: no ratio then.
                    cpu = f"{mine['cpu_s'] / theirs['cpu_s']:.2f}×" if theirs["cpu_s"] > 0 else "— (curl under 10 ms)"
                    ratio = f"{theirs['wall_s'] / mine['wall_s']:.2f}× | {cpu} | {mine['rss_kb'] / theirs['rss_kb']:.2f}×"
                else:
                    ratio = "1× | 1× | 1×"
                lines.append(f"| {row['workload']} | {tool} | {figures['wall_s']:.2f} s ({figures['wall_min_s']:.2f}–{figures['wall_max_s']:.2f}) | "
                             f"{size / figures['wall_s'] / 1e6:.0f} MB/s | {figures['cpu_s']:.2f} s | {figures['rss_kb'] / 1024:.1f} MB | {ratio} |")
        report = "\n".join(lines)
        print(report)
        if args.markdown:
            with open(args.markdown, "w") as f:
                f.write(report + "\n")
        if args.json:
            curl_version = subprocess.run(["curl", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
            with open(args.json, "w") as f:
                json.dump({"runs": args.runs, "curl_version": curl_version, "workloads": rows}, f, indent=1)
    finally:
        if server is not None:
            server.terminate()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
