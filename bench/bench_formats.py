#!/usr/bin/env python3
"""Previews of every format against its JPEG or PNG original, and against chafa and the formats' own tools.

Makes each format from the upright photographs in ../shared/testdata with Debian's encoders
(ImageMagick for GIF, 24-bit BMP, LZW TIFF and ICO, cwebp -q 90, avifenc at its default quality,
heif-enc -q 80 with a 320-pixel thumbnail as cameras write, cjxl at distance 1, qoiconv, apngasm
for a two-frame APNG whose first frame is the photograph, an SVG embedding the photograph as a
data: URI), then:
  - quality: `imgview show` of each file, ASCII and truecolour blocks, scored by the shared
    harness's ascii_quality against the original photograph, beside the score of imgview's
    preview of the original itself (the goal: a format's mean within 0.02 of the original's for
    GIF, WebP, AVIF and BMP, within 0.05 for the formats of issue 30);
  - speed and memory on the large photographs: `imgview show` and `chafa` on the same files,
    wall time (hyperfine's median, output to a pipe) and peak RSS (median of three runs of
    /usr/bin/time), i.e. decode, scale and render to a 80x24 preview (chafa 1.12 reads neither
    JPEG XL nor QOI: those rows have no peer);
  - 12 megapixels (10_large cropped to 4000x3000): a HEIC with and one without a thumbnail against
    `heif-convert` of the same file, and a JPEG XL (VarDCT from the PNG, and the JPEG recompressed
    losslessly) against `djxl`, each to its cheapest output of pixels (JPEG for heif-convert, PPM
    for djxl) and to PNG, CPU time (user + sys) and wall time; djxl also rebuilds the recompressed
    JPEG (its default for a .jpg output).

Usage: python3 bench/bench_formats.py [--imgview PATH] [--size 80x24] [--runs N] [--quick]
         [--formats gif,heic,...] [--no-large] [--json FILE]
Needs: imagemagick webp libavif-bin libheif-examples libjxl-tools qoi apngasm chafa hyperfine time,
numpy and pillow, fonts-dejavu-core. The shared harness is ../shared (IMGVIEW_SHARED overrides it).
Build first: swift build -c release -Xswiftc -static-stdlib --scratch-path .build-static
(`make bench` does, and runs this as it is). Work files go to bench-results/formats/.
"""
import argparse
import json
import os
import shutil
import shlex
import statistics
import subprocess
import sys
import tempfile

SHARED = os.path.join(os.environ.get("IMGVIEW_SHARED") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared"),
                      "bench")
sys.path.insert(0, SHARED)
import ascii_quality as q  # noqa: E402

TESTDATA = os.path.join(SHARED, "..", "testdata")
# Upright photographs (12 is stored rotated; 10, 11 and 13 are 24 MP copies, timed only).
QUALITY_IMAGES = ["01_grace_hopper.jpg", "02_astronaut.png", "03_chelsea_cat.png", "04_coffee.png", "05_camera_gray.png",
                  "06_evening_glow.jpg", "07_cold_ripple.jpg", "08_path_forest.jpg", "09_cups_progressive.jpg"]
SPEED_IMAGES = ["06_evening_glow.jpg", "08_path_forest.jpg"]
FORMATS = ["gif", "webp", "avif", "bmp", "tiff", "heic", "jxl", "svg", "qoi", "ico", "apng"]
MODES = {"ascii": ["--mode", "ascii", "--colors", "none"], "blocks": ["--mode", "blocks", "--colors", "full"]}
GOAL = 0.02
GOALS = {fmt: 0.05 for fmt in ["tiff", "heic", "jxl", "svg", "qoi", "ico", "apng"]}  # issue 30's
EXTENSIONS = {"tiff": "tif", "apng": "png"}
NO_CHAFA = {"jxl", "qoi"}  # chafa 1.12.4: "Unknown file format"


def plain_png(source, folder):
    """The photograph as an 8-bit RGB PNG with no gAMA or cHRM (cjxl would take ImageMagick's gamma 0.45455 as its space)."""
    stem = os.path.splitext(os.path.basename(source))[0]
    out = os.path.join(folder, f"{stem}.plain.png")
    if not os.path.exists(out):
        subprocess.run(["convert", source, "-strip", "-define", "png:exclude-chunks=gAMA,cHRM,bKGD,tIME", f"PNG24:{out}"],
                       check=True)
    return out


def apng_frames(plain, folder, stem):
    """Two frame files as apngasm 2.91 wants them: numbered names (it counts up from the first),
    and different pictures (it merges identical frames), the photograph first, then its mirror."""
    from PIL import Image, ImageOps
    first, second = (os.path.join(folder, f"{stem}.frame{n}.png") for n in (1, 2))
    shutil.copyfile(plain, first)
    ImageOps.mirror(Image.open(plain)).save(second)
    return [first, second]


