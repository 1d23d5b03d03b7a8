#!/usr/bin/env python3
"""How closely a screenshot of a terminal shows an image: SSIM of the drawn region against the source.

Usage: similarity.py SCREENSHOT SOURCE [--background RRGGBB] [--region X,Y,W,H]
Prints one JSON object: {"ssim": …, "box": [x, y, w, h], "colour_error": …}.

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


def main():
    arguments = sys.argv[1:]
    region = None
    background = None
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
    box = region or drawn_box(shot, background)
    if box is None or box[2] < 8 or box[3] < 8:
        print(json.dumps({"ssim": 0.0, "box": box, "colour_error": 255.0}))
        return
    x, y, w, h = box
    drawn = shot.crop((x, y, x + w, y + h))
    expected = source.resize((w, h), Image.LANCZOS)
    grey = lambda image: np.asarray(image.convert("L"), dtype=np.float64)
    colour_error = float(np.abs(np.asarray(drawn, dtype=np.int16) - np.asarray(expected, dtype=np.int16)).mean())
    print(json.dumps({"ssim": round(ssim(grey(drawn), grey(expected)), 4), "box": list(box), "colour_error": round(colour_error, 2)}))


if __name__ == "__main__":
    main()
