#!/usr/bin/env python3
"""Small files that once made imgview's decoders take hundreds of megabytes (issue 26).

Each is what a hostile server could send: a few kilobytes declaring a huge canvas, many frames,
or a whole-image decode. The tests (DecoderMemoryCommandTests, through HostileImages) and
bench/bench_hardening.py make them here, so both measure the same bytes.

  memory_images.py FOLDER [NAME...]   writes the files (every one by default), one name a line

Every file but the AVIF is written byte by byte; the AVIF needs avifenc (libavif-bin).
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib


class Bits:
    """Bits written least significant first, as VP8L reads them."""

    def __init__(self):
        self.value = 0
        self.count = 0

    def put(self, value, count):
        self.value |= (value & ((1 << count) - 1)) << self.count
        self.count += count

    def bytes(self):
        return self.value.to_bytes((self.count + 7) // 8, "little")


def vp8l(width, height, argb=(255, 40, 120, 200)):
    """A lossless WebP bitstream of one colour: every prefix code has one symbol, so the pixels
    take no bits at all and any size is a few bytes (libwebp still decodes the whole image)."""
    alpha, red, green, blue = argb
    bits = Bits()
    bits.put(0x2F, 8)
    bits.put(width - 1, 14)
    bits.put(height - 1, 14)
    bits.put(1 if alpha != 255 else 0, 1)
    bits.put(0, 3)  # version
    bits.put(0, 1)  # no transform
    bits.put(0, 1)  # no colour cache
    bits.put(0, 1)  # no meta prefix codes
    for symbol in (green, red, blue, alpha, 0):  # the last is the distance code
        bits.put(1, 1)  # a simple code
        bits.put(0, 1)  # of one symbol
        bits.put(1, 1)  # written in 8 bits
        bits.put(symbol, 8)
    return bits.bytes()


def chunk(kind, body):
    """A RIFF chunk, padded to an even length."""
    return kind + struct.pack("<I", len(body)) + body + (b"\0" if len(body) % 2 else b"")


def riff_webp(chunks):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def u24(value):
    return struct.pack("<I", value)[:3]


def webp_lossless(width=16383, height=6000):
    """A still lossless WebP: libwebp's VP8L decoder holds all width × height pixels."""
    return riff_webp([chunk(b"VP8L", vp8l(width, height))])


def webp_animation(side=10000, frames=5000):
    """An animated WebP whose canvas is side × side, with `frames` frames of one pixel each."""
    flags = 0x02  # animation
    vp8x = bytes([flags, 0, 0, 0]) + u24(side - 1) + u24(side - 1)
    anim = struct.pack("<IH", 0, 0)
    pixel = chunk(b"VP8L", vp8l(1, 1))
    body = [chunk(b"VP8X", vp8x), chunk(b"ANIM", anim)]
    for index in range(frames):
        # Offsets are stored halved; the frames walk down the canvas's diagonal.
        offset = (index * 2) % side // 2
        header = u24(offset) + u24(offset) + u24(0) + u24(0) + u24(100) + bytes([0])
        body.append(chunk(b"ANMF", header + pixel))
    return riff_webp(body)


def gif(width, height, frames, frame_size=1, delay=10):
    """A GIF of a width × height screen holding `frames` frames of frame_size² pixels (one colour)."""
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0x80, 0, 0)  # a global table of two colours
    out += bytes([200, 60, 30, 20, 90, 220])
    if frames > 1:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
    # One frame's pixels, all index 0, uncompressed LZW: a clear code before every two pixels
    # keeps the codes 3 bits wide (clear 4, end 5), packed least significant bit first.
    count = frame_size * frame_size
    codes = []
    for start in range(0, count, 2):
        codes.append(4)
        codes += [0] * min(2, count - start)
    codes.append(5)
    bits = Bits()
    for code in codes:
        bits.put(code, 3)
    data = bits.bytes()
    blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255)) + b"\0"
    for index in range(frames):
        left = (index * frame_size) % max(1, width - frame_size + 1)
        top = (index * frame_size) // max(1, width - frame_size + 1) * frame_size % max(1, height - frame_size + 1)
        out += b"\x21\xF9\x04" + struct.pack("<BHB", 0, delay, 0) + b"\0"
        out += b"\x2C" + struct.pack("<HHHHB", left, top, frame_size, frame_size, 0)
        out += b"\x02" + blocks
    out += b"\x3B"
    return bytes(out)


