#!/usr/bin/env bash
# Writes the GIF, WebP, AVIF and BMP fixtures in Tests/ImgviewCodecsTests/Fixtures with Debian's
# own encoders (ImageMagick, gifsicle, cwebp/img2webp/gif2webp, avifenc), so every decoder is
# tested on files real tools write. Run from anywhere: scripts/generate-format-fixtures.sh
#
#   q-*        the 16x12 picture every fixture shows (rgb.png, from generate-test-fixtures.py):
#              top-left red, top-right green, bottom blue; "alpha"/"transparent" ones have the
#              blue half transparent
#   anim.*     three frames of that picture with its colours turned one step each time
#              (red, green, blue -> green, blue, red -> blue, red, green), shown 100, 200, 300 ms
#   dispose.*  frames drawn in part over the picture with each GIF disposal method
#   hopper.*   01_grace_hopper.jpg from ../shared/testdata at 64x75, and hopper.png to compare with
#   slideshow.* three testdata photographs at 48x36, 500 ms each: the animation snapshot tests
# Attribution of the photographs: Tests/ImgviewCodecsTests/Fixtures/ATTRIBUTION.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-packages.sh imagemagick gifsicle webp libavif-bin python3

out=Tests/ImgviewCodecsTests/Fixtures
photos=../shared/testdata
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# ImageMagick 6 writes a timestamp into PNG and nothing else varies between runs.
im() { convert "$@"; }

# --- The quadrant picture, its transparent variant and the animation frames --------------------
cp "$out/rgb.png" "$work/q.png"
im "$work/q.png" -transparent blue PNG32:"$work/q-alpha.png"
# One step: red -> green, green -> blue, blue -> red (#010101 holds red while the others move).
turn() { im "$1" -fill '#010101' -opaque red -fill red -opaque blue -fill blue -opaque lime -fill lime -opaque '#010101' "$2"; }
turn "$work/q.png" "$work/f2.png"
turn "$work/f2.png" "$work/f3.png"
im -size 4x4 xc:white "$work/white.gif"
im -size 4x4 xc:black "$work/black.gif"
im -size 1x1 xc:magenta "$work/magenta.gif"

# --- GIF ---------------------------------------------------------------------------------------
im "$work/q.png" "$out/q.gif"
gifsicle --interlace "$out/q.gif" > "$out/q-interlaced.gif"
im "$work/q-alpha.png" "$out/q-transparent.gif"
# gifsicle -O2 stores frames 2 and 3 as the rectangles that change, with transparency.
im -delay 10 "$work/q.png" -delay 20 "$work/f2.png" -delay 30 "$work/f3.png" -loop 0 "$work/anim.gif"
gifsicle -O2 "$work/anim.gif" > "$out/anim.gif"
# Frame 2: a white square at (6,4), then restored to the previous canvas; frame 3: a black square
# at (0,0), then cleared to the background (transparent); frame 4: a magenta pixel at (15,11).
im "$work/q.png" "$work/q.gif"
gifsicle --loopcount=2 --delay 10 "$work/q.gif" --disposal previous --position 6,4 "$work/white.gif" \
  --disposal background --position 0,0 "$work/black.gif" --disposal none --position 15,11 "$work/magenta.gif" \
  > "$work/dispose.gif"
# The frames must keep the screen size of the first one.
gifsicle --logical-screen 16x12 "$work/dispose.gif" > "$out/dispose.gif"

# --- WebP --------------------------------------------------------------------------------------
cwebp -quiet -q 95 "$work/q.png" -o "$out/q-lossy.webp"
cwebp -quiet -lossless "$work/q.png" -o "$out/q-lossless.webp"
cwebp -quiet -q 95 -alpha_q 100 "$work/q-alpha.png" -o "$out/q-alpha.webp"
img2webp -loop 3 -lossless -d 100 "$work/q.png" -d 200 "$work/f2.png" -d 300 "$work/f3.png" -o "$out/anim.webp"
gif2webp -quiet "$out/dispose.gif" -o "$out/dispose.webp"

