#!/usr/bin/env python3
"""How closely a screenshot of a terminal shows an image: SSIM of the drawn region against the source.

Usage: similarity.py SCREENSHOT SOURCE [--background RRGGBB] [--region X,Y,W,H]
                     [--grid COLUMNS,ROWS --cells COLUMN,ROW,WIDTH,HEIGHT]
Prints one JSON object: {"ssim": …, "box": [x, y, w, h], "colour_error": …, "image_fraction": …}.

image_fraction is the share of the searched pixels that are neither the background nor text
drawn over it in white (the blend of the two), i.e. pixels of an image.
--cells looks for the drawn region only inside those cells of the terminal's window (a full-screen
program's pane, with text around it); --grid is the window's size in cells, from which the cell
size and the window's text origin are found (the window's background extent, its spare pixels
split evenly around the cells, as xterm's and kitty's borders are).

The drawn region is found as the bounding box of the pixels that differ from the terminal's
background (--background, else the colour of the screenshot's bottom-right corner) and from
the black of an empty X display, unless --region gives it. The
source is resized to that box (Lanczos) and both are compared in greyscale with the usual SSIM
(Gaussian window, sigma 1.5; Wang et al. 2004). colour_error is the mean absolute difference of
the RGB channels, 0-255, which SSIM on grey would not see (a sixel palette gone wrong, say).
"""
import json
import sys

import numpy as np
from PIL import Image


def gaussian_filter(image, sigma=1.5, radius=5):
    offsets = np.arange(-radius, radius + 1)
    kernel = np.exp(-(offsets ** 2) / (2 * sigma ** 2))
    kernel /= kernel.sum()
    padded = np.pad(image, radius, mode="reflect")
    rows = sum(kernel[i] * padded[:, i:i + image.shape[1]] for i in range(len(kernel)))
    return sum(kernel[i] * rows[i:i + image.shape[0], :] for i in range(len(kernel)))


def ssim(a, b):
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mu_a, mu_b = gaussian_filter(a), gaussian_filter(b)
    var_a = gaussian_filter(a * a) - mu_a ** 2
    var_b = gaussian_filter(b * b) - mu_b ** 2
    covariance = gaussian_filter(a * b) - mu_a * mu_b
    value = ((2 * mu_a * mu_b + c1) * (2 * covariance + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))
    return float(value.mean())


def drawn_box(shot, background):
    pixels = np.asarray(shot, dtype=np.int16)
    if background is None:
        background = pixels[-1, -1]
    # Inside the window: the terminal's background colour; the image is what differs from it.
    window = np.abs(pixels - np.array(background, dtype=np.int16)).max(axis=2) <= 24
    ys, xs = np.nonzero(window)
    if len(xs) == 0:
        return None
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    differs = ~window
    differs[:y0, :] = False
    differs[y1 + 1:, :] = False
    differs[:, :x0] = False
    differs[:, x1 + 1:] = False
    ys, xs = np.nonzero(differs)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)


def image_fraction(shot, background):
    """The share of pixels that are neither `background` nor on its blend with white (text)."""
    if background is None:
        return None
    pixels = np.asarray(shot, dtype=np.float64)
    white = np.array([255, 255, 255], dtype=np.float64)
    base = np.array(background, dtype=np.float64)
    # Project each pixel on the segment from the background to white; far from it is an image.
    direction = white - base
    length = max(1.0, float((direction * direction).sum()))
    t = np.clip(((pixels - base) * direction).sum(axis=2) / length, 0, 1)
    nearest = base + t[..., None] * direction
    distance = np.abs(pixels - nearest).max(axis=2)
    return round(float((distance > 40).mean()), 4)


def cell_region(shot, background, grid, cells):
    """The pixel rectangle of `cells` (column, row, width, height) in a window of `grid` cells."""
    pixels = np.asarray(shot, dtype=np.int16)
    window = np.abs(pixels - np.array(background, dtype=np.int16)).max(axis=2) <= 24
    ys, xs = np.nonzero(window)
    if len(xs) == 0:
        return None
    left, top = xs.min(), ys.min()
    width, height = xs.max() - left + 1, ys.max() - top + 1
    cell_width, cell_height = width // grid[0], height // grid[1]
    origin_x = left + (width - grid[0] * cell_width) // 2
    origin_y = top + (height - grid[1] * cell_height) // 2
    column, row, columns, rows = cells
    return (int(origin_x + column * cell_width), int(origin_y + row * cell_height), int(columns * cell_width), int(rows * cell_height))


def main():
    arguments = sys.argv[1:]
    region = None
    background = None
    grid = None
    cells = None
    for name in ("--grid", "--cells"):
        if name in arguments:
            index = arguments.index(name)
            value = tuple(int(v) for v in arguments[index + 1].split(","))
            del arguments[index:index + 2]
            if name == "--grid":
                grid = value
            else:
                cells = value
    if "--background" in arguments:
        index = arguments.index("--background")
        value = arguments[index + 1].lstrip("#")
        background = tuple(int(value[i:i + 2], 16) for i in (0, 2, 4))
        del arguments[index:index + 2]
    if "--region" in arguments:
        index = arguments.index("--region")
        region = tuple(int(v) for v in arguments[index + 1].split(","))
        del arguments[index:index + 2]
    shot = Image.open(arguments[0]).convert("RGB")
    source = Image.open(arguments[1]).convert("RGB")
    searched = shot
    if cells is not None:
        # The drawn region inside those cells only.
        region = cell_region(shot, background, grid, cells)
        if region is None:
            # No window yet.
            print(json.dumps({"ssim": 0.0, "box": None, "colour_error": 255.0, "image_fraction": None}))
            return
        x, y, w, h = region
        searched = shot.crop((x, y, x + w, y + h))
        inner = drawn_box(searched, background)
        box = None if inner is None else (inner[0] + x, inner[1] + y, inner[2], inner[3])
    else:
        box = region or drawn_box(shot, background)
    fraction = image_fraction(searched, background)
    if box is None or box[2] < 8 or box[3] < 8:
        print(json.dumps({"ssim": 0.0, "box": box, "colour_error": 255.0, "image_fraction": fraction}))
        return
    x, y, w, h = box
    drawn = shot.crop((x, y, x + w, y + h))
    expected = source.resize((w, h), Image.LANCZOS)
    grey = lambda image: np.asarray(image.convert("L"), dtype=np.float64)
    colour_error = float(np.abs(np.asarray(drawn, dtype=np.int16) - np.asarray(expected, dtype=np.int16)).mean())
    print(json.dumps({
        "ssim": round(ssim(grey(drawn), grey(expected)), 4), "box": list(box), "colour_error": round(colour_error, 2),
        "image_fraction": fraction,
    }))


if __name__ == "__main__":
    main()
