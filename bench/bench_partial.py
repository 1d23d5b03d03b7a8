#!/usr/bin/env python3
"""Time from the first byte of a download to the first picture of it in the browser, on a slow link.

For each large photograph in ../shared/testdata, a small HTTP server on loopback sends the file
at 200 kB/s (8 kB every 40 ms) and notes, by the wall clock, when it wrote the first byte of the
body. The browser (`imgview --catalog` over a one-image catalog, in a detached tmux pane of
120x36 cells) appends to $IMGVIEW_FRAME_LOG when it draws the first picture of what has
arrived (`partial MS BYTES`). The figure is the difference, and the share of the file that had
arrived. Each photograph gets a fresh browser and an empty cache.

Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview
Usage: bench/bench_partial.py [--imgview PATH] [--rate BYTES_PER_S] [--json FILE]
"""

import argparse
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SOCKET = f"imgview-bench-partial-{os.getpid()}"
LARGE = ["10_large_6000x4000.jpg", "11_large_progressive.jpg", "13_large_mosaic.jpg"]


def tmux(*args):
    return subprocess.run(["tmux", "-L", SOCKET, "-f", "/dev/null", *args], capture_output=True, text=True).stdout


class SlowServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, folder, rate):
        self.folder, self.rate, self.first_byte = folder, rate, {}
        super().__init__(("127.0.0.1", 0), SlowHandler)


class SlowHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        path = os.path.join(self.server.folder, os.path.basename(self.path))
        if not os.path.isfile(path):
            self.send_error(404)
            return
        data = open(path, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        chunk = 8192
        pause = chunk / self.server.rate
        try:
            for start in range(0, len(data), chunk):
                if start == 0:
                    self.server.first_byte.setdefault(self.path, time.time() * 1000)
                self.wfile.write(data[start:start + chunk])
                self.wfile.flush()
                time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            pass


def first_partial(log_path, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(log_path):
            for line in open(log_path).read().splitlines():
                if line.startswith("partial "):
                    _, millis, received = line.split()
                    return float(millis), int(received)
        time.sleep(0.05)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--imgview", default=os.path.abspath(".build-static/release/imgview"))
    parser.add_argument("--testdata", default=os.path.abspath("../shared/testdata"))
    parser.add_argument("--rate", type=int, default=200_000, help="bytes a second")
    parser.add_argument("--json", help="also write the figures to this file, for bench/report.py")
    args = parser.parse_args()
    if not os.access(args.imgview, os.X_OK):
        sys.exit(f"{args.imgview}: not built; run swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static --product imgview")
    if shutil.which("tmux") is None:
        sys.exit("bench_partial.py needs tmux (Debian: apt-get install tmux)")

    server = SlowServer(args.testdata, args.rate)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    results = []
    try:
        for name in LARGE:
            work = tempfile.mkdtemp(prefix="imgview-bench-partial-")
            try:
                catalog = os.path.join(work, "catalog.json")
                with open(catalog, "w") as f:
                    json.dump({"images": [{"name": "large", "url": f"http://127.0.0.1:{port}/{name}"}]}, f)
                log_path = os.path.join(work, "frames.log")
                command = (f"env TERM=tmux-256color LANG=C.UTF-8 IMGVIEW_CACHE_DIR={work}/cache IMGVIEW_FRAME_LOG={log_path} "
                           f"{args.imgview} --catalog {catalog}; sleep 600")
                tmux("new-session", "-d", "-s", "bench", "-x", "120", "-y", "36", "sh", "-c", command)
                size = os.path.getsize(os.path.join(args.testdata, name))
                seen = first_partial(log_path, timeout=size / args.rate + 30)
                tmux("kill-server")
                first = server.first_byte.pop(f"/{name}", None)
                if seen is None or first is None:
                    sys.exit(f"{name}: no picture of the download was drawn")
                millis, received = seen
                latency = millis - first
                results.append({"image": name, "bytes": size, "first_partial_ms": latency, "received": received,
                                "share": received / size})
                print(f"{name:<28} {size / 1e6:5.2f} MB  first picture {latency:7.0f} ms after the first byte, "
                      f"at {received / 1e3:7.0f} kB ({100 * received / size:4.1f}% of the file)")
            finally:
                tmux("kill-server")
                shutil.rmtree(work, ignore_errors=True)
    finally:
        server.shutdown()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rate": args.rate, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
