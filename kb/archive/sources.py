"""Where CR texts come from: a file, a folder (with its versions.csv), or an http(s) URL."""

from __future__ import annotations

import csv
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_DOWNLOAD_BYTES = 30 * 1024 * 1024
DOWNLOAD_TIMEOUT = 60


class SourceError(Exception):
    """A source that cannot be read at all (missing path, failed download)."""


@dataclass
class Source:
    name: str  # file path or URL, as shown in messages
    data: bytes | None  # None: read from `name` (a path) when needed
    set_names: dict[
        str, tuple[str, str]
    ]  # effective date -> (set name, set code) from versions.csv

    def read(self) -> bytes:
        return self.data if self.data is not None else Path(self.name).read_bytes()


def read_sources(args: list[str]) -> Iterator[Source]:
    """Expand command arguments into sources, folders into their *.txt files."""
    for arg in args:
        if arg.startswith(("http://", "https://")):
            yield Source(arg, _download(arg), {})
            continue
        path = Path(arg)
        if path.is_dir():
            names = read_versions_csv(path / "versions.csv")
            files = sorted(p for p in path.glob("*.txt") if p.is_file())
            if not files:
                raise SourceError(f"{path}: no .txt files in this folder")
            for f in files:
                yield Source(str(f), None, names)
        elif path.is_file():
            yield Source(str(path), None, read_versions_csv(path.parent / "versions.csv"))
        else:
            raise SourceError(f"{arg}: no such file or folder")


def count_sources(args: list[str]) -> int:
    n = 0
    for arg in args:
        path = Path(arg)
        n += len(list(path.glob("*.txt"))) if path.is_dir() else 1
    return n


def read_versions_csv(path: Path) -> dict[str, tuple[str, str]]:
    """Set names and codes by effective date, from an archive's versions.csv (if there is one)."""
    if not path.is_file():
        return {}
    out: dict[str, tuple[str, str]] = {}
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or "date" not in reader.fieldnames:
            raise SourceError(f"{path}: no 'date' column in the header")
        for lineno, row in enumerate(reader, start=2):
            date = (row.get("date") or "").strip()
            if not date:
                raise SourceError(f"{path}, line {lineno}: empty date")
            out[date] = ((row.get("set_name") or "").strip(), (row.get("set_code") or "").strip())
    return out


def _download(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "mtg-rules-kb importer"})
    try:
        with urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT) as response:
            data = response.read(MAX_DOWNLOAD_BYTES + 1)
    except (urllib.error.URLError, TimeoutError, ValueError) as exc:
        raise SourceError(f"{url}: download failed: {exc}") from None
    if len(data) > MAX_DOWNLOAD_BYTES:
        raise SourceError(f"{url}: larger than {MAX_DOWNLOAD_BYTES // (1024 * 1024)} MB")
    return data
