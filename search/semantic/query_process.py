"""Query vectors from a child process: the encoder's forward pass on a core of its own.

Why not a thread: a question's forward pass is about 50 numpy calls; the products release the
GIL, but between them the encoder's thread must take it back, and the request's lexical
search (Whoosh, pure Python, 20-30 ms for a question) holds it for up to the interpreter's
switch interval each time. Measured on make run's data: 32.6 ms alone, 43-45 ms beside the
lexical search; question-shaped p50 / p95 through `make serve` 56.7 / 73.4 ms in a thread,
48.6 / 57.4 and 49.3 / 58.5 in a child (2026-12-06). In a child the two run side by side on two
cores and the web worker never loads the model (the child holds it: 257 MB
resident, where the model added 219 MB to a worker).

One child per web process (gunicorn's workers each start their own on first use; a process
forked from one that had a child starts a new one). It speaks a length-prefixed protocol over
its stdin and stdout: a request is a UTF-8 text, an answer a float32 vector or an error
message. Answers come in the order asked, so several threads may have questions out at once.
When the parent goes, the child sees its stdin close (or search.orphans kills it) and exits.
A child that dies or does not answer in time is killed and started again on the next
question; the question it was asked fails, and the search answers lexically (retriever).
"""

from __future__ import annotations

import logging
import os
import select
import struct
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

#: How long the child may take to load the weights (about 1.5 s on an idle core); questions
#: asked meanwhile wait at most their own time (ANSWER_SECONDS), then go lexical.
START_SECONDS = 60.0
#: How long one question may take once loaded (a question's forward pass: 30-40 ms; the
#: longest query the model reads, 512 tokens: about half a second).
ANSWER_SECONDS = 10.0

_LENGTH = struct.Struct(">i")
_PROJECT = Path(__file__).resolve().parents[2]


class ChildError(RuntimeError):
    """The child could not start, died, did not answer in time, or answered an error."""


class Asked:
    """A question sent to the child; `result()` waits for its vector."""

    def __init__(self, owner: QueryProcess, seq: int, generation: int) -> None:
        self._owner = owner
        self.seq = seq
        self.generation = generation
        self.vector: np.ndarray | None = None
        self.error: str = ""

    @property
    def done(self) -> bool:
        return self.vector is not None or bool(self.error)

    def result(self, timeout: float | None = None) -> np.ndarray:
        """The query's L2-normalised vector; ChildError when the child failed it."""
        return self._owner._wait(self, ANSWER_SECONDS if timeout is None else timeout)


class QueryProcess:
    """The child that embeds this process's queries (search.semantic.encoder's `queries`)."""

    def __init__(self, weights: Path) -> None:
        self.weights = weights
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._pid = 0  # the process that started the child: a fork must start its own
        self._generation = 0
        self._sent = 0
        self._answered = 0
        self._loaded = False
        self._started = 0.0
        self._waiting: weakref.WeakValueDictionary[int, Asked] = weakref.WeakValueDictionary()

    def start(self) -> None:
        """Start the child if this process has none running (warm-up calls it, so that the
        weights load before the first question)."""
        with self._lock:
            self._ensure()

    def submit(self, text: str) -> Asked:
        """Send `text` to the child and return at once; ChildError if it cannot start."""
        data = text.encode("utf-8")
        with self._lock:
            proc = self._ensure()
            asked = Asked(self, self._sent, self._generation)
            try:
                _write_all(proc.stdin.fileno(), _LENGTH.pack(len(data)) + data)
            except OSError as exc:
                self._stop(f"the query encoder's child cannot be written to ({exc})")
                raise ChildError(str(exc)) from exc
            self._sent += 1
            self._waiting[asked.seq] = asked
            return asked

    def close(self) -> None:
        with self._lock:
            self._stop("closed")

    # -- inside the lock -----------------------------------------------------------------------
    def _ensure(self) -> subprocess.Popen:
        if self._proc is not None and self._pid == os.getpid() and self._proc.poll() is None:
            return self._proc
        if self._proc is not None and self._pid == os.getpid():
            self._stop("the query encoder's child had exited")
        # A child inherited through a fork is the parent's: leave its pipes alone.
        self._proc = None
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", __name__, str(self.weights), str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,
                cwd=_PROJECT,
                env=env,
            )
        except OSError as exc:
            raise ChildError(f"cannot start the query encoder's child ({exc})") from exc
        self._pid = os.getpid()
        self._started = time.monotonic()
        self._generation += 1
        self._sent = self._answered = 0
        self._loaded = False
        return self._proc

    def _wait(self, asked: Asked, timeout: float) -> np.ndarray:
        deadline = time.monotonic() + timeout
        with self._lock:
            while not asked.done:
                if asked.generation != self._generation or self._proc is None:
                    asked.error = asked.error or "the query encoder's child was restarted"
                    break
                try:
                    if not self._loaded:
                        loaded_by = self._started + START_SECONDS
                        if not _readable(self._proc, min(deadline, loaded_by)):
                            if time.monotonic() >= loaded_by:
                                raise ChildError("the query encoder's child did not load in time")
                            # Still loading: this question goes lexical, the child stays.
                            asked.error = "the query encoder's child is still loading"
                            break
                        _read_frame(self._proc, loaded_by)
                        self._loaded = True
                    answer = _read_frame(self._proc, deadline)
                except ChildError as exc:
                    self._stop(str(exc))
                    break
                target = self._waiting.pop(self._answered, None)
                self._answered += 1
                if target is not None:
                    if isinstance(answer, str):
                        target.error = answer
                    else:
                        target.vector = answer
        if asked.vector is None:
            raise ChildError(asked.error or "the query encoder's child failed")
        return asked.vector

    def _stop(self, why: str) -> None:
        """Kill the child (it may be stuck) and fail every question still out."""
        proc, self._proc = self._proc, None
        for asked in list(self._waiting.values()):
            asked.error = why
        self._waiting.clear()
        if proc is not None and self._pid == os.getpid():
            if why != "closed":
                logger.warning("semantic search: %s", why)
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                if pipe is not None:
                    pipe.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _readable(proc: subprocess.Popen, deadline: float) -> bool:
    wait = max(0.0, deadline - time.monotonic())
    return bool(select.select([proc.stdout.fileno()], [], [], wait)[0])


