"""Every file learn appends to is 0600, also one that was there before with a wider mode.

O_CREAT's mode applies to a new file only: a decisions log, a check's log or hits, or
an InstructionsLoaded record left 0644 (a copy, an older learn, a restore) stayed
readable by anyone while learn went on appending what the person typed or ran."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from learn.guard import hook as guard_hook
from learn.paths import data_dir, open_private_append
from learn.report import runs
from learn.transcripts.instructions import append_hook_record, record_dir


def _wide(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    os.chmod(path, 0o644)
    return path


def _mode(path: Path) -> int:
    return os.stat(path).st_mode & 0o777


def test_open_private_append_tightens_a_file_that_was_there(tmp_path: Path) -> None:
    log = _wide(tmp_path / "x.log")
    os.close(open_private_append(log))
    assert _mode(log) == 0o600
    os.close(open_private_append(tmp_path / "new.log"))
    assert _mode(tmp_path / "new.log") == 0o600


def test_the_decisions_log_is_tightened(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fallback log of a learn whose store is not wired.
    monkeypatch.setattr(runs, "_store_hook", lambda name: None)
    path = _wide(data_dir() / "decisions.jsonl")
    runs._record_default("directive:use-bun", "accepted", "use bun", None)
    assert _mode(path) == 0o600
    assert json.loads(path.read_text().splitlines()[-1])["key"] == "directive:use-bun"


def test_a_checks_log_is_tightened(tmp_path: Path) -> None:
    rules = tmp_path / "checks" / "app.json"
    rules.parent.mkdir(parents=True)
    log = _wide(rules.parent / "check.log")
    guard_hook._log(str(rules), "a line")
    assert _mode(log) == 0o600


def test_an_instructions_record_is_tightened(tmp_path: Path) -> None:
    sid = "0b7c2a4e-3f1d-4c55-9e0a-6d2f8b1c9a77"
    record = _wide(record_dir(tmp_path) / f"{sid}.jsonl")
    raw = json.dumps({"hook_event_name": "InstructionsLoaded", "session_id": sid,
                      "file_path": "/w/app/CLAUDE.md", "memory_type": "Project",
                      "load_reason": "session_start", "cwd": "/w/app"}).encode()
    assert append_hook_record(raw, tmp_path) == sid
    assert _mode(record) == 0o600
