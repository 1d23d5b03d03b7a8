#!/usr/bin/env bash
# Installs what the pixel tests run: Xvfb, the terminal emulators that draw pixels (xterm as a
# VT340 for sixel, kitty, mlterm for iTerm2 images and sixel), ImageMagick's `import` for
# screenshots, xdotool to type into a window, the font the emulators use, rsvg-convert for an
# SVG's reference drawing, and numpy + Pillow for
# the similarity score. Used by scripts/test.sh; only what is missing is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-packages.sh --no-install-recommends xvfb xterm mlterm kitty imagemagick xdotool fonts-dejavu-core python3 librsvg2-bin
scripts/install-numpy-pillow.sh
# tmux 3.5a beside Debian's 3.3a: tmux's own sixel (the browser's native-sixel route in tmux).
scripts/install-tmux-sixel.sh
