#!/usr/bin/env python3
"""`imgview show` in each pixel mode against chafa on the large photographs: wall time, output
bytes and how closely a real terminal's screenshot shows the photograph.

Usage: python3 bench/bench_pixels.py --imgview PATH [--runs N] [--images 10,11,13] [--json OUT]

Both tools run on a pseudo-terminal of COLUMNS×ROWS cells whose size in pixels is set
(TIOCSWINSZ), so both scale to the same pixel box and neither has anything to ask: imgview with
an explicit --mode reads the cell size from the kernel, chafa likewise. Wall time is the median
of --runs runs (output drained and counted); bytes are what reached the terminal. The output of
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
COLUMNS, ROWS, CELL_W, CELL_H = 80, 24, 9, 19
MODES = [("sixel", "sixels", "xterm"), ("kitty", "kitty", "kitty"), ("iterm", "iterm", "mlterm")]
BACKGROUND = "#ff00ff"


def run_on_pty(command):
    """Runs command on a raw pseudo-terminal of COLUMNS×ROWS cells of CELL_W×CELL_H pixels: (seconds, output)."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, COLUMNS * CELL_W, ROWS * CELL_H))
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


def screenshot_score(emulator, output, photo, folder):
    """Draws output in emulator under its own Xvfb and scores the screenshot against photo."""
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
        data = os.path.join(folder, "output.bin")
        done = os.path.join(folder, "done")
        with open(data, "wb") as file:
            file.write(output)
        if os.path.exists(done):
            os.unlink(done)
        inner = f"printf '\\033[?25l'; cat {data}; touch {done}; read -r _"
        environment = dict(os.environ, DISPLAY=f":{display}", LIBGL_ALWAYS_SOFTWARE="1")
        arguments = {
            "xterm": ["xterm", "-ti", "vt340", "-fa", "DejaVu Sans Mono", "-fs", "11", "-bg", BACKGROUND, "-fg", "white",
                      "-geometry", "110x40+0+0", "-e", "sh", "-c", inner],
            "kitty": ["kitty", "--config", "NONE", "-o", "initial_window_width=110c", "-o", "initial_window_height=40c",
                      "-o", f"background={BACKGROUND}", "sh", "-c", inner],
            "mlterm": ["mlterm", "-g", "110x40+0+0", "-b", BACKGROUND, "-e", "sh", "-c", inner],
        }[emulator]
        window = subprocess.Popen(arguments, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while not os.path.exists(done) and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)
        shot = os.path.join(folder, "shot.png")
        subprocess.run(["import", "-display", f":{display}", "-window", "root", shot], check=True)
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
    finally:
        for process in (window, server):
            if process and process.poll() is None:
                process.kill()
                process.wait()
        for leftover in (f"/tmp/.X{display}-lock", f"/tmp/.X11-unix/X{display}"):
            if os.path.exists(leftover):
                os.unlink(leftover)


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
        for mode, chafa_format, emulator in MODES:
            for photo in photos:
                row = {"mode": mode, "image": os.path.basename(photo), "emulator": emulator}
                commands = {
                    "imgview": [args.imgview, "show", photo, "--mode", mode, "--size", size],
                    "chafa": ["chafa", "-f", chafa_format, "-s", size, photo],
                }
                for tool, command in commands.items():
                    run_on_pty(command)  # warm-up: page cache, dynamic linking
                    times, output = [], b""
                    for _ in range(args.runs):
                        elapsed, output = run_on_pty(command)
                        times.append(elapsed)
                    score = screenshot_score(emulator, output, photo, folder)
                    row[tool] = {"wall_s": statistics.median(times), "wall_min_s": min(times), "wall_max_s": max(times),
                                 "bytes": len(output), "ssim": score["ssim"], "box": score["box"],
                                 "command": " ".join(command).replace(os.path.abspath(TESTDATA), "../shared/testdata")}
                mine, theirs = row["imgview"], row["chafa"]
                row["time_ratio"] = mine["wall_s"] / theirs["wall_s"]
                row["bytes_ratio"] = mine["bytes"] / theirs["bytes"]
                row["ssim_ratio"] = mine["ssim"] / theirs["ssim"] if theirs["ssim"] else None
                results.append(row)
                print(f"{mode:6} {row['image']:26} imgview {mine['wall_s']:.3f}s {mine['bytes']:>9}B ssim {mine['ssim']:.3f} | "
                      f"chafa {theirs['wall_s']:.3f}s {theirs['bytes']:>9}B ssim {theirs['ssim']:.3f} | "
                      f"time {row['time_ratio']:.2f}x bytes {row['bytes_ratio']:.2f}x", flush=True)
    data = {"columns": COLUMNS, "rows": ROWS, "cell": [CELL_W, CELL_H], "runs": args.runs, "results": results,
            "chafa_version": subprocess.run(["chafa", "--version"], capture_output=True, text=True).stdout.splitlines()[0]}
    if args.json:
        with open(args.json, "w") as file:
            json.dump(data, file, indent=1)


if __name__ == "__main__":
    main()
