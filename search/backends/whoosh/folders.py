"""Where the live index is: a folder of index folders and a pointer to the live one.

`CURRENT` names the live index (a sub-folder); a rebuild writes a new sub-folder and replaces
`CURRENT` atomically (os.replace), keeping the previous one so that readers still holding it
finish their searches. A folder being built holds a `BUILDING` mark until it is complete: one
still marked when the next writer takes the writer lock belongs to a rebuild that was killed,
and is removed (`remove_unfinished`).

A writer killed while adding to a finished folder (an outbox drain: `kill -9`, the OOM killer)
leaves Whoosh's scratch inside it: the `MAIN.tmp` folder of its posting pool and job files,
the files of a segment it never committed (no table of contents names them), a half-written
table of contents (`_MAIN_<n>.toc.<time>`). Readers never see them; Whoosh's next commit in
that folder happens to sweep them, but a drain with nothing to write never commits, and a
folder swapped out by a rebuild never sees another commit: `remove_scratch` sweeps them under
the writer lock when the next writer starts (and `check_index` when no writer is at work).
Telling them from live files takes Whoosh's file naming and its private TOC._pattern and
TOC._segment_pattern (2.7.4's; a fork naming its files otherwise leaves them unswept).
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from whoosh import index
from whoosh.fields import Schema
from whoosh.filedb.filestore import FileStorage
from whoosh.index import TOC

from search.backend import SearchUnavailable

#: The index layout this code reads: fields, analyzers (Whoosh pickles their classes into the
#: index), document ids and what the apps put in documents. Raise it whenever one changes:
#: an index of another layout is then treated as absent (`exists()` is False, searches say
#: "run rebuild_index", `load_site_data` rebuilds it) instead of failing to open.
LAYOUT = "4"
_LAYOUT_FILE = "LAYOUT"
_BUILDING_FILE = "BUILDING"


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
        """Whether a live index of this code's layout is there."""
        name = self.live_name()
        if name and self.live is not None and self.live[0] == name:
            return True  # already open (opening its table of contents again costs 0.6 ms)
        if not name or self.layout(name) != LAYOUT:
            return False
        try:
            return index.exists_in(str(self.root / name))
        except Exception:  # an unreadable table of contents is no index
            return False

    def layout(self, name: str) -> str:
        try:
            return (self.root / name / _LAYOUT_FILE).read_text().strip()
        except FileNotFoundError:
            return ""

    def create(self, name: str) -> index.Index:
        """A new, empty index in folder `name`, marked with this code's layout."""
        ix = index.create_in(str(self.root / name), self.schema)
        (self.root / name / _LAYOUT_FILE).write_text(LAYOUT)
        return ix

    def open(self) -> tuple[index.Index, bool]:
        """The live index (created empty when there is none), and whether it was (re)opened
        just now: a swap replaced the one open before."""
        name = self.live_name()
        if not name:
            self.create_live()
            name = self.live_name()
        elif self.layout(name) != LAYOUT:  # adding to it would leave a partial index
            raise SearchUnavailable(
                f"the search index in {self.root} was built by another version of this code "
                "(run rebuild_index)"
            )
        if self.live is not None and self.live[0] == name:
            return self.live[1], False
        try:
            self.live = (name, index.open_dir(str(self.root / name)))
        except Exception as exc:  # any failure to open means "unavailable"
            raise SearchUnavailable(f"cannot open the search index in {self.root}: {exc}") from exc
        return self.live[1], True

    def create_live(self) -> None:
        name = self.new_folder()
        self.create(name)
        self.swap(name)

    def new_folder(self, *, building: bool = False) -> str:
        """A new, empty sub-folder; `building`: marked unfinished until `built()`."""
        self.root.mkdir(parents=True, exist_ok=True)
        name = f"ix-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        (self.root / name).mkdir()
        if building:
            (self.root / name / _BUILDING_FILE).write_text(str(os.getpid()))
        return name

    def built(self, name: str) -> None:
        """The folder is complete (committed): it may now be swapped in."""
        (self.root / name / _BUILDING_FILE).unlink(missing_ok=True)

    def unfinished(self) -> list[str]:
        """Folders of builds that never finished (never the live one)."""
        live = self.live_name()
        return sorted(
            p.parent.name for p in self.root.glob(f"ix-*/{_BUILDING_FILE}") if p.parent.name != live
        )

    def building(self) -> bool:
        """Whether a build is running on this machine: an unfinished folder whose builder's
        process is alive (a killed build's folder says nothing is coming)."""
        for name in self.unfinished():
            try:
                pid = int((self.root / name / _BUILDING_FILE).read_text())
                os.kill(pid, 0)
            except PermissionError:
                return True  # alive, another user's
            except (OSError, ValueError):
                continue  # gone, unreadable, or no process by that number
            return True
        return False

    def remove_unfinished(self) -> list[str]:
        """Remove what killed rebuilds left: their folders and pointer files never swapped in.
        Only safe while holding the writer lock (no build is running then)."""
        names = self.unfinished()
        for name in names:
            self.discard(name)
        for tmp in self.root.glob("CURRENT.*.tmp"):
            tmp.unlink(missing_ok=True)
        return names

    def remove_scratch(self) -> list[str]:
        """Remove what killed writers left inside finished folders ("ix-…/file" names): temp
        folders and files, segments no table of contents names, unfinished tables of contents.
        Only safe while holding the writer lock (no Whoosh writer is at work then); the
        `MAIN_WRITELOCK` file stays (Whoosh keeps it between writes; the kernel released its
        lock with the process)."""
        removed = []
        for folder in sorted(p for p in self.root.glob("ix-*") if p.is_dir()):
            if (folder / _BUILDING_FILE).exists():
                continue  # an unfinished rebuild: remove_unfinished's
            for path in sorted(_scratch(folder)):
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
                removed.append(f"{folder.name}/{path.name}")
        return removed

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


def _scratch(folder: Path, indexname: str = "MAIN") -> list[Path]:
    """Whoosh's leftovers in one index folder (see the module's docstring)."""
    found = [p for p in folder.iterdir() if p.name.endswith(".tmp")]
    toc, segment = TOC._pattern(indexname), TOC._segment_pattern(indexname)
    found += [p for p in folder.glob(f"_{indexname}_*.toc.*") if not toc.match(p.name)]
    storage = FileStorage(str(folder))
    try:
        live = {s.segment_id() for s in TOC.read(storage, indexname).segments}
    except Exception:  # no readable table of contents: not an index to sweep
        return found
    for p in folder.iterdir():
        m = segment.match(p.name)
        if m and not p.name.endswith(".tmp") and m.group(1) not in live:
            found.append(p)
    return found
