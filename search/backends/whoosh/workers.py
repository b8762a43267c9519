"""Whoosh's two-process writer, with children that die with their parent.

Why: a bulk write (a rebuild, a large update) indexes with two child processes (Whoosh's
`MpWriter`). Each child waits on a job queue whose pipe it holds both ends of, so when the
parent is killed (SIGKILL, OOM killer) the child waits forever: an orphan that keeps its
memory and a copy of the parent's descriptors, the index's writer lock among them, so that
every later writer times out. Here each child asks Linux to kill it when its parent dies
(prctl PR_SET_PDEATHSIG, behind a guard: other systems lack it) and, everywhere, watches its
parent id in a daemon thread (search.orphans, shared with the query encoder's child).

Whoosh has no hook for this: GuardedMpWriter overrides MpWriter's private `_new_task` and
builds the SubWriterTask from MpWriter's attributes, as Whoosh 2.7.4's own `_new_task` does.
"""

from __future__ import annotations

import os

from whoosh.multiproc import MpWriter, SubWriterTask

from search.orphans import die_with_parent


class _GuardedTask(SubWriterTask):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.parent_pid = os.getpid()

    def run(self) -> None:
        die_with_parent(self.parent_pid)
        super().run()


class GuardedMpWriter(MpWriter):
    """`MpWriter` whose sub-writers exit when the writing process dies."""

    def _new_task(self) -> SubWriterTask:
        task = _GuardedTask(
            self.storage,
            self.indexname,
            self.jobqueue,
            self.resultqueue,
            self.subargs,
            self.multisegment,
        )
        self.tasks.append(task)
        task.start()
        return task
