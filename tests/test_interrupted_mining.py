"""Ctrl-C while `claude -p` calls run: the run ends at once, not after the calls.

The terminal's SIGINT reaches the processes running at that moment; a call a
worker thread starts a moment later is outside it. Before abort(), the pool's
exit waited for such a call to its end (here a 60 s stub; with the real CLI,
as long as a model call takes). Here the interrupt reaches the main
thread alone (pthread_kill), so every `claude` process is one the signal missed.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from _mining_helpers import make_session, user
from fakes.claude_stub import print_result, write_claude_stub

from learn.mining.miner import mine_sessions
from learn.models.base import ModelError, ModelRequest, ToolSpec
from learn.models.claude_cli import ClaudeCliBackend

TOOL = ToolSpec("record_candidates", "Record what the user keeps saying.",
                {"type": "object", "properties": {"candidates": {"type": "array"}}})


def _request() -> ModelRequest:
    return ModelRequest("mine", "claude-haiku-4-5", "You read transcripts.", TOOL, "USER: use bun")


def _wait_for(check: object, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.02)


def test_abort_ends_a_running_call_and_refuses_the_next(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    stub = write_claude_stub(tmp_path / "bin", stdout=print_result({"candidates": []}), sleep=60)
    monkeypatch.setenv("PATH", f"{stub.path.parent}{os.pathsep}{os.environ['PATH']}")
    backend = ClaudeCliBackend()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            backend.call(_request())
        except ModelError as exc:
            failed.append(exc)

    worker = threading.Thread(target=run)
    started = time.monotonic()
    worker.start()
    _wait_for(lambda: stub.calls())
    backend.abort()
    worker.join(20)
    assert not worker.is_alive() and time.monotonic() - started < 20  # not the stub's 60 s
    assert failed and "interrupted" in str(failed[0])
    with pytest.raises(ModelError, match="not started"):
        backend.call(_request())
    assert len(stub.calls()) == 1  # the refused call started no process


def test_an_interrupt_during_mining_does_not_wait_for_the_calls(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = write_claude_stub(tmp_path / "bin", stdout=print_result({"candidates": []}), sleep=60)
    monkeypatch.setenv("PATH", f"{stub.path.parent}{os.pathsep}{os.environ['PATH']}")
    sessions = [make_session([user(f"session {i}: use bun, never npm", 0)], sid=f"s{i}")
                for i in range(8)]
    main = threading.main_thread().ident
    assert main is not None and threading.get_ident() == main

    def interrupt() -> None:
        _wait_for(lambda: len(stub.calls()) >= 2)
        signal.pthread_kill(main, signal.SIGINT)

    # SIGINT as a terminal's learn has it: a suite started as a background job
    # (`make test &`) inherits it ignored.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Thread(target=interrupt, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            mine_sessions(sessions, ClaudeCliBackend(), model="claude-haiku-4-5", concurrency=3)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 30  # the calls (60 s each) were ended, not awaited
    assert len(stub.calls()) <= 3  # nothing queued was started after the interrupt
