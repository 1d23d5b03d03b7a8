#!/usr/bin/env python3
"""CPU time of a slow download: `imgview get` against curl, over a transfer that lasts about 10 s.

A transfer that waits costs CPU in whatever wakes up for it: FoundationNetworking's URLSession
kept most of a core busy (7.8 s of CPU for a 7.7 s slow transfer), curl costs a wake-up per
packet. A small server in this script sends an 8 MB body in 8 KB pieces every 10 ms (about 800
kB/s, a slow link) to each of: imgview with its default client (libcurl), imgview with
IMGVIEW_HTTP=urlsession (for information, no goal; only when the binary has the URLSession trait,
which `make release` leaves out on Linux), and curl. They take turns; CPU (user+sys),
wall time from wait4's rusage, peak RSS from /usr/bin/time; each figure is the median over the runs.
imgview starts each run with an empty cache. The goal: imgview's CPU within 2x curl's.

Usage: python3 bench/bench_slow.py [--imgview PATH] [--runs N] [--seconds S] [--json FILE]
Exit status: 0 when every run succeeded (the goal is judged by bench/report.py), 1 otherwise.
Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview
"""
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import benchlib

CHUNK = 8 * 1024
GOAL_RATIO = 2.0


def make_handler(body, pause):
    class Slow(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for offset in range(0, len(body), CHUNK):
                self.wfile.write(body[offset:offset + CHUNK])
                self.wfile.flush()
                time.sleep(pause)

        def log_message(self, *args):
            pass

    return Slow


def timed(argv, cwd, env):
    """Runs argv under /usr/bin/time; returns (wall s, cpu s, peak RSS kB).

    CPU comes from wait4's rusage, in microseconds (/usr/bin/time rounds to 10 ms, more than curl
    spends here), and includes /usr/bin/time's own sliver; peak RSS from /usr/bin/time, since a
    child forked from this Python process would report Python's pages as its own."""
    report = os.path.join(cwd, ".rss")
    started = time.monotonic()
    process = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", report] + argv, cwd=cwd, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    errors = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"failed ({process.returncode}): {' '.join(argv)}\n{errors.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, int(open(report).read().split()[-1])


def has_urlsession(imgview):
    """Whether the binary was built with the URLSession trait: without it, choosing that client is a usage error."""
    probe = subprocess.run([imgview, "get", "http://127.0.0.1:9/probe.jpg", "-o", os.devnull, "--quiet", "--retry", "0"],
                           capture_output=True, text=True, env=dict(os.environ, IMGVIEW_HTTP="urlsession", IMGVIEW_OFFLINE="1"))
    return "built without URLSession" not in probe.stderr


def main():
    parser = benchlib.parser(runs=3)
    parser.add_argument("--seconds", type=float, default=10, help="how long one transfer lasts")
    args = parser.parse_args()
    benchlib.require(args, "bench_slow.py", ["curl", "/usr/bin/time"], "curl time")

    pause = 0.01
    pieces = int(args.seconds / pause)
    body = bytes([0xFF, 0xD8, 0xFF, 0xE0]) + os.urandom(pieces * CHUNK - 4)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(body, pause))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/slow.jpg"
    root = tempfile.mkdtemp(prefix="imgview-bench-slow-")
    tools = [
        ("imgview", lambda cwd: [args.imgview, "get", url, "-o", "out.jpg", "--quiet"], {"IMGVIEW_HTTP": "curl"},
         f"imgview get URL -o FILE --quiet"),
        ("imgview (URLSession)", lambda cwd: [args.imgview, "get", url, "-o", "out.jpg", "--quiet"], {"IMGVIEW_HTTP": "urlsession"},
         f"IMGVIEW_HTTP=urlsession imgview get URL -o FILE --quiet"),
        ("curl", lambda cwd: ["curl", "-s", "-f", "-o", "out.jpg", url], {}, "curl -s -f -o FILE URL"),
    ]
    if not has_urlsession(args.imgview):
        tools = [tool for tool in tools if tool[0] != "imgview (URLSession)"]
    results = {name: [] for name, _, _, _ in tools}
    try:
        for run in range(args.runs):
            order = tools if run % 2 == 0 else list(reversed(tools))
            for name, make_argv, extra, _ in order:
                cwd = tempfile.mkdtemp(dir=root)
                env = dict(os.environ, IMGVIEW_CACHE_DIR=os.path.join(cwd, "cache"), **extra)
                env.pop("IMGVIEW_OFFLINE", None)
                results[name].append(timed(make_argv(cwd), cwd, env))
                if os.path.getsize(os.path.join(cwd, "out.jpg")) != len(body):
                    sys.exit(f"{name}: the body arrived incomplete")
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)

    def summary(runs):
        return {"wall_s": statistics.median(r[0] for r in runs), "cpu_s": statistics.median(r[1] for r in runs),
                "cpu_min_s": min(r[1] for r in runs), "cpu_max_s": max(r[1] for r in runs),
                "rss_kb": statistics.median(r[2] for r in runs)}

    figures = [{"tool": name, "command": text, **summary(results[name])} for name, _, _, text in tools]
    curl = figures[-1]
    print(f"{len(body) / 1e6:.1f} MB in {CHUNK // 1024} KB pieces every {pause * 1000:.0f} ms, median of {args.runs} runs:")
    for f in figures:
        ratio = f["cpu_s"] / curl["cpu_s"] if curl["cpu_s"] > 0 else float("inf")
        print(f"  {f['tool']:22} wall {f['wall_s']:.2f} s  CPU {f['cpu_s']:.3f} s ({f['cpu_min_s']:.3f}-{f['cpu_max_s']:.3f})"
              f"  RSS {f['rss_kb'] / 1024:.1f} MB  CPU vs curl {ratio:.1f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": args.runs, "bytes": len(body), "chunk": CHUNK, "pause_s": pause, "goal_ratio": GOAL_RATIO,
                       "tools": figures}, f, indent=1)


if __name__ == "__main__":
    main()
