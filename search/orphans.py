"""Child processes that die with their parent: Whoosh's sub-writers and the query encoder.

Why: a child waiting on a pipe its parent fed outlives a parent killed by SIGKILL or the OOM
killer when another process still holds the pipe's other end (a descriptor copied by a fork):
an orphan that keeps its memory, and for Whoosh's sub-writers the index's writer lock, so
that every later writer times out. On Linux the kernel kills the child with its parent (prctl
PR_SET_PDEATHSIG, behind a guard: other systems lack it); everywhere, a daemon thread watches
the parent id and exits within `POLL_SECONDS` once it changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

#: How often a child checks that its parent is still alive (seconds).
POLL_SECONDS = 0.5
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Make the calling (child) process exit as soon as `parent_pid` is no longer its parent."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no libc or no prctl: the thread below suffices
            pass
    if os.getppid() != parent_pid:  # the parent died before the guard was set
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()
