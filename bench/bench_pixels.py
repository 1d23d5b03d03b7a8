#!/usr/bin/env python3
"""`imgview show` in each pixel mode against chafa on the large photographs: wall time, output
bytes and how closely a real terminal's screenshot shows the photograph.

Usage: python3 bench/bench_pixels.py --imgview PATH [--runs N] [--images 10,11,13] [--json OUT]

Both tools run on a pseudo-terminal of COLUMNS×ROWS cells whose size in pixels is set
(TIOCSWINSZ) to that of the cells of the emulator that will draw the output, as it reports them,
so both scale to the box that terminal really has, neither has anything to ask (imgview with an
explicit --mode reads the cell size from the kernel, chafa likewise), and the terminal shows the
image as sent rather than scaling it again. Wall time is the median of --runs runs, the two
tools taking turns (output drained and counted); bytes are what reached the terminal. The output of
one run of each is then drawn by the emulator for that protocol under Xvfb (xterm -ti vt340 for
sixel, kitty for kitty, mlterm for iTerm2), screenshot with ImageMagick's `import`, and scored by
SSIM against the photograph (Tests/ImgviewCLITests/Emulators/similarity.py). Goal (issue #16): at
least chafa's score in at most 0.7x its time.
Needs: chafa, Xvfb, xterm, kitty, mlterm, ImageMagick, numpy + Pillow (scripts/setup-emulators.sh).
"""
import argparse
import fcntl
import json
import os
import pty
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "ImgviewCLITests", "Emulators"))
import similarity  # noqa: E402

TESTDATA = os.path.join(HERE, "..", "..", "shared", "testdata")
COLUMNS, ROWS = 80, 24
MODES = [("sixel", "sixels", "xterm"), ("kitty", "kitty", "kitty"), ("iterm", "iterm", "mlterm")]
BACKGROUND = "#ff00ff"


