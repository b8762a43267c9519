"""Where the live index is: a folder of index folders and a pointer to the live one.

`CURRENT` names the live index (a sub-folder); a rebuild writes a new sub-folder and replaces
`CURRENT` atomically (os.replace), keeping the previous one so that readers still holding it
finish their searches.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from whoosh import index
from whoosh.fields import Schema

from search.backend import SearchUnavailable


class LiveFolder:
    def __init__(self, root: Path, schema: Schema) -> None:
        self.root = Path(root)
        self.schema = schema
        self.live: tuple[str, index.Index] | None = None  # the open index and its folder

    @property
    def pointer(self) -> Path:
        return self.root / "CURRENT"

    def live_name(self) -> str | None:
        try:
            return self.pointer.read_text().strip() or None
        except FileNotFoundError:
            return None

    def exists(self) -> bool:
        name = self.live_name()
        if name and self.live is not None and self.live[0] == name:
            return True  # already open (opening its table of contents again costs 0.6 ms)
        return bool(name) and index.exists_in(str(self.root / name))

    def open(self) -> tuple[index.Index, bool]:
        """The live index (created empty when there is none), and whether it was (re)opened
        just now: a swap replaced the one open before."""
        name = self.live_name()
        if not name:
            self.create_live()
            name = self.live_name()
        if self.live is not None and self.live[0] == name:
            return self.live[1], False
        try:
            self.live = (name, index.open_dir(str(self.root / name)))
        except Exception as exc:  # any failure to open means "unavailable"
            raise SearchUnavailable(f"cannot open the search index in {self.root}: {exc}") from exc
        return self.live[1], True

    def create_live(self) -> None:
        name = self.new_folder()
        index.create_in(str(self.root / name), self.schema)
        self.swap(name)

    def new_folder(self) -> str:
        self.root.mkdir(parents=True, exist_ok=True)
        name = f"ix-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        (self.root / name).mkdir()
        return name

    def discard(self, name: str) -> None:
        shutil.rmtree(self.root / name, ignore_errors=True)

    def swap(self, name: str) -> None:
        tmp = self.root / f"CURRENT.{os.getpid()}.tmp"
        tmp.write_text(name)
        os.replace(tmp, self.pointer)
        self._remove_old(keep={name, *([self.live[0]] if self.live else [])})

    def _remove_old(self, keep: set[str]) -> None:
        folders = sorted(
            (p for p in self.root.glob("ix-*") if p.is_dir()), key=lambda p: p.stat().st_mtime
        )
        # The newest two stay: readers may still hold the previous index for a moment.
        for p in folders[:-2]:
            if p.name not in keep:
                shutil.rmtree(p, ignore_errors=True)

    def size(self) -> tuple[str, int]:
        """The live folder and its size in bytes."""
        folder = self.root / (self.live_name() or "")
        return str(folder), sum(p.stat().st_size for p in folder.glob("*") if p.is_file())