def encode(source, fmt, folder):
    """The photograph in `fmt`, made once and kept in `folder`."""
    stem = os.path.splitext(os.path.basename(source))[0]
    out = os.path.join(folder, f"{stem}.{fmt}.{EXTENSIONS.get(fmt, fmt)}" if fmt in GOALS else f"{stem}.{fmt}")
    if os.path.exists(out):
        return out
    if fmt == "svg":
        import base64
        from PIL import Image
        width, height = Image.open(source).size
        mime = "image/jpeg" if source.lower().endswith(".jpg") else "image/png"
        data = base64.b64encode(open(source, "rb").read()).decode()
        with open(out, "w") as f:
            f.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
                    f'<image href="data:{mime};base64,{data}" width="{width}" height="{height}"/></svg>\n')
        return out
    plain = plain_png(source, folder) if fmt in ("jxl", "qoi", "apng", "heic") else source
    commands = {
        "gif": ["convert", source, "-strip", out],
        "webp": ["cwebp", "-quiet", "-q", "90", source, "-o", out],
        "avif": ["avifenc", "--speed", "8", "--jobs", "2", "--ignore-exif", source, out],
        "bmp": ["convert", source, "-strip", "-type", "TrueColor", f"BMP3:{out}"],
        "tiff": ["convert", source, "-strip", "-compress", "lzw", out],
        "heic": ["heif-enc", "-q", "80", "-t", "320", plain, "-o", out],
        "jxl": ["cjxl", plain, out, "-d", "1"],
        "qoi": ["qoiconv", plain, out],
        "ico": ["convert", source, "-strip", "-resize", "256x256", out],
        # Two frames, the photograph first: the animation path, and into a pipe its first frame.
        "apng": ["apngasm", out, *apng_frames(plain, folder, stem), "-z0"],
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


def cpu_seconds(argv, runs):
    """Median user + system CPU seconds of `runs` runs, and the median wall seconds."""
    cpu, wall = [], []
    for _ in range(runs):
        run = subprocess.run(["/usr/bin/time", "-f", "%U %S %e", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        user, system, elapsed = map(float, run.stderr.strip().splitlines()[-1].split())
        cpu.append(user + system)
        wall.append(elapsed)
    return statistics.median(cpu), statistics.median(wall)


def large(imgview_binary, folder, cols, rows, runs):
    """12 megapixels: HEIC with and without a thumbnail against heif-convert, JPEG XL against djxl."""
    jpeg = os.path.join(folder, "12mp.jpg")
    if not os.path.exists(jpeg):
        subprocess.run(["convert", os.path.join(TESTDATA, "10_large_6000x4000.jpg"), "-resize", "4000x3000^", "-gravity", "center",
                        "-extent", "4000x3000", "-quality", "92", jpeg], check=True)
    png = plain_png(jpeg, folder)
    # The encoder's command for an output path; "jxl-jpeg" is the JPEG itself recompressed, cjxl's default for a JPEG.
    files = {"heic-thumbnail": (lambda out: ["heif-enc", "-q", "80", "-t", "320", png, "-o", out], "12mp.thumb.heic"),
             "heic": (lambda out: ["heif-enc", "-q", "80", png, "-o", out], "12mp.heic"),
             "jxl": (lambda out: ["cjxl", png, out, "-d", "1"], "12mp.jxl"),
             "jxl-jpeg": (lambda out: ["cjxl", jpeg, out, "--lossless_jpeg=1"], "12mp.jpeg.jxl")}
    records = []
    for kind, (command, name) in files.items():
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            subprocess.run(command(path), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        mine = imgview(imgview_binary, path, cols, rows)
        if kind.startswith("heic"):
            peers = {"heif-convert → JPEG": ["heif-convert", "--quiet", path, os.path.join(folder, "out.jpg")],
                     "heif-convert → PNG": ["heif-convert", "--quiet", path, os.path.join(folder, "out.png")]}
        else:
            peers = {"djxl → PPM": ["djxl", path, os.path.join(folder, "out.ppm")],
                     "djxl → PNG": ["djxl", path, os.path.join(folder, "out.png")]}
        if kind == "jxl-jpeg":
            # djxl's default for a recompressed JPEG written as .jpg: the original JPEG rebuilt.
            peers["djxl → JPEG (rebuilt)"] = ["djxl", path, os.path.join(folder, "out.jpg")]
        imgview_cpu, imgview_wall = cpu_seconds(mine, runs)
        record = {"file": kind, "bytes": os.path.getsize(path), "imgview_command": shlex.join(mine), "imgview_cpu_s": round(imgview_cpu, 3),
                  "imgview_wall_s": round(imgview_wall, 3), "imgview_rss_mb": round(peak_rss_mb(mine), 1), "peers": []}
        for label, argv in peers.items():
            cpu, wall = cpu_seconds(argv, runs)
            record["peers"].append({"peer": label, "command": shlex.join(argv), "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
                                    "rss_mb": round(peak_rss_mb(argv), 1), "cpu_ratio": round(imgview_cpu / cpu, 3),
                                    "wall_ratio": round(imgview_wall / wall, 3)})
        records.append(record)
        print(f"12 MP {kind:15} imgview {imgview_cpu:.2f} s CPU {imgview_wall:.2f} s wall; "
              + "; ".join(f"{p['peer']} {p['cpu_s']:.2f} s CPU ({p['cpu_ratio']:.2f}x)" for p in record["peers"]), flush=True)
    return records


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
    parser.add_argument("--formats", default=",".join(FORMATS), help="the formats to measure, comma-separated")
    parser.add_argument("--no-large", action="store_true", help="leave out the 12-megapixel HEIC and JPEG XL rows")
    parser.add_argument("--json")
    args = parser.parse_args()
    cols, rows = map(int, args.size.split("x"))
    folder = os.path.abspath("bench-results/formats")
    os.makedirs(folder, exist_ok=True)
    quality_images = QUALITY_IMAGES[:3] if args.quick else QUALITY_IMAGES
    speed_images = SPEED_IMAGES[:1] if args.quick else SPEED_IMAGES
    model = q.GlyphModel()
    formats = [fmt for fmt in args.formats.split(",") if fmt]
    unknown = set(formats) - set(FORMATS)
    if unknown:
        parser.error(f"unknown formats: {', '.join(sorted(unknown))}")

    quality = []
    for mode in MODES:
        per_format = {fmt: [] for fmt in formats}
        for name in quality_images:
            original = os.path.join(TESTDATA, name)
            baseline = score(original, imgview(args.imgview, original, cols, rows, mode), cols, rows, model)
            for fmt in formats:
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
                            "goal": GOALS.get(fmt, GOAL), "within_goal": abs(mean_delta) <= GOALS.get(fmt, GOAL)})

    speed = []
    for name in speed_images:
        original = os.path.join(TESTDATA, name)
        for fmt in ["original"] + formats:
            path = original if fmt == "original" else encode(original, fmt, folder)
            mine = imgview(args.imgview, path, cols, rows)
            theirs = None if fmt in NO_CHAFA else chafa(path, cols, rows)
            record = {"image": name, "format": fmt if fmt != "original" else os.path.splitext(name)[1][1:].replace("jpg", "jpeg"),
                      "bytes": os.path.getsize(path), "imgview_command": shlex.join(mine),
                      "chafa_command": shlex.join(theirs) if theirs else None,
                      "imgview_ms": round(hyperfine_ms(mine, args.runs), 1), "imgview_rss_mb": round(peak_rss_mb(mine), 1),
                      "chafa_ms": round(hyperfine_ms(theirs, args.runs), 1) if theirs else None,
                      "chafa_rss_mb": round(peak_rss_mb(theirs), 1) if theirs else None}
            speed.append(record)
            peer = f"chafa {record['chafa_ms']:7.1f} ms {record['chafa_rss_mb']:6.1f} MB" if theirs else "chafa cannot read it"
            print(f"speed {name:24} {record['format']:5} imgview {record['imgview_ms']:7.1f} ms {record['imgview_rss_mb']:6.1f} MB   {peer}",
                  flush=True)

    encoders = {"gif": "convert SRC -strip X.gif", "webp": "cwebp -q 90 SRC", "avif": "avifenc --speed 8 SRC",
                "bmp": "convert SRC -type TrueColor BMP3:X.bmp", "tiff": "convert SRC -compress lzw X.tif",
                "heic": "heif-enc -q 80 -t 320 PNG", "jxl": "cjxl PNG X.jxl -d 1", "svg": "the photograph as a data: URI",
                "qoi": "qoiconv PNG X.qoi", "ico": "convert SRC -resize 256x256 X.ico", "apng": "apngasm X.png PNG PNG"}
    result = {"size": args.size, "goal": GOAL, "goals": GOALS, "quality_images": quality_images, "quality": quality, "speed": speed,
              "encoders": {fmt: encoders[fmt] for fmt in formats},
              "large": [] if args.no_large else large(args.imgview, folder, cols, rows, max(3, min(args.runs, 5)))}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    for record in quality:
        print(f"{record['format']:5} {record['mode']:6} mean {record['mean_score']:.3f} vs original {record['mean_original']:.3f}: "
              f"{record['mean_delta']:+.3f} ({'within' if record['within_goal'] else 'NOT within'} {record['goal']})")
    failed = [r for r in quality if not r["within_goal"]]
    return 1 if failed and not args.json else 0


if __name__ == "__main__":
    sys.exit(main())