def run_on_pty(command, cell):
    """Runs command on a raw pseudo-terminal of COLUMNS×ROWS cells of cell (width, height) pixels: (seconds, output)."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, COLUMNS * cell[0], ROWS * cell[1]))
    chunks = []

    def drain():
        while True:
            try:
                data = os.read(master, 1 << 16)
            except OSError:
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    environment = dict(os.environ, TERM="xterm-256color")
    for name in ("TMUX", "KITTY_WINDOW_ID", "TERM_PROGRAM", "IMGVIEW_MODE"):
        environment.pop(name, None)
    started = time.perf_counter()
    process = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE, env=environment)
    elapsed = time.perf_counter() - started
    os.close(slave)
    reader.join(timeout=10)
    os.close(master)
    if process.returncode != 0:
        raise SystemExit(f"bench_pixels: {' '.join(command)} exited {process.returncode}: {process.stderr.decode(errors='replace')}")
    return elapsed, b"".join(chunks)


def in_emulator(emulator, inner, folder, then):
    """Runs the shell command inner in emulator under its own Xvfb, waits until it has finished
    (it stays open), calls then(display) and closes both: then's result."""
    display = random.randint(300, 899)
    while os.path.exists(f"/tmp/.X{display}-lock"):
        display = random.randint(300, 899)
    server = subprocess.Popen(["Xvfb", f":{display}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    window = None
    try:
        for _ in range(500):
            if os.path.exists(f"/tmp/.X11-unix/X{display}"):
                break
            time.sleep(0.01)
        done = os.path.join(folder, "done")
        if os.path.exists(done):
            os.unlink(done)
        script = f"{inner}; touch {done}; read -r _"
        environment = dict(os.environ, DISPLAY=f":{display}", LIBGL_ALWAYS_SOFTWARE="1")
        arguments = {
            "xterm": ["xterm", "-ti", "vt340", "-fa", "DejaVu Sans Mono", "-fs", "11", "-bg", BACKGROUND, "-fg", "white",
                      "-geometry", "110x40+0+0", "-e", "sh", "-c", script],
            "kitty": ["kitty", "--config", "NONE", "-o", "initial_window_width=110c", "-o", "initial_window_height=40c",
                      "-o", f"background={BACKGROUND}", "sh", "-c", script],
            "mlterm": ["mlterm", "-g", "110x40+0+0", "-b", BACKGROUND, "-e", "sh", "-c", script],
        }[emulator]
        window = subprocess.Popen(arguments, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while not os.path.exists(done) and time.time() < deadline:
            time.sleep(0.05)
        if not os.path.exists(done):
            raise SystemExit(f"bench_pixels: {emulator} did not finish `{inner}` within 60 s")
        return then(display)
    finally:
        for process in (window, server):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        for leftover in (f"/tmp/.X{display}-lock", f"/tmp/.X11-unix/X{display}"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def cell_size(emulator, folder):
    """The (width, height) in pixels of emulator's cells, as it reports them to programs (TIOCGWINSZ).

    Both tools are told this size, so each scales to the box the terminal really has and the terminal
    draws the image as sent instead of scaling it again with its own filter.
    """
    report = os.path.join(folder, "winsize")
    if os.path.exists(report):
        os.unlink(report)
    reader = (f"python3 -c 'import fcntl, struct, termios; "
              f"print(*struct.unpack(\"HHHH\", fcntl.ioctl(0, termios.TIOCGWINSZ, bytes(8))))' > {report}")
    rows, columns, width, height = map(int, in_emulator(emulator, reader, folder, lambda _: open(report).read().split()))
    if not (width and height):
        raise SystemExit(f"bench_pixels: {emulator} reports no pixel size")
    return width // columns, height // rows


def screenshot_score(emulator, output, photo, folder):
    """Draws output in emulator under its own Xvfb and scores the screenshot against photo."""
    data = os.path.join(folder, "output.bin")
    with open(data, "wb") as file:
        file.write(output)

    def shoot(display):
        time.sleep(1.5)
        shot = os.path.join(folder, "shot.png")
        subprocess.run(["import", "-display", f":{display}", "-window", "root", shot], check=True)
        return shot

    shot = in_emulator(emulator, f"printf '\\033[?25l'; cat {data}", folder, shoot)
    from PIL import Image
    picture = Image.open(shot).convert("RGB")
    box = similarity.drawn_box(picture, (0xff, 0x00, 0xff))
    if box is None:
        return {"ssim": 0.0, "box": None}
    x, y, w, h = box
    drawn = picture.crop((x, y, x + w, y + h))
    expected = Image.open(photo).convert("RGB").resize((w, h), Image.LANCZOS)
    import numpy as np
    grey = lambda image: np.asarray(image.convert("L"), dtype=np.float64)
    return {"ssim": round(similarity.ssim(grey(drawn), grey(expected)), 4), "box": list(box)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--imgview", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--images", default="10,11,13", help="number prefixes of ../shared/testdata photographs")
    parser.add_argument("--json")
    args = parser.parse_args()
    prefixes = [p.strip().zfill(2) + "_" for p in args.images.split(",")]
    photos = sorted(os.path.join(TESTDATA, name) for name in os.listdir(TESTDATA)
                    if any(name.startswith(p) for p in prefixes) and name.endswith(".jpg"))
    size = f"{COLUMNS}x{ROWS}"
    results = []
    with tempfile.TemporaryDirectory(prefix="imgview-bench-pixels-") as folder:
        cells = {}
        for mode, chafa_format, emulator in MODES:
            if emulator not in cells:
                cells[emulator] = cell_size(emulator, folder)
            cell = cells[emulator]
            for photo in photos:
                row = {"mode": mode, "image": os.path.basename(photo), "emulator": emulator, "cell": list(cell)}
                commands = {
                    "imgview": [args.imgview, "show", photo, "--mode", mode, "--size", size],
                    "chafa": ["chafa", "-f", chafa_format, "-s", size, photo],
                }
                for command in commands.values():
                    run_on_pty(command, cell)  # warm-up: page cache, dynamic linking
                # The tools take turns, so a machine that slows down or speeds up meanwhile weighs on both alike.
                times = {tool: [] for tool in commands}
                outputs = {}
                for _ in range(args.runs):
                    for tool, command in commands.items():
                        elapsed, outputs[tool] = run_on_pty(command, cell)
                        times[tool].append(elapsed)
                for tool, command in commands.items():
                    score = screenshot_score(emulator, outputs[tool], photo, folder)
                    row[tool] = {"wall_s": statistics.median(times[tool]), "wall_min_s": min(times[tool]),
                                 "wall_max_s": max(times[tool]), "bytes": len(outputs[tool]), "ssim": score["ssim"],
                                 "box": score["box"],
                                 "command": " ".join(command).replace(os.path.abspath(TESTDATA), "../shared/testdata")}
                mine, theirs = row["imgview"], row["chafa"]
                row["time_ratio"] = mine["wall_s"] / theirs["wall_s"]
                row["bytes_ratio"] = mine["bytes"] / theirs["bytes"]
                row["ssim_ratio"] = mine["ssim"] / theirs["ssim"] if theirs["ssim"] else None
                results.append(row)
                print(f"{mode:6} {row['image']:26} imgview {mine['wall_s']:.3f}s {mine['bytes']:>9}B ssim {mine['ssim']:.3f} | "
                      f"chafa {theirs['wall_s']:.3f}s {theirs['bytes']:>9}B ssim {theirs['ssim']:.3f} | "
                      f"time {row['time_ratio']:.2f}x bytes {row['bytes_ratio']:.2f}x", flush=True)
    data = {"columns": COLUMNS, "rows": ROWS, "cells": cells, "runs": args.runs, "results": results,
            "chafa_version": subprocess.run(["chafa", "--version"], capture_output=True, text=True).stdout.splitlines()[0]}
    if args.json:
        with open(args.json, "w") as file:
            json.dump(data, file, indent=1)


if __name__ == "__main__":
    main()