def gif_canvas(side=10000):
    """A GIF whose screen is side × side, with two one-pixel frames."""
    return gif(side, side, 2)


def gif_frames(side=1000, frames=10000):
    """A GIF of `frames` one-pixel frames on a side × side screen."""
    return gif(side, side, frames)


def bmp_rle8(side=10000):
    """An RLE8 bitmap declaring side × side in about a kilobyte: a run, then a jump of 250 rows."""
    palette = bytes([30, 60, 200, 0, 200, 120, 40, 0])
    data = bytearray()
    row = 0
    while row < side:
        data += bytes([255, 1, 0, 2, 0, 250])  # 255 pixels of colour 1, then 250 rows up
        row += 250
    data += b"\0\1"  # end of bitmap
    info = struct.pack("<IiiHHIIiiII", 40, side, side, 1, 8, 1, len(data), 2835, 2835, 2, 0)
    offset = 14 + len(info) + len(palette)
    head = b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset)
    return head + info + palette + bytes(data)


def png(width, height, grey=128):
    """A grey PNG of one colour, compressed fast (avifenc's input)."""
    line = b"\0" + bytes([grey]) * width
    compressor = zlib.compressobj(9)
    data = b"".join(compressor.compress(line) for _ in range(height)) + compressor.flush()

    def png_chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + png_chunk(b"IDAT", data) + png_chunk(b"IEND", b""))


