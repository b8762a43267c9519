"""The export's bytes: deterministic gzip JSON, checksums, the manifest, the folder swap.

Deterministic so that the same database always gives the same files (and the round trip
export → import → export can be checked byte for byte): keys sorted, compact separators, gzip
with no file name and mtime 0, no generation time anywhere.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
SUMS = "SHA256SUMS"


class ExportError(Exception):
    """An export folder that cannot be read as asked (the message names the file)."""


def dumps(obj: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8 kept as is, one final newline."""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return (text + "\n").encode("utf-8")


def gzip_bytes(data: bytes) -> bytes:
    """gzip with a fixed header (no name, mtime 0): equal input, equal bytes."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=6) as gz:
        gz.write(data)
    return buf.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_json_gz(path: Path) -> Any:
    """A file of the export as JSON; a truncated or corrupt file is an ExportError naming it."""
    try:
        return json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, ValueError) as exc:
        raise ExportError(f"{path.name}: not a complete gzip JSON file ({exc})") from exc


def write_folder(out: Path, files: dict[str, bytes], manifest: dict[str, Any]) -> None:
    """Write the files, the manifest and SHA256SUMS into a temporary folder beside `out`, then
    swap it in: a killed export never leaves half-written files where readers look."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    for name, data in files.items():
        target = tmp / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    (tmp / MANIFEST).write_bytes(dumps(manifest))
    sums = "".join(f"{sha256(files[name])}  {name}\n" for name in sorted(files))
    (tmp / SUMS).write_text(sums, encoding="utf-8")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST
    if not path.is_file():
        raise ExportError(f"{path}: no manifest (is this a folder made by export_data?)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ExportError(f"{MANIFEST}: not JSON ({exc})") from exc
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), list):
        raise ExportError(f"{MANIFEST}: no list of files")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ExportError(
            f"{MANIFEST}: schema version {version!r}, this site reads {SCHEMA_VERSION}"
        )
    return manifest


def verified_files(folder: Path, manifest: dict[str, Any]) -> list[str]:
    """The manifest's file names once every file exists and matches its sha256 (else an
    ExportError naming the first file that does not)."""
    names = []
    for entry in manifest["files"]:
        name = str(entry.get("name", ""))
        path = (folder / name).resolve()
        if not name or folder.resolve() not in path.parents:
            raise ExportError(f"{MANIFEST}: bad file name {name!r}")
        if not path.is_file():
            raise ExportError(f"{name}: listed in the manifest but missing")
        if sha256(path.read_bytes()) != entry.get("sha256"):
            raise ExportError(f"{name}: checksum does not match the manifest (changed or cut)")
        names.append(name)
    return names


def file_entry(name: str, data: bytes, counts: dict[str, int]) -> dict[str, Any]:
    return {"name": name, "bytes": len(data), "sha256": sha256(data), "counts": counts}


Progress = Callable[[str], None]
