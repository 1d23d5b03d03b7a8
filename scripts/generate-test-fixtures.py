#!/usr/bin/env python3
"""Writes the small images in Tests/ImgviewCodecsTests/Fixtures.

Every fixture shows the same 16x12 picture, so one check fits all: the top-left quadrant
red, the top-right green, the bottom half blue. PNG variants are written by hand (Pillow
cannot write interlaced or every colour type); JPEGs by Pillow. Run from the repository
root: python3 scripts/generate-test-fixtures.py  (needs numpy and Pillow). With --photos it
writes only the photo fixtures for progressive and partial decoding (from the bundled images
in Assets/images, see Assets/ATTRIBUTION.md).
"""
import sys
import struct
import zlib

import numpy as np
from PIL import Image

OUT = "Tests/ImgviewCodecsTests/Fixtures/"
W, H = 16, 12
RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)


def picture():
    a = np.zeros((H, W, 3), np.uint8)
    a[:, :] = BLUE
    a[:H // 2, :W // 2] = RED
    a[:H // 2, W // 2:] = GREEN
    return a


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png(name, pixels, color_type, depth=8, palette=None, trns=None, interlace=False, width=W, height=H):
    """pixels: HxWxC array of samples already in the file's representation."""
    def rows(img):
        raw = b""
        for row in img:
            raw += b"\0" + (row.astype(">u2").tobytes() if depth == 16 else row.astype(np.uint8).tobytes())
        return raw
    if interlace:
        data = b""
        for x0, y0, dx, dy in ADAM7:
            sub = pixels[y0::dy, x0::dx]
            if sub.size:
                data += rows(sub)
    else:
        data = rows(pixels)
    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color_type, 0, 0, 1 if interlace else 0))
    if palette is not None:
        out += chunk(b"PLTE", bytes(v for c in palette for v in c))
    if trns is not None:
        out += chunk(b"tRNS", trns)
    # Split the data over 4 KB IDAT chunks as encoders do, so a cut file still has whole chunks.
    compressed = zlib.compress(data, 9)
    for start in range(0, len(compressed), 4096):
        out += chunk(b"IDAT", compressed[start:start + 4096])
    out += chunk(b"IEND", b"")
    open(OUT + name, "wb").write(out)


def photos():
    """Real photographs, small: progressive and baseline JPEGs, interlaced and plain PNGs."""
    cat = Image.open("Assets/images/03_chelsea_cat.png").convert("RGB").resize((226, 150), Image.LANCZOS)
    cat.save(OUT + "cat-progressive.jpg", quality=85, progressive=True)
    cat.save(OUT + "cat-progressive-444.jpg", quality=85, progressive=True, subsampling=0)
    cat.save(OUT + "cat-baseline.jpg", quality=85)
    camera = Image.open("Assets/images/05_camera_gray.png").convert("L").resize((256, 256), Image.LANCZOS)
    camera.save(OUT + "camera-progressive.jpg", quality=85, progressive=True)
    pixels = np.asarray(cat)
    png("cat-interlaced.png", pixels, 2, interlace=True, width=226, height=150)
    png("cat-plain.png", pixels, 2, width=226, height=150)


if "--photos" in sys.argv:
    photos()
    print("ok")
    sys.exit(0)

p = picture()
png("rgb.png", p, 2)
png("interlaced.png", p, 2, interlace=True)
# 16-bit RGBA, fully opaque, values spread over 16 bits.
png("rgba16.png", np.concatenate([p.astype(np.uint16) * 257, np.full((H, W, 1), 65535, np.uint16)], axis=2), 6, depth=16)
# Palette: index 0 red, 1 green, 2 blue; plus a tRNS chunk making blue fully transparent.
idx = np.zeros((H, W, 1), np.uint8)
idx[:, :] = 2
idx[:H // 2, :W // 2] = 0
idx[:H // 2, W // 2:] = 1
png("palette.png", idx, 3, palette=[RED, GREEN, BLUE])
png("palette-trns.png", idx, 3, palette=[RED, GREEN, BLUE], trns=bytes([255, 255, 0]))
# RGB with a tRNS colour key: pure blue is transparent.
png("rgb-trns.png", p, 2, trns=struct.pack(">HHH", 0, 0, 255))
# Grey 16-bit: a left-to-right ramp. Grey + alpha: white, left half opaque, right half transparent.
png("gray16.png", np.tile(np.linspace(0, 65535, W).astype(np.uint16), (H, 1))[..., None], 0, depth=16)
ga = np.zeros((H, W, 2), np.uint8)
ga[..., 0] = 255
ga[:, :W // 2, 1] = 255
png("gray-alpha.png", ga, 4)
# A decompression bomb: 100000 x 100000 declared, a few bytes of data.
png("bomb.png", np.zeros((1, 1, 1), np.uint8), 0, width=100000, height=100000)

img = Image.fromarray(p)
img.save(OUT + "rgb.jpg", quality=95, subsampling=0)
img.convert("CMYK").save(OUT + "cmyk.jpg", quality=95)
Image.fromarray(np.tile(np.linspace(0, 255, W).astype(np.uint8), (H, 1)), "L").save(OUT + "gray.jpg", quality=95)
# The same upright picture stored under each EXIF orientation.
inverse = {1: None, 2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
           4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_90,
           7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_270}
for orientation, method in inverse.items():
    stored = img if method is None else img.transpose(method)
    exif = Image.Exif()
    exif[0x0112] = orientation
    stored.save(OUT + f"orient{orientation}.jpg", quality=95, subsampling=0, exif=exif.tobytes())
# A larger photo-like JPEG and PNG to cut short in the truncation tests.
rng = np.random.default_rng(4)
yy, xx = np.mgrid[0:96, 0:128]
big = np.stack([xx * 2, yy * 2, (xx + yy)], axis=-1).astype(np.uint8) + rng.integers(0, 40, (96, 128, 3)).astype(np.uint8)
Image.fromarray(big).save(OUT + "photo.jpg", quality=90)
png("photo.png", big, 2, width=128, height=96)
# A JPEG whose frame header claims 65000 x 65000.
data = bytearray(open(OUT + "rgb.jpg", "rb").read())
sof = data.index(b"\xff\xc0")
data[sof + 5:sof + 9] = struct.pack(">HH", 65000, 65000)
open(OUT + "bomb.jpg", "wb").write(bytes(data))
photos()
print("ok")