def avif(side=8000):
    """An AVIF still of side × side (4:2:0, one grey), encoded by avifenc at its fastest."""
    with tempfile.TemporaryDirectory(prefix="imgview-memory-images-") as folder:
        source = os.path.join(folder, "grey.png")
        target = os.path.join(folder, "grey.avif")
        with open(source, "wb") as f:
            f.write(png(side, side))
        subprocess.run(["avifenc", "--speed", "10", "--yuv", "420", "--jobs", "1", source, target],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(target, "rb") as f:
            return f.read()


def gradient_png(width=4000, height=3000):
    """A 12 MP photo-sized PNG: a smooth colour gradient, with a few rows of another one."""
    reds = bytes(x * 255 // width for x in range(width))
    compressor = zlib.compressobj(1)
    chunks = []
    for y in range(height):
        line = bytearray(3 * width)
        line[0::3] = reds
        line[1::3] = bytes([y * 255 // height]) * width
        line[2::3] = bytes([(x + y) * 255 // (width + height) for x in range(0, width)]) if y % 500 == 0 else line[1::3]
        chunks.append(compressor.compress(b"\0" + bytes(line)))
    data = b"".join(chunks) + compressor.flush()

    def png_chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + png_chunk(b"IDAT", data) + png_chunk(b"IEND", b""))


def encoded_gradient(command, suffix):
    """The 12 MP gradient encoded by `command` (its arguments, then the source and target paths)."""
    with tempfile.TemporaryDirectory(prefix="imgview-memory-images-") as folder:
        source = os.path.join(folder, "gradient.png")
        target = os.path.join(folder, "gradient" + suffix)
        with open(source, "wb") as f:
            f.write(gradient_png())
        subprocess.run(command(source, target), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(target, "rb") as f:
            return f.read()


def heic_photo():
    """A 12 MP HEIC as a phone's is stored (8-bit 4:2:0, one HEVC stream): the gradient,
    encoded by heif-enc (libheif-examples) at x265's fastest preset."""
    return encoded_gradient(lambda source, target: ["heif-enc", "-q", "80", "-p", "preset=ultrafast", source, "-o", target],
                            ".heic")


def jxl_photo():
    """A 12 MP JPEG XL (lossy, VarDCT, as cjxl makes by default): the gradient, at a low effort."""
    return encoded_gradient(lambda source, target: ["cjxl", "-d", "1", "-e", "3", source, target], ".jxl")


def photo_rows(width, height, channels=3):
    """Rows of a photo-like picture, top first: a gradient under noise, shifted and tinted from
    row to row, so that no row repeats and deflate finds little to take out."""
    length = width * channels
    pool = bytes(((x // channels) * 200 // width + (x % channels) * 40 + (x * 2654435761 >> 13) % 41) & 0xFF
                 for x in range(length + 4096))
    tints = [bytes((value + tint) & 0xFF for value in range(256)) for tint in range(41)]
    for y in range(height):
        shift = (y * 97) % 4096
        yield pool[shift:shift + length].translate(tints[y * 40 // height])


def bmp_photo(width=6000, height=4000):
    """An uncompressed 24-bit bitmap, bottom-up as most are: 72 MB at 6000×4000 (a 24 MP photo
    saved as BMP), read by imgview row by row."""
    row_length = (width * 3 + 3) // 4 * 4
    rows = list(photo_rows(width, height))
    pixels = b"".join(row + b"\0" * (row_length - width * 3) for row in reversed(rows))
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    offset = 14 + len(info)
    return b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + info + pixels


def png_photo_stored(width=8000, height=5000):
    """An RGB PNG whose deflate stores the rows as they are (level 0): 120 MB at 8000×5000, the
    size of a photo's noise that deflate cannot shrink, quick to write and to read."""
    compressor = zlib.compressobj(0)
    data = b"".join(compressor.compress(b"\0" + row) for row in photo_rows(width, height)) + compressor.flush()

    def png_chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    idat = b"".join(png_chunk(b"IDAT", data[i:i + (1 << 20)]) for i in range(0, len(data), 1 << 20))
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + idat + png_chunk(b"IEND", b""))


def jpeg_progressive(width=6000, height=4000):
    """A progressive JPEG of a 24 MP photo's size (4:2:0): libjpeg keeps its 72 MB of coefficients
    until the last scan. Encoded by cjpeg (libjpeg-turbo-progs) from the photo-like rows."""
    with tempfile.TemporaryDirectory(prefix="imgview-memory-images-") as folder:
        source = os.path.join(folder, "photo.ppm")
        with open(source, "wb") as f:
            f.write(b"P6 %d %d 255\n" % (width, height))
            for row in photo_rows(width, height):
                f.write(row)
        out = subprocess.run(["cjpeg", "-progressive", "-quality", "85", source], check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        return out.stdout


# Each file by the name the tests and the bench give it, with what it once cost (issue 26).
IMAGES = {
    "webp-animation-10000-square-5000-frames.webp": webp_animation,
    "bmp-rle8-10000-square.bmp": bmp_rle8,
    "avif-8000-square.avif": avif,
    "gif-10000-square.gif": gif_canvas,
    "webp-lossless-16383x6000.webp": webp_lossless,
    "gif-10000-frames.gif": gif_frames,
    "heic-12mp-photo.heic": heic_photo,
    "jxl-12mp-photo.jxl": jxl_photo,
    # Full screen (240×67) once took these past 100 MB: the output at twice the box beside the
    # library's full-size buffers, or sums for every output pixel (DECISIONS.md, "One row of
    # sums"). The 5656² AVIF and the 4242² WebP are the largest the 72 MB admit (the bench's;
    # the debug binary the tests run holds 16 MB more than the release one, too much for them).
    "avif-5656-square.avif": lambda: avif(5656),
    "avif-4600-square.avif": lambda: avif(4600),
    "webp-lossless-4242-square.webp": lambda: webp_lossless(4242, 4242),
    "webp-lossless-3460-square.webp": lambda: webp_lossless(3460, 3460),
    "gif-3000-square.gif": lambda: gif(3000, 3000, 1),
    # Local files larger than the cache keeps in memory, once read whole beside their decode
    # (DECISIONS.md, "Large files reach the decoder mapped").
    "bmp-photo-6000x4000.bmp": bmp_photo,
    "png-photo-8000x5000-stored.png": png_photo_stored,
    # Pixel previews full screen (kitty or sixel, 240×67) asked 1.5 times their box beside the
    # library's full-size buffers (DECISIONS.md, "Pixel previews at full screen").
    "jpeg-progressive-6000x4000.jpg": jpeg_progressive,
}


def write(folder, names=None):
    """Writes the files named (every one by default) into folder; returns their paths."""
    paths = []
    for name in names or IMAGES:
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(IMAGES[name]())
        paths.append(path)
    return paths


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for written in write(sys.argv[1], sys.argv[2:]):
        print(written)
