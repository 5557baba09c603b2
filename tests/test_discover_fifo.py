"""Discovery and the readers over a FIFO named like a session: never opened as one.

A named pipe called `rollout-*.jsonl` (or an old-layout `agent-*.jsonl`) made
`learn sessions`, `run` and `show` hang for good: it was listed, then opened and
read, and the open of a pipe waits for a writer (audit, repro 2_fifo). The
listings keep only regular files, and the readers open non-blocking and refuse
what the fd's fstat says is not a regular file.

Each call runs in a thread: should it block, the test opens the pipe's other end
and closes it (the blocked open or read then returns) and fails, instead of
hanging the suite.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

import pytest
from _learn_cli import learn_env
from fixtures.view.corpus import CODEX_ID, MAIN_ID, OTHER_ID, SUBDIR_ID, Home, install

from learn.transcripts.files.compressed import read_prefix, read_suffix
from learn.transcripts.files.discover import scan
from learn.transcripts.files.heads import last_activity, read_head
from learn.transcripts.files.sources import NotRegularFile, read_session
from learn.transcripts.parser import stream

T = TypeVar("T")
ALL_IDS = {MAIN_ID, SUBDIR_ID, OTHER_ID, CODEX_ID}
_PATIENCE_SECONDS = 10.0


@pytest.fixture
def home(tmp_path: Path) -> Home:
    h = Path.home()  # conftest points HOME at a temp dir
    return install(h / ".claude", h / ".codex", tmp_path / "work" / "shop")


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def without_blocking(call: Callable[[], T], *fifos: Path) -> T:
    """What `call` returns (or raises); fails the test if it blocked on one of `fifos`."""
    got: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            got.append(call())
        except BaseException as exc:  # handed to the test's thread
            failed.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(_PATIENCE_SECONDS)
    if worker.is_alive():
        for pipe in fifos:  # a writer that comes and goes: the blocked open or read returns
            with contextlib.suppress(OSError):  # no reader waiting on this one
                os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(_PATIENCE_SECONDS)
        pytest.fail(f"blocked on a FIFO: {', '.join(map(str, fifos))}")
    if failed:
        raise failed[0]
    return got[0]


def test_a_fifo_named_like_a_codex_rollout_is_not_a_candidate(home: Home) -> None:
    pipe = fifo(home.files["codex"].parent / "rollout-2026-11-20T10-00-00-0199a0b1-2c3d-7e4f-"
                                             "8a9b-0c1d2e3f4a5c.jsonl")
    result = without_blocking(lambda: scan(all_projects=True), pipe)
    assert {f.session_id for f in result.files} == ALL_IDS
    assert pipe not in {f.path for f in result.files}


def test_a_fifo_named_like_an_old_layout_subagent_is_not_read(home: Home) -> None:
    pipe = fifo(home.files["main"].parent / "agent-a1b2.jsonl")
    result = without_blocking(lambda: scan(all_projects=True), pipe)
    [main] = [f for f in result.files if f.session_id == MAIN_ID]
    assert set(main.subagent_paths) == {home.files["subagent_new"], home.files["subagent_old"]}


def test_a_fifo_in_a_sessions_subagents_folder_is_not_attached(home: Home) -> None:
    fifo(home.files["subagent_new"].parent / "agent-fifo.jsonl")
    [main] = [f for f in scan(all_projects=True).files if f.session_id == MAIN_ID]
    assert set(main.subagent_paths) == {home.files["subagent_new"], home.files["subagent_old"]}


def test_a_fifo_named_like_a_copilot_session_is_not_a_candidate(home: Home) -> None:
    pipe = fifo(Path.home() / ".copilot" / "session-state" / "abc" / "events.jsonl")
    result = without_blocking(lambda: scan(all_projects=True), pipe)
    assert {f.session_id for f in result.files} == ALL_IDS


@pytest.mark.parametrize("name", ["s.jsonl", "s.jsonl.zst"])
def test_the_readers_refuse_a_fifo_without_blocking(tmp_path: Path, name: str) -> None:
    # What a listing would hand them should a FIFO take a file's place after it.
    pipe = fifo(tmp_path / name)
    for provider in ("claude", "codex"):
        with pytest.raises(NotRegularFile):
            without_blocking(partial(read_head, pipe, provider), pipe)
    with pytest.raises(NotRegularFile):
        without_blocking(lambda: read_session(pipe), pipe)
    with pytest.raises(NotRegularFile):
        without_blocking(lambda: read_prefix(pipe, 1024), pipe)
    with pytest.raises(NotRegularFile):
        without_blocking(lambda: read_suffix(pipe, 1024), pipe)
    assert without_blocking(lambda: last_activity(pipe), pipe) is None
    # The parser's read-ahead opens files itself: a FIFO is left out, not waited on.
    assert without_blocking(lambda: list(stream([pipe])), pipe) == []


def test_learn_sessions_lists_the_others_and_exits_with_a_fifo_in_the_home(
        home: Home, tmp_path: Path) -> None:
    fifo(home.files["codex"].parent / "rollout-2026-11-20T10-00-00-0199a0b1-2c3d-7e4f-"
                                      "8a9b-0c1d2e3f4a5c.jsonl")
    fifo(home.files["main"].parent / "agent-a1b2.jsonl")
    # A real process, killed by the timeout should it hang (subprocess.TimeoutExpired).
    done = subprocess.run(
        [sys.executable, "-m", "learn", "sessions", "--all-projects"], cwd=tmp_path,
        env=learn_env(LEARN_DATA_DIR=str(tmp_path / "data"), LEARN_CACHE_DIR=str(tmp_path / "cache")),
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "4 session(s)" in done.stdout
