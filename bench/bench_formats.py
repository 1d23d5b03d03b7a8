#!/usr/bin/env python3
"""Previews of GIF, WebP, AVIF and BMP against their JPEG or PNG originals, and against chafa.

Makes each still format from the upright photographs in ../shared/testdata with Debian's
encoders (ImageMagick for GIF and 24-bit BMP, cwebp -q 90, avifenc at its default quality),
then:
  - quality: `imgview show` of each file, ASCII and truecolour blocks, scored by the shared
    harness's ascii_quality against the original photograph, beside the score of imgview's
    preview of the original itself (the goal: a format's mean within 0.02 of the original's);
  - speed and memory on the large photographs: `imgview show` and `chafa` on the same files,
    wall time (hyperfine's median, output to a pipe) and peak RSS (median of three runs of
    /usr/bin/time), i.e. decode, scale and render to a 80x24 preview.

Usage: python3 bench/bench_formats.py [--imgview PATH] [--size 80x24] [--runs N] [--quick] [--json FILE]
Needs: imagemagick webp libavif-bin chafa hyperfine time, numpy and pillow, fonts-dejavu-core.
Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static
(`make bench` does, and runs this as it is). Work files go to bench-results/formats/.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "bench")
sys.path.insert(0, SHARED)
import ascii_quality as q  # noqa: E402

TESTDATA = os.path.join(SHARED, "..", "testdata")
# Upright photographs (12 is stored rotated; 10, 11 and 13 are 24 MP copies, timed only).
QUALITY_IMAGES = ["01_grace_hopper.jpg", "02_astronaut.png", "03_chelsea_cat.png", "04_coffee.png", "05_camera_gray.png",
                  "06_evening_glow.jpg", "07_cold_ripple.jpg", "08_path_forest.jpg", "09_cups_progressive.jpg"]
SPEED_IMAGES = ["06_evening_glow.jpg", "08_path_forest.jpg"]
FORMATS = ["gif", "webp", "avif", "bmp"]
MODES = {"ascii": ["--mode", "ascii", "--colors", "none"], "blocks": ["--mode", "blocks", "--colors", "full"]}
GOAL = 0.02


def encode(source, fmt, folder):
    """The photograph in `fmt`, made once and kept in `folder`."""
    stem = os.path.splitext(os.path.basename(source))[0]
    out = os.path.join(folder, f"{stem}.{fmt}")
    if os.path.exists(out):
        return out
    commands = {
        "gif": ["convert", source, "-strip", out],
        "webp": ["cwebp", "-quiet", "-q", "90", source, "-o", out],
        "avif": ["avifenc", "--speed", "8", "--jobs", "2", "--ignore-exif", source, out],
        "bmp": ["convert", source, "-strip", "-type", "TrueColor", f"BMP3:{out}"],
    }
    subprocess.run(commands[fmt], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def imgview(binary, path, cols, rows, mode="blocks"):
    return [binary, "show", path, "--size", f"{cols}x{rows}", *MODES[mode]]


def chafa(path, cols, rows):
    # Half blocks in truecolour: the peer mode closest to imgview's blocks; --animate off prints one frame.
    return ["chafa", "-f", "symbols", "--animate", "off", "-c", "full", "--symbols", "vhalf", "--size", f"{cols}x{rows}", path]


def score(original, argv, cols, rows, model):
    run = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if run.returncode != 0 or not run.stdout:
        raise RuntimeError(f"{shlex.join(argv)} failed: {run.stderr.decode(errors='replace').strip()}")
    return q.evaluate(original, run.stdout.decode("utf-8", "replace"), cols, rows, model)["score"]


def hyperfine_ms(argv, runs):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        subprocess.run(["hyperfine", "-N", "--style", "none", "--output", "pipe", "--warmup", "2", "--min-runs", str(runs),
                        "--export-json", report.name, shlex.join(argv)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.load(open(report.name))["results"][0]["median"] * 1000


def peak_rss_mb(argv):
    peaks = []
    for _ in range(3):
        run = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        peaks.append(int(run.stderr.strip().splitlines()[-1]) / 1024)
    return statistics.median(peaks)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--imgview", default=os.path.abspath(".build-static/release/imgview"))
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="three photographs for quality, one for speed")
    parser.add_argument("--json")
    args = parser.parse_args()
    cols, rows = map(int, args.size.split("x"))
    folder = os.path.abspath("bench-results/formats")
    os.makedirs(folder, exist_ok=True)
    quality_images = QUALITY_IMAGES[:3] if args.quick else QUALITY_IMAGES
    speed_images = SPEED_IMAGES[:1] if args.quick else SPEED_IMAGES
    model = q.GlyphModel()

    quality = []
    for mode in MODES:
        per_format = {fmt: [] for fmt in FORMATS}
        for name in quality_images:
            original = os.path.join(TESTDATA, name)
            baseline = score(original, imgview(args.imgview, original, cols, rows, mode), cols, rows, model)
            for fmt in FORMATS:
                made = encode(original, fmt, folder)
                value = score(original, imgview(args.imgview, made, cols, rows, mode), cols, rows, model)
                per_format[fmt].append({"image": name, "original": round(baseline, 4), "score": round(value, 4),
                                        "delta": round(value - baseline, 4)})
                print(f"quality {mode:6} {name:24} {fmt:4} {value:.3f} (original {baseline:.3f})", flush=True)
        for fmt, records in per_format.items():
            mean_delta = statistics.mean(r["delta"] for r in records)
            quality.append({"format": fmt, "mode": mode, "images": records,
                            "mean_original": round(statistics.mean(r["original"] for r in records), 4),
                            "mean_score": round(statistics.mean(r["score"] for r in records), 4),
                            "mean_delta": round(mean_delta, 4),
                            "worst_delta": max((r["delta"] for r in records), key=abs),
                            "within_goal": abs(mean_delta) <= GOAL})

    speed = []
    for name in speed_images:
        original = os.path.join(TESTDATA, name)
        for fmt in ["original"] + FORMATS:
            path = original if fmt == "original" else encode(original, fmt, folder)
            mine, theirs = imgview(args.imgview, path, cols, rows), chafa(path, cols, rows)
            record = {"image": name, "format": fmt if fmt != "original" else os.path.splitext(name)[1][1:].replace("jpg", "jpeg"),
                      "bytes": os.path.getsize(path), "imgview_command": shlex.join(mine), "chafa_command": shlex.join(theirs),
                      "imgview_ms": round(hyperfine_ms(mine, args.runs), 1), "imgview_rss_mb": round(peak_rss_mb(mine), 1),
                      "chafa_ms": round(hyperfine_ms(theirs, args.runs), 1), "chafa_rss_mb": round(peak_rss_mb(theirs), 1)}
            speed.append(record)
            print(f"speed {name:24} {record['format']:5} imgview {record['imgview_ms']:7.1f} ms {record['imgview_rss_mb']:6.1f} MB"
                  f"   chafa {record['chafa_ms']:7.1f} ms {record['chafa_rss_mb']:6.1f} MB", flush=True)

    result = {"size": args.size, "goal": GOAL, "quality_images": quality_images, "quality": quality, "speed": speed,
              "encoders": {"gif": "convert SRC -strip X.gif", "webp": "cwebp -q 90 SRC", "avif": "avifenc --speed 8 SRC",
                           "bmp": "convert SRC -type TrueColor BMP3:X.bmp"}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    for record in quality:
        print(f"{record['format']:5} {record['mode']:6} mean {record['mean_score']:.3f} vs original {record['mean_original']:.3f}: "
              f"{record['mean_delta']:+.3f} ({'within' if record['within_goal'] else 'NOT within'} {GOAL})")
    failed = [r for r in quality if not r["within_goal"]]
    return 1 if failed and not args.json else 0


if __name__ == "__main__":
    sys.exit(main())
