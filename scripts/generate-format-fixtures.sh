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
#   coffee*    04_coffee.png at 96x64 (sRGB), and converted to Display P3 (DisplayP3.icc, made with
#              Little CMS: P3 primaries, D65, the sRGB curve) and to Adobe RGB (icc-profiles-free) with
#              the profile embedded, as JPEG (jpgicc), PNG (iCCP), WebP and TIFF: colour management's tests
#   camera-exif.jpg  photo.jpg with a camera's EXIF fields written by exiftool (make, model, lens,
#              date taken, exposure, f-number, ISO, focal length, a GPS position): `info`'s tests;
#              camera-exif.heic/.avif/.webp/.jxl: the same photo and EXIF through heif-enc, avifenc,
#              cwebp -metadata exif and cjxl (a Brotli-compressed `brob` box; camera-exif-plain.jxl
#              has a plain `Exif` box in its place)
#   coffee-cmyk.jpg  coffee.png converted to CMYK by ImageMagick through FOGRA39-test.icc (a press
#              profile ArgyllCMS's colprof makes from icc-profiles-free's FOGRA39L.ti3 measurements),
#              embedded, Adobe's inverted ink with its APP14 marker, written again by libjpeg as plain
#              CMYK; coffee-ycck.jpg the same ink coded as YCCK; coffee-cmyk-reference.png what
#              Pillow's Little CMS makes of coffee-cmyk.jpg in sRGB: the CMYK tests' reference
#   with a list of sections (gif webp avif bmp qoi ico apng tiff heic jxl svg photos colour camera cmyk), writes only those:
#   encoders are not byte-for-byte repeatable, so regenerating one format leaves the others as they are
# Attribution of the photographs: Tests/ImgviewCodecsTests/Fixtures/ATTRIBUTION.md.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-packages.sh imagemagick gifsicle webp libavif-bin python3 qoi apngasm libtiff-tools colord-data libheif-examples libjxl-tools liblcms2-utils icc-profiles-free libimage-exiftool-perl
sections=("$@")
wants() { [ ${#sections[@]} -eq 0 ] || [[ " ${sections[*]} " == *" $1 "* ]]; }

out=Tests/ImgviewCodecsTests/Fixtures
photos=${IMGVIEW_TESTDATA:-../shared/testdata}  # from a worktree elsewhere: IMGVIEW_TESTDATA=/path/to/shared/testdata
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
if wants gif; then
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
fi

# --- WebP --------------------------------------------------------------------------------------
if wants webp; then
cwebp -quiet -q 95 "$work/q.png" -o "$out/q-lossy.webp"
cwebp -quiet -lossless "$work/q.png" -o "$out/q-lossless.webp"
cwebp -quiet -q 95 -alpha_q 100 "$work/q-alpha.png" -o "$out/q-alpha.webp"
img2webp -loop 3 -lossless -d 100 "$work/q.png" -d 200 "$work/f2.png" -d 300 "$work/f3.png" -o "$out/anim.webp"
gif2webp -quiet "$out/dispose.gif" -o "$out/dispose.webp"
fi

# --- AVIF --------------------------------------------------------------------------------------
if wants avif; then
avif() { avifenc --speed 8 --yuv 444 --min 0 --max 8 --ignore-exif --ignore-xmp --ignore-icc "$@" > /dev/null; }
avif --depth 8 "$work/q.png" "$out/q-8bit.avif"
avif --depth 10 "$work/q.png" "$out/q-10bit.avif"
avif --depth 8 "$work/q-alpha.png" "$out/q-alpha.avif"
# Stored as the picture, shown turned a quarter anticlockwise: 12x16 upright.
avif --depth 8 --irot 1 "$work/q.png" "$out/q-irot.avif"
avif --depth 8 --fps 10 --duration 1 "$work/q.png" --duration 2 "$work/f2.png" --duration 3 "$work/f3.png" "$out/anim.avif"
fi

# --- BMP ---------------------------------------------------------------------------------------
if wants bmp; then
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
fi

# --- QOI ---------------------------------------------------------------------------------------
# qoiconv (the format's reference tool) keeps the PNG's channels: 3 for q.png, 4 for the others.
if wants qoi; then
qoiconv "$work/q.png" "$out/q.qoi"
qoiconv "$work/q-alpha.png" "$out/q-alpha.qoi"
qoiconv "$out/hopper.png" "$out/hopper.qoi"
# The same picture declaring colour space 1, "all channels linear" (byte 13 of the header).
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[13] = 1; open(sys.argv[2], "wb").write(d)' \
  "$out/q.qoi" "$out/q-linear.qoi"
fi

# --- ICO and CUR -------------------------------------------------------------------------------
# ImageMagick writes every picture as a 32-bit bitmap; the other kinds are written by hand:
#   q-png.ico      a 4x3 bitmap and the 16x12 picture as a PNG, whose directory entry says 0x0
#   q-4bit.ico     a 4-bit bitmap whose AND mask makes the blue half transparent
#   q.cur          the 32-bit picture as a cursor (type 2, hotspot 5,3)
#   hopper.ico     the photograph at 48, 32 and 16 pixels square (the largest is shown)
if wants ico; then
im "$work/q.png" "$out/q.ico"
im "$out/hopper.png" -gravity center -extent 64x64 -define icon:auto-resize=48,32,16 "$out/hopper.ico"
im "$work/q.png" -resize 4x3! "$work/small.png"
im "$work/small.png" "$work/small.ico"
python3 - "$out" "$work" <<'PYTHON'
import struct, sys
out, work = sys.argv[1], sys.argv[2]

def directory(kind, entries):
    """entries: (width, height, planes or hotspot x, bits or hotspot y, data)"""
    head = struct.pack("<HHH", 0, kind, len(entries))
    offset = 6 + 16 * len(entries)
    table, body = b"", b""
    for width, height, planes, bits, data in entries:
        table += struct.pack("<BBBBHHII", width % 256, height % 256, 0, 0, planes, bits, len(data), offset + len(body))
        body += data
    return head + table + body

def picture(ico):
    """The first picture's data in an ImageMagick icon."""
    size, offset = struct.unpack("<II", ico[14:22])
    return ico[offset:offset + size]

small = picture(open(f"{work}/small.ico", "rb").read())
png = open(f"{out}/rgb.png", "rb").read()
open(f"{out}/q-png.ico", "wb").write(directory(1, [(4, 3, 1, 32, small), (0, 0, 1, 32, png)]))

# 4 bits: index 0 red, 1 green, 2 blue; rows bottom-up, padded to 4 bytes; the AND mask sets the bottom half.
W, H = 16, 12
palette = bytes([0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0]) + bytes(4 * 13)
rows = b""
for y in reversed(range(H)):
    indices = [2 if y >= H // 2 else (0 if x < W // 2 else 1) for x in range(W)]
    rows += bytes(indices[x] << 4 | indices[x + 1] for x in range(0, W, 2))
mask = b""
for y in reversed(range(H)):
    mask += (b"\xff\xff" if y >= H // 2 else b"\x00\x00") + b"\x00\x00"
info = struct.pack("<IiiHHIIiiII", 40, W, 2 * H, 1, 4, 0, len(rows) + len(mask), 0, 0, 16, 0)
open(f"{out}/q-4bit.ico", "wb").write(directory(1, [(W, H, 1, 4, info + palette + rows + mask)]))

q = open(f"{out}/q.ico", "rb").read()
open(f"{out}/q.cur", "wb").write(directory(2, [(16, 12, 5, 3, picture(q))]))
PYTHON
fi

# --- APNG --------------------------------------------------------------------------------------
# anim.png: apngasm from the three frames of the other anim.* fixtures (delays from frameN.txt).
# dispose.png, written by hand (RGBA, one fdAT per frame): the picture (frame 0 is the default
# image), a white 4x4 square at (6,4) put back to the previous canvas afterwards, a black 4x4
# square at (0,0) cleared to transparent afterwards, a magenta pixel at (15,11), and a half
# transparent white 2x2 square at (12,0) blended over the green; plays 3 times.
# hidden.png: a magenta default image that is not part of its two-frame animation (the picture,
# then the picture turned one step), as APNG allows.
if wants apng; then
for frame in 1 2 3; do
  source="$work/f$frame.png"; [ "$frame" = 1 ] && source="$work/q.png"
  im "$source" -define png:exclude-chunks=gAMA,cHRM,bKGD,tIME PNG24:"$work/frame00$frame.png"
  echo "delay=$frame/10" > "$work/frame00$frame.txt"
done
apngasm "$out/anim.png" "$work/frame001.png" -kc -z0 > /dev/null
python3 - "$out" <<'PYTHON'
import struct, sys, zlib
out = sys.argv[1]
W, H = 16, 12
RED, GREEN, BLUE, WHITE, BLACK, MAGENTA = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255,) * 4, (0, 0, 0, 255), (255, 0, 255, 255)

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

def data(width, height, colour):
    """Compressed RGBA rows: colour(x, y) for each pixel."""
    raw = b"".join(b"\0" + b"".join(bytes(colour(x, y)) for x in range(width)) for y in range(height))
    return zlib.compress(raw, 9)

def quadrants(a, b, c):
    return lambda x, y: c if y >= H // 2 else (a if x < W // 2 else b)

class APNG:
    def __init__(self, frames, plays):
        self.body = chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0)) + chunk(b"acTL", struct.pack(">II", frames, plays))
        self.sequence = 0
    def control(self, width, height, x, y, delay, dispose, blend):
        self.body += chunk(b"fcTL", struct.pack(">IIIIIHHBB", self.sequence, width, height, x, y, delay, 10, dispose, blend))
        self.sequence += 1
    def image(self, compressed):
        self.body += chunk(b"IDAT", compressed)
    def frame(self, compressed):
        self.body += chunk(b"fdAT", struct.pack(">I", self.sequence) + compressed)
        self.sequence += 1
    def write(self, name):
        open(f"{out}/{name}", "wb").write(b"\x89PNG\r\n\x1a\n" + self.body + chunk(b"IEND", b""))

NONE, BACKGROUND, PREVIOUS, SOURCE, OVER = 0, 1, 2, 0, 1
a = APNG(5, 3)
a.control(W, H, 0, 0, 1, NONE, SOURCE)
a.image(data(W, H, quadrants(RED, GREEN, BLUE)))
a.control(4, 4, 6, 4, 1, PREVIOUS, SOURCE)
a.frame(data(4, 4, lambda x, y: WHITE))
a.control(4, 4, 0, 0, 1, BACKGROUND, SOURCE)
a.frame(data(4, 4, lambda x, y: BLACK))
a.control(1, 1, 15, 11, 1, NONE, OVER)
a.frame(data(1, 1, lambda x, y: MAGENTA))
a.control(2, 2, 12, 0, 1, NONE, OVER)
a.frame(data(2, 2, lambda x, y: (255, 255, 255, 128)))
a.write("dispose.png")

h = APNG(2, 0)
h.image(data(W, H, lambda x, y: MAGENTA))
h.control(W, H, 0, 0, 5, NONE, SOURCE)
h.frame(data(W, H, quadrants(RED, GREEN, BLUE)))
h.control(W, H, 0, 0, 5, NONE, SOURCE)
h.frame(data(W, H, quadrants(GREEN, BLUE, RED)))
h.write("hidden.png")
PYTHON
fi

# --- TIFF --------------------------------------------------------------------------------------
#   q.tif, q-lzw.tif, q-zip.tif  uncompressed, LZW and deflate strips (ImageMagick)
#   q-jpeg.tif     JPEG-in-TIFF, YCbCr (tiffcp); q-tiled.tif: 16x16 deflate tiles
#   q-alpha.tif    RGBA with unassociated alpha, the blue half transparent
#   q-orient6.tif  the picture stored as it is, tagged "rotated 90 degrees clockwise to view"
#   q-icc.tif      with an embedded ICC profile (colord's sRGB, so the colours stay true)
#   pages.tif      three pages: the picture, then turned one step, then two (tiffcp)
#   reduced.tif    pages.tif whose second directory is marked a reduced-resolution copy: two pages
#   hopper.tif     the photograph, LZW
if wants tiff; then
im "$work/q.png" -compress none "$out/q.tif"
im "$work/q.png" -compress lzw "$out/q-lzw.tif"
im "$work/q.png" -compress zip "$out/q-zip.tif"
tiffcp -c jpeg:90 "$out/q-lzw.tif" "$out/q-jpeg.tif"
tiffcp -t -w 16 -l 16 -c zip "$out/q-lzw.tif" "$out/q-tiled.tif"
im "$work/q-alpha.png" -compress lzw "$out/q-alpha.tif"
cp "$out/q-lzw.tif" "$out/q-orient6.tif"
tiffset -s Orientation 6 "$out/q-orient6.tif"
im "$work/q.png" -profile /usr/share/color/icc/colord/sRGB.icc -compress lzw "$out/q-icc.tif"
im "$work/f2.png" -compress lzw "$work/f2.tif"
im "$work/f3.png" -compress lzw "$work/f3.tif"
tiffcp "$out/q-lzw.tif" "$work/f2.tif" "$work/f3.tif" "$out/pages.tif"
cp "$out/pages.tif" "$out/reduced.tif"
tiffset -d 1 -s SubfileType 1 "$out/reduced.tif"
im "$out/hopper.png" -compress lzw "$out/hopper.tif"
fi

# --- HEIC --------------------------------------------------------------------------------------
# heif-enc (libheif with x265) at quality 90, and 80 for the photograph:
#   q-alpha.heic  the blue half transparent (an auxiliary alpha image)
#   q-icc.heic    with colord's sRGB profile, which heif-enc copies from the PNG into `colr`
#   pages.heic    two top-level images: the picture, then turned one step
#   thumb.heic    the photograph with a 26x32 thumbnail (-t 32), as cameras and phones write them
#   sequence.heic q.heic with a `moov` box after it, as a HEIF image sequence's still image has
#   cat.heic      03_chelsea_cat.png at 319x212, quality 50: large enough that a lying `ispe` shows
if wants heic; then
heif() { heif-enc "$@" > /dev/null; }
heif -q 90 "$work/q.png" -o "$out/q.heic"
heif -q 90 "$work/q-alpha.png" -o "$out/q-alpha.heic"
im "$work/q.png" -profile /usr/share/color/icc/colord/sRGB.icc PNG24:"$work/q-icc.png"  # heif-enc misreads palette PNGs with a profile
heif -q 90 "$work/q-icc.png" -o "$out/q-icc.heic"
im "$work/f2.png" PNG24:"$work/f2-truecolour.png"
heif -q 90 "$work/q.png" "$work/f2-truecolour.png" -o "$out/pages.heic"
heif -q 80 "$out/hopper.png" -o "$out/hopper.heic"
heif -q 80 -t 32 "$out/hopper.png" -o "$out/thumb.heic"
im "$photos/03_chelsea_cat.png" -resize 320x212 PNG24:"$work/cat-truecolour.png"
heif -q 50 "$work/cat-truecolour.png" -o "$out/cat.heic"
python3 -c 'import sys; open(sys.argv[2], "wb").write(open(sys.argv[1], "rb").read() + b"\0\0\0\x10moov\0\0\0\x08free")' \
  "$out/q.heic" "$out/sequence.heic"
fi

# --- JPEG XL -----------------------------------------------------------------------------------
# cjxl (libjxl 0.7), from PNGs without gAMA/cHRM (cjxl would keep ImageMagick's gamma 0.45455 as
# the colour space):
#   q.jxl, q-alpha.jxl  lossless (modular); q-lossy.jxl: VarDCT at distance 1, in XYB
#   q-orient6.jxl  orient6.jpg recompressed (its EXIF orientation 6 kept in the codestream)
#   q-adobe.jxl    lossless, tagged with colord's Adobe RGB (1998) profile (values not converted)
#   anim.jxl       anim.png, three frames of 100, 200 and 300 ms
#   hopper.jxl     the photograph, VarDCT at distance 1
#   cat.jxl        03_chelsea_cat.png at 319x212, VarDCT at distance 1: large enough for several
#                  groups, so a cut file still has a picture to render
if wants jxl; then
jxl() { cjxl "$@" > /dev/null 2>&1; }
plain() { im "$1" -define png:exclude-chunks=gAMA,cHRM,bKGD,tIME "PNG${3:-24}:$2"; }
plain "$work/q-alpha.png" "$work/q-alpha-plain.png" 32
plain "$out/hopper.png" "$work/hopper-plain.png"
im "$work/q.png" -profile /usr/share/color/icc/colord/AdobeRGB1998.icc PNG24:"$work/q-adobe.png"
jxl "$work/q.png" "$out/q.jxl" -d 0
jxl "$work/q-alpha-plain.png" "$out/q-alpha.jxl" -d 0
jxl "$work/q.png" "$out/q-lossy.jxl" -d 1
jxl "$out/orient6.jpg" "$out/q-orient6.jxl"
jxl "$work/q-adobe.png" "$out/q-adobe.jxl" -d 0
jxl "$out/anim.png" "$out/anim.jxl" -d 0
jxl "$work/hopper-plain.png" "$out/hopper.jxl" -d 1
im "$photos/03_chelsea_cat.png" -resize 320x212 "$work/cat.png"
plain "$work/cat.png" "$work/cat-plain.png"
jxl "$work/cat-plain.png" "$out/cat.jxl" -d 1
fi

# --- SVG ---------------------------------------------------------------------------------------
# Written by hand: the picture as three rectangles at 16x12 (q.svg; q-alpha.svg without the blue
# half), the same with only a viewBox of 32x24 (no size of its own), and a line of text.
if wants svg; then
rects='<rect width="8" height="6" fill="#f00"/><rect x="8" width="8" height="6" fill="#0f0"/>'
cat > "$out/q.svg" <<SVG
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="16" height="12" viewBox="0 0 16 12">$rects<rect y="6" width="16" height="6" fill="#00f"/></svg>
SVG
cat > "$out/q-alpha.svg" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" width="16" height="12">$rects</svg>
SVG
cat > "$out/q-viewbox.svg" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 24"><g transform="scale(2)">$rects<rect y="6" width="16" height="6" fill="#00f"/></g></svg>
SVG
cat > "$out/text.svg" <<SVG
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="30"><rect width="120" height="30" fill="#fff"/><text x="4" y="22" font-family="DejaVu Sans" font-size="20" fill="#000">imgview</text></svg>
SVG
fi

# --- Photographs -------------------------------------------------------------------------------
if wants photos; then
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
fi

# --- Colour: one photograph in three colour spaces, each with its profile ---------------------
if wants colour; then
im "$photos/04_coffee.png" -resize 96x64^ -gravity center -extent 96x64 -strip "$out/coffee.png"
im "$out/coffee.png" -quality 95 "$work/coffee.ppm"
cjpeg -quality 95 "$work/coffee.ppm" > "$work/coffee.jpg"
jpgicc -e -q 95 -o Tests/ImgviewCodecsTests/Fixtures/DisplayP3.icc "$work/coffee.jpg" "$out/coffee-p3.jpg"
jpgicc -e -q 95 -o /usr/share/color/icc/compatibleWithAdobeRGB1998.icc "$work/coffee.jpg" "$out/coffee-adobe.jpg"
im "$out/coffee.png" -profile /usr/share/color/icc/colord/sRGB.icc -profile "$out/DisplayP3.icc" "$out/coffee-p3.png"
cwebp -quiet -q 95 -metadata icc "$out/coffee-p3.jpg" -o "$out/coffee-p3.webp"
tificc -e -o /usr/share/color/icc/compatibleWithAdobeRGB1998.icc "$(im "$out/coffee.png" -type TrueColor "$work/coffee.tif" && echo "$work/coffee.tif")" "$out/coffee-adobe.tif"
fi

# --- Camera: the EXIF fields info shows --------------------------------------------------------
if wants camera; then
cp "$out/photo.jpg" "$out/camera-exif.jpg"
exiftool -q -overwrite_original -Make="Canon" -Model="Canon EOS 5D Mark IV" -LensModel="EF24-105mm f/4L IS USM" \
  -DateTimeOriginal="2019:05:04 12:30:05" -ExposureTime=0.004 -FNumber=2.8 -ISO=400 -FocalLength=50 \
  -GPSLatitude=48.8566 -GPSLatitudeRef=N -GPSLongitude=2.3522 -GPSLongitudeRef=E "$out/camera-exif.jpg"
heif-enc -q 50 "$out/camera-exif.jpg" -o "$out/camera-exif.heic" > /dev/null
avifenc --speed 8 "$out/camera-exif.jpg" "$out/camera-exif.avif" > /dev/null
cwebp -quiet -q 80 -metadata exif "$out/camera-exif.jpg" -o "$out/camera-exif.webp"
cjxl "$out/camera-exif.jpg" "$out/camera-exif.jxl" > /dev/null 2>&1
# cjxl 0.7 always compresses the EXIF box; the plain `Exif` box (a 32-bit offset of 0, then the
# JPEG's TIFF structure) takes its place here.
python3 - "$out" <<'PYTHON'
import struct, sys
out = sys.argv[1]
jpeg = open(f"{out}/camera-exif.jpg", "rb").read()
at = jpeg.index(b"Exif\0\0")
length = struct.unpack(">H", jpeg[at - 2:at])[0]
tiff = jpeg[at + 6:at - 2 + length]
jxl, boxes, offset = open(f"{out}/camera-exif.jxl", "rb").read(), b"", 0
while offset < len(jxl):
    size, kind = struct.unpack(">I4s", jxl[offset:offset + 8])
    box = jxl[offset:offset + size]
    if kind == b"brob" and box[8:12] == b"Exif":
        box = struct.pack(">I4sI", 12 + len(tiff), b"Exif", 0) + tiff
    boxes += box
    offset += size
open(f"{out}/camera-exif-plain.jxl", "wb").write(boxes)
PYTHON
fi

# --- CMYK: a print file's ink, converted through its own profile -------------------------------
if wants cmyk; then
scripts/install-packages.sh argyll
cp /usr/share/color/icc/FOGRA39L.ti3 "$work/FOGRA39-test.ti3"
(cd "$work" && colprof -ql -D "FOGRA39 (imgview test)" -C "Zlib licence: from icc-profiles-free's FOGRA39L.ti3" FOGRA39-test > /dev/null)
cp "$work/FOGRA39-test.icc" "$out/FOGRA39-test.icc"
# ImageMagick writes CMYK as YCCK (Adobe transform 2); libjpeg re-encodes that ink as each of the two.
im "$out/coffee.png" -profile /usr/share/color/icc/colord/sRGB.icc -profile "$out/FOGRA39-test.icc" -quality 95 "$work/coffee-ink.jpg"
cat > "$work/recode.c" <<'C'
/* recode IN OUT cmyk|ycck: a CMYK JPEG's ink written again as plain CMYK or as YCCK, at quality
   95, with its ICC profile and libjpeg's Adobe marker (inverted ink, as the input's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
int main(int argc, char **argv) {
    if (argc != 4) return 2;
    FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
    if (!in || !out) return 1;
    struct jpeg_decompress_struct d;
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr readErrors, writeErrors;
    d.err = jpeg_std_error(&readErrors);
    jpeg_create_decompress(&d);
    jpeg_stdio_src(&d, in);
    jpeg_save_markers(&d, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&d, TRUE);
    d.out_color_space = JCS_CMYK;
    jpeg_start_decompress(&d);
    c.err = jpeg_std_error(&writeErrors);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, out);
    c.image_width = d.output_width;
    c.image_height = d.output_height;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_set_colorspace(&c, strcmp(argv[3], "ycck") == 0 ? JCS_YCCK : JCS_CMYK);
    jpeg_set_quality(&c, 95, TRUE);
    jpeg_start_compress(&c, TRUE);
    JOCTET *icc;
    unsigned int length;
    if (jpeg_read_icc_profile(&d, &icc, &length)) {
        jpeg_write_icc_profile(&c, icc, length);
        free(icc);
    }
    JSAMPROW row = malloc(d.output_width * 4);
    while (d.output_scanline < d.output_height) {
        jpeg_read_scanlines(&d, &row, 1);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_finish_decompress(&d);
    return fclose(out) != 0;
}
C
cc -O2 -o "$work/recode" "$work/recode.c" -ljpeg
"$work/recode" "$work/coffee-ink.jpg" "$out/coffee-cmyk.jpg" cmyk
"$work/recode" "$work/coffee-ink.jpg" "$out/coffee-ycck.jpg" ycck
python3 - "$out" <<'PYTHON'
import io, sys
from PIL import Image, ImageCms
out = sys.argv[1]
cmyk = Image.open(f"{out}/coffee-cmyk.jpg")
assert cmyk.mode == "CMYK", cmyk.mode
profile = ImageCms.ImageCmsProfile(io.BytesIO(cmyk.info["icc_profile"]))
srgb = ImageCms.profileToProfile(cmyk, profile, ImageCms.createProfile("sRGB"), renderingIntent=0, outputMode="RGB")
srgb.save(f"{out}/coffee-cmyk-reference.png")
PYTHON
fi

ls -l "$out" | awk '{ total += $5 } END { print "fixtures: " total " bytes" }'
