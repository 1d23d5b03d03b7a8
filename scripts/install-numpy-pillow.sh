#!/usr/bin/env bash
# Makes numpy and Pillow importable by python3 (the screenshot and preview quality scores need
# them): from PyPI, or Debian's builds where Debian's own python3 refuses pip (PEP 668).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import numpy, PIL' 2>/dev/null && exit 0
echo "installing numpy and pillow (PyPI)" >&2
if ! python3 -m pip install --quiet numpy pillow; then
  scripts/install-packages.sh python3-numpy python3-pil
fi
python3 -c 'import numpy, PIL' || { echo "python3 cannot import numpy and pillow" >&2; exit 1; }