def _read_exact(proc: subprocess.Popen, size: int, deadline: float) -> bytes:
    fd = proc.stdout.fileno()
    chunks, left = [], size
    while left:
        wait = deadline - time.monotonic()
        if wait <= 0 or not select.select([fd], [], [], wait)[0]:
            raise ChildError("the query encoder's child did not answer in time")
        chunk = os.read(fd, left)
        if not chunk:
            code = proc.poll()
            raise ChildError(f"the query encoder's child exited (status {code})")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_frame(proc: subprocess.Popen, deadline: float) -> np.ndarray | str:
    """A vector (a positive length of float32 bytes) or an error (a negative length of
    UTF-8); the child's greeting (its width) is a vector's length and nothing else."""
    (length,) = _LENGTH.unpack(_read_exact(proc, _LENGTH.size, deadline))
    if length < 0:
        message = _read_exact(proc, -length, deadline).decode("utf-8", "replace")
        if not message.startswith("query:"):
            raise ChildError(message)  # the weights could not be loaded: nothing will work
        return message
    return np.frombuffer(_read_exact(proc, length, deadline), dtype=np.float32) if length else ""


# -- the child ---------------------------------------------------------------------------------
def _serve(weights: Path, parent: int) -> int:
    from search.orphans import die_with_parent
    from search.semantic.encoder import Encoder, WeightsError

    die_with_parent(parent)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    # Nothing else may write to the answers' pipe: a stray print would desynchronise it.
    sys.stdout = sys.stderr

    def send(frame: bytes) -> None:
        stdout.write(frame)
        stdout.flush()

    try:
        model = Encoder(weights)
    except WeightsError as exc:
        message = str(exc).encode("utf-8")
        send(_LENGTH.pack(-len(message)) + message)
        return 1
    send(_LENGTH.pack(0))  # loaded
    while True:
        head = stdin.read(_LENGTH.size)
        if len(head) < _LENGTH.size:
            return 0  # the parent closed the pipe: it is gone or done
        (length,) = _LENGTH.unpack(head)
        text = stdin.read(length).decode("utf-8", "replace")
        try:
            vector = model.queries([text])[0].astype(np.float32).tobytes()
            send(_LENGTH.pack(len(vector)) + vector)
        except Exception as exc:  # one query's failure is that query's, not the child's
            message = f"query: {type(exc).__name__}: {exc}".encode()
            send(_LENGTH.pack(-len(message)) + message)


if __name__ == "__main__":  # python -m search.semantic.query_process WEIGHTS PARENT_PID
    sys.exit(_serve(Path(sys.argv[1]), int(sys.argv[2])))