# --- AVIF --------------------------------------------------------------------------------------
avif() { avifenc --speed 8 --yuv 444 --min 0 --max 8 --ignore-exif --ignore-xmp --ignore-icc "$@" > /dev/null; }
avif --depth 8 "$work/q.png" "$out/q-8bit.avif"
avif --depth 10 "$work/q.png" "$out/q-10bit.avif"
avif --depth 8 "$work/q-alpha.png" "$out/q-alpha.avif"
# Stored as the picture, shown turned a quarter anticlockwise: 12x16 upright.
avif --depth 8 --irot 1 "$work/q.png" "$out/q-irot.avif"
avif --depth 8 --fps 10 --duration 1 "$work/q.png" --duration 2 "$work/f2.png" --duration 3 "$work/f3.png" "$out/anim.avif"

# --- BMP ---------------------------------------------------------------------------------------
im "$work/q.png" -type TrueColor BMP3:"$out/q-24.bmp"
im "$work/q-alpha.png" BMP:"$out/q-32-alpha.bmp"   # 32 bits, BITFIELDS with an alpha mask (V5 header)
im "$work/q.png" -define bmp:subtype=RGB565 BMP:"$out/q-16.bmp"
im "$work/q.png" -type Palette BMP3:"$out/q-4.bmp"  # four colours: a 4-bit palette
im "$work/q.png" -type Palette -compress RLE BMP3:"$out/q-rle8.bmp"
# What ImageMagick does not write: the 24-bit file stored top row first (negative height), and
# 32-bit BI_RGB whose fourth byte is zero padding (as Windows writes it: opaque, not transparent).
python3 - "$out" <<'EOF'
import struct, sys
out = sys.argv[1]
data = open(f"{out}/q-24.bmp", "rb").read()
offset = struct.unpack("<I", data[10:14])[0]
width, height = struct.unpack("<ii", data[18:26])
stride = (width * 3 + 3) // 4 * 4
rows = [data[offset + r * stride: offset + (r + 1) * stride] for r in range(height)]
header = bytearray(data[:offset])
header[22:26] = struct.pack("<i", -height)
open(f"{out}/q-24-topdown.bmp", "wb").write(bytes(header) + b"".join(reversed(rows)))
pixels = b"".join(bytes(row[x * 3:x * 3 + 3]) + b"\0" for row in rows for x in range(width))
info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 32, 0, len(pixels), 2835, 2835, 0, 0)
open(f"{out}/q-32-padding.bmp", "wb").write(b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) + info + pixels)
EOF

# --- Formats imgview recognises but does not decode (their sizes are read from the header) -------
im "$work/q.png" -compress none "$out/q.tif"
im "$work/q.png" "$out/q.ico"

# --- Photographs -------------------------------------------------------------------------------
im "$photos/01_grace_hopper.jpg" -resize 64x75! "$out/hopper.png"
im "$out/hopper.png" "$out/hopper.gif"
im "$out/hopper.png" -colors 200 -type Palette BMP3:"$out/hopper-8.bmp"
cwebp -quiet -q 90 "$out/hopper.png" -o "$out/hopper.webp"
avif --depth 8 "$out/hopper.png" "$out/hopper.avif"
for photo in 01_grace_hopper.jpg 03_chelsea_cat.png 04_coffee.png; do
  im "$photos/$photo" -resize 48x36^ -gravity center -extent 48x36 "$work/${photo%.*}.png"
done
slides=("$work/01_grace_hopper.png" "$work/03_chelsea_cat.png" "$work/04_coffee.png")
im -delay 50 "${slides[@]}" -loop 0 "$work/slideshow.gif"
gifsicle -O2 "$work/slideshow.gif" > "$out/slideshow.gif"
img2webp -loop 0 -lossy -q 80 -d 500 "${slides[@]}" -o "$out/slideshow.webp"
avif --fps 2 "${slides[@]}" "$out/slideshow.avif"
ls -l "$out" | awk '{ total += $5 } END { print "fixtures: " total " bytes" }'
