"""The query encoder's child process (search.semantic.query_process), on the real weights:
it answers what the encoder in this process would, in the order asked, and whatever happens to
it (killed, stuck, bad weights, its parent gone) a question fails cleanly and the next one
finds a child again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from search.semantic.encoder import Encoder
from search.semantic.query_process import ChildError, QueryProcess
from search.semantic.weights import weights_path
from tests.conftest import require_file

pytestmark = pytest.mark.slow

QUESTIONS = [
    "my opponent flickered my creature, does it come back tapped?",
    "si je sacrifie ma créature en réponse, le sort est-il contrecarré ?",
    "can I bounce a token to my hand?",
]


@pytest.fixture(scope="module")
def weights() -> Path:
    path = weights_path()
    require_file(path, "the encoder's weights (make install fetches them)")
    return path


@pytest.fixture(scope="module")
def here(weights) -> np.ndarray:
    return Encoder(weights).queries(QUESTIONS)


@pytest.fixture
def child(weights):
    process = QueryProcess(weights)
    yield process
    process.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ")[1][0] != "Z"


def test_the_child_answers_what_the_encoder_here_would_in_the_order_asked(child, here):
    asked = [child.submit(q) for q in QUESTIONS]  # all out at once
    answers = [a.result() for a in reversed(asked)][::-1]  # waited for last first
    for vector, expected in zip(answers, here, strict=True):
        assert vector.shape == (384,)
        assert float(vector @ expected) > 0.9999
    assert float(answers[0] @ answers[1]) < 0.99  # different questions, different vectors


def test_a_killed_child_fails_its_question_and_the_next_one_starts_a_new_child(child, here):
    assert child.submit(QUESTIONS[0]).result() @ here[0] > 0.9999
    first = child._proc.pid
    out = child.submit(QUESTIONS[1])
    os.kill(first, signal.SIGKILL)
    with pytest.raises(ChildError, match="exited"):
        out.result()
    again = child.submit(QUESTIONS[2]).result()
    assert child._proc.pid != first
    assert float(again @ here[2]) > 0.9999


def test_a_stuck_child_is_killed_when_its_answer_is_late(child, here):
    child.submit(QUESTIONS[0]).result()
    stuck = child._proc.pid
    os.kill(stuck, signal.SIGSTOP)
    started = time.monotonic()
    with pytest.raises(ChildError, match="in time"):
        child.submit(QUESTIONS[1]).result(timeout=0.5)
    assert time.monotonic() - started < 5
    assert not _alive(stuck)
    assert float(child.submit(QUESTIONS[1]).result() @ here[1]) > 0.9999


def test_weights_that_do_not_load_are_named_in_the_error(tmp_path):
    bad = tmp_path / "e5-small-q4.bin"
    bad.write_bytes(b"not a model" * 10)
    child = QueryProcess(bad)
    try:
        with pytest.raises(ChildError, match=str(bad)):
            child.submit(QUESTIONS[0]).result()
    finally:
        child.close()


def test_closing_stops_the_child(child):
    child.submit(QUESTIONS[0]).result()
    pid = child._proc.pid
    child.close()
    assert not _alive(pid)


def test_the_child_does_not_outlive_its_parent(weights, tmp_path):
    """A web process killed outright (SIGKILL, the OOM killer) leaves no encoder behind."""
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from search.semantic.query_process import QueryProcess\n"
        "child = QueryProcess(Path(sys.argv[1]))\n"
        "child.submit('does it come back tapped?').result()\n"
        "print(child._proc.pid, flush=True)\n"
        "os.kill(os.getpid(), 9)\n"
    )
    parent = subprocess.run(
        [sys.executable, "-c", script, str(weights)],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert parent.returncode == -signal.SIGKILL, parent.stderr
    orphan = int(parent.stdout.split()[0])
    deadline = time.monotonic() + 10
    while _alive(orphan) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(orphan)


def test_a_forked_process_starts_its_own_child(child, here):
    """gunicorn forks its workers: a fork must not read the answers meant for its parent."""
    child.submit(QUESTIONS[0]).result()
    ours = child._proc.pid
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the fork: ask, report the child it used and the answer's agreement
        try:
            os.close(read)
            vector = child.submit(QUESTIONS[1]).result()
            message = f"{child._proc.pid} {float(vector @ here[1]):.6f}"
            os.write(write, message.encode())
            child.close()
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        theirs, agreement = answer.read().split()
    os.waitpid(pid, 0)
    assert int(theirs) != ours and float(agreement) > 0.9999
    assert float(child.submit(QUESTIONS[2]).result() @ here[2]) > 0.9999  # ours still works
