"""Export the whole site's data to a folder, and load such a folder into an empty database.

kb writes one file per release; other apps' files come from the parts they register
(`kb.hooks.register_export_part`), so kb never imports them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction

from kb import hooks
from kb.export import files, releases
from kb.export.files import ExportError, Progress
from kb.models import GlossaryTerm, Lineage, Release


def default_folder() -> Path:
    """Where `export_data` writes and the downloads page reads (KB_EXPORT_DIR)."""
    return Path(settings.KB_EXPORT_DIR)


def release_filename(date: str) -> str:
    return f"releases/{date}.json.gz"


@dataclass
class ExportResult:
    folder: Path
    files: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def total_bytes(self) -> int:
        return sum(f["bytes"] for f in self.files)


def _quiet(_: str) -> None:
    return None


def export_data(out: Path | None = None, *, progress: Progress = _quiet) -> ExportResult:
    """Write every release, the registered parts, the manifest and SHA256SUMS into `out`
    (replaced as a whole when complete). The same database gives the same bytes."""
    started = time.perf_counter()
    out = Path(out or default_folder())
    blobs: dict[str, bytes] = {}
    entries: list[dict[str, Any]] = []
    latest = None
    for date, obj in releases.release_objects():
        name = release_filename(date)
        blobs[name] = files.gzip_bytes(files.dumps(obj))
        entries.append(files.file_entry(name, blobs[name], releases.release_counts(obj)))
        latest = date
        progress(f"{name}: {len(obj['rules'])} rules, {len(obj['glossary'])} glossary entries")
    for part in hooks.export_parts():
        obj = {"schema_version": files.SCHEMA_VERSION, **part.build()}
        blobs[part.filename] = files.gzip_bytes(files.dumps(obj))
        entries.append(files.file_entry(part.filename, blobs[part.filename], part.counts(obj)))
        progress(f"{part.filename}: {part.counts(obj)}")
    manifest = {
        "schema_version": files.SCHEMA_VERSION,
        "latest_release": latest,
        "files": sorted(entries, key=lambda e: e["name"]),
    }
    files.write_folder(out, blobs, manifest)
    return ExportResult(out.resolve(), manifest["files"], time.perf_counter() - started)


def _read(folder: Path, name: str) -> dict[str, Any]:
    obj = files.read_json_gz(folder / name)
    if not isinstance(obj, dict) or obj.get("schema_version") != files.SCHEMA_VERSION:
        raise ExportError(f"{name}: not an export file of schema {files.SCHEMA_VERSION}")
    return obj


def read_export(folder: Path) -> dict[str, Any]:
    """The manifest of an export folder, or None when there is none (the downloads page)."""
    try:
        return files.read_manifest(folder)
    except ExportError:
        return {}


def database_is_empty() -> list[str]:
    """What the database already holds (empty list: nothing, an import may proceed)."""
    held = []
    if Release.objects.exists() or Lineage.objects.exists() or GlossaryTerm.objects.exists():
        held.append(f"{Release.objects.count()} releases")
    held.extend(part.name for part in hooks.export_parts() if not part.is_empty())
    return held


def import_data(folder: Path, *, progress: Progress = _quiet) -> dict[str, dict[str, int]]:
    """Load an export into an empty database, all or nothing.

    Refused (ExportError, nothing changed) when the database holds data, when a file does not
    match the manifest's checksum (all are checked before the first write), or when a file
    cannot be read (the transaction is rolled back)."""
    folder = Path(folder)
    held = database_is_empty()
    if held:
        raise ExportError(
            "the database is not empty (it holds " + ", ".join(held) + "): import_data loads "
            "an export into an empty database only (a new DATABASE_URL, then migrate)"
        )
    manifest = files.read_manifest(folder)
    names = files.verified_files(folder, manifest)
    release_names = sorted(n for n in names if n.startswith("releases/"))
    parts = {part.filename: part for part in hooks.export_parts()}
    unknown = sorted(set(names) - set(release_names) - set(parts))
    if unknown:
        raise ExportError(f"{unknown[0]}: a file this site does not know how to load")
    counts: dict[str, dict[str, int]] = {}
    current = "releases/"

    def release_objects() -> Iterator[dict[str, Any]]:
        nonlocal current
        for name in release_names:
            current = name
            yield _read(folder, name)

    # Files are read as they are loaded (one release in memory at a time); a file that cannot
    # be read rolls the whole import back.
    try:
        with transaction.atomic():
            counts["releases"] = releases.load_releases(release_objects())
            progress(f"releases: {counts['releases']}")
            for part in hooks.export_parts():
                if part.filename in names:
                    current = part.filename
                    counts[part.name] = part.load(_read(folder, part.filename))
                    progress(f"{part.name}: {counts[part.name]}")
    except (KeyError, TypeError, ValueError, AttributeError, DatabaseError) as exc:
        raise ExportError(
            f"{current}: malformed content ({type(exc).__name__}: {exc}); nothing was imported"
        ) from exc
    return counts


#: Files of the export folder that are not listed in the manifest but are served too.
EXTRA_FILES = {files.MANIFEST: "application/json", files.SUMS: "text/plain; charset=utf-8"}
SCHEMA_DIR = Path(__file__).resolve().parent / "schema"


@dataclass(frozen=True)
class Download:
    name: str
    bytes: int
    sha256: str
    counts: dict[str, int]


def downloads(folder: Path | None = None) -> tuple[list[Download], str | None]:
    """The files of the published export (from its manifest) and its latest release; an empty
    list when no export was made yet (the page then says how to make one)."""
    manifest = read_export(Path(folder or default_folder()))
    try:
        rows = [
            Download(str(f["name"]), int(f["bytes"]), str(f["sha256"]), dict(f["counts"] or {}))
            for f in manifest.get("files", [])
        ]
    except (KeyError, TypeError, ValueError):  # a manifest edited by hand: nothing to offer
        return [], None
    return rows, manifest.get("latest_release")


def download_path(name: str, folder: Path | None = None) -> tuple[Path, str] | None:
    """The file to serve for `name` and its content type, or None: only files the manifest
    lists (and the manifest, SHA256SUMS and the JSON Schemas) are served, never another path."""
    folder = Path(folder or default_folder())
    if name.startswith("schema/"):
        schemas = {p.name: p for p in schema_files()}
        path = schemas.get(name.removeprefix("schema/"))
        return (path, "application/schema+json") if path else None
    if name in EXTRA_FILES:
        path = folder / name
        return (path, EXTRA_FILES[name]) if path.is_file() else None
    listed = {d.name for d in downloads(folder)[0]}
    if name not in listed:
        return None
    path = (folder / name).resolve()
    if folder.resolve() not in path.parents or not path.is_file():
        return None
    return path, "application/gzip"


def schema_files() -> list[Path]:
    """kb's JSON Schema of a release file and those of the registered parts."""
    parts = [p.schema for p in hooks.export_parts() if p.schema is not None]
    return [*sorted(SCHEMA_DIR.glob("*.schema.json")), *parts]
