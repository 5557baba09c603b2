"""A file learn's own reader fails on is one "unreadable" skip, said with the error's type,
never the end of the command: the listing, the plan and a run read every other file, and
nothing is stored for the failed one, so it is read again once the reader is fixed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from fixtures.fidelity.writers import Chain, claude_path

import learn.transcripts.parser as parser
from learn.cli import cli

PROJECT = "/srv/shop"
SECRET_WORDS = "the quartzite fixture"


def _ids(n: int) -> list[str]:
    return [f"4111111{k}-2222-4333-8444-555555555555" for k in range(n)]


def _home(n: int) -> list[str]:
    ids = _ids(n)
    for k, sid in enumerate(ids):
        c = Chain(sid, cwd=PROJECT)
        c.user(f"please run the nightly build again, attempt {k}", parent=False)
        c.assistant("It passed.")
        c.write(claude_path(Path.home(), sid, PROJECT))
    return ids


def _fail_on(monkeypatch: pytest.MonkeyPatch, sid: str) -> None:
    real = parser.parse_buffer

    def parse_buffer(buf: bytes, **kw: object) -> object:
        if sid in str(kw.get("path")):
            # A message quoting the file, as a KeyError of a record's text would.
            raise TypeError(f"unhashable: {SECRET_WORDS}")
        return real(buf, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(parser, "parse_buffer", parse_buffer)


def _listing(*args: str) -> Result:
    return CliRunner().invoke(cli, ["sessions", "--all-projects", *args], catch_exceptions=False)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_file_the_reader_fails_on_is_skipped_and_said(
    monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    # Nine files: two workers fork only from eight (pool.MIN_PARALLEL_FILES); the
    # patched reader is theirs too, as a bug would be.
    monkeypatch.setenv("LEARN_PARSE_WORKERS", workers)
    ids = _home(9)
    _fail_on(monkeypatch, ids[4])
    listed = _listing("--json")
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.output)
    assert sorted(r["id"] for r in data["sessions"]) == sorted(set(ids) - {ids[4]})
    [skip] = data["skipped"]
    assert (skip["id"], skip["reason"], skip["provider"]) == (ids[4], "unreadable", "claude")
    assert "TypeError" in skip["detail"] and "report" in skip["detail"]
    # The error's type, never its message: it may quote the transcript.
    assert SECRET_WORDS not in listed.output
    table = _listing()
    assert table.exit_code == 0 and "1 unreadable" in table.output
    assert SECRET_WORDS not in table.output


def test_a_file_that_failed_is_read_again_once_the_reader_reads_it(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEARN_PARSE_WORKERS", "1")
    ids = _home(3)
    with monkeypatch.context() as failing:
        _fail_on(failing, ids[1])
        assert len(json.loads(_listing("--json").output)["sessions"]) == 2
    again = json.loads(_listing("--json").output)
    assert sorted(r["id"] for r in again["sessions"]) == sorted(ids)
    assert again["skipped"] == []


def test_a_plan_and_a_run_count_it_unreadable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEARN_PARSE_WORKERS", "1")
    ids = _home(3)
    _fail_on(monkeypatch, ids[0])
    plan = CliRunner().invoke(cli, ["plan", "--all-projects"], catch_exceptions=False)
    assert plan.exit_code == 0, plan.output
    assert "1 unreadable" in plan.output, plan.output
    run = CliRunner().invoke(cli, ["run", "--offline", "--all-projects", "--yes"],
                             catch_exceptions=False)
    assert run.exit_code == 0, run.output
    assert "1 unreadable" in run.output, run.output
    assert SECRET_WORDS not in plan.output + run.output


def test_the_hook_worker_skips_a_session_it_cannot_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # Read as a run reads it: one "unreadable" skip in the log, naming the error's type,
    # and the job done. Before, the exception was retried three times, the session put
    # in failed/ and the message (which may quote the transcript) written to the log.
    from fixtures.fidelity.writers import claude_path as path_of

    from learn.hook.event import SessionEnded
    from learn.hook.queue import SessionQueue

    [sid] = _home(1)
    _fail_on(monkeypatch, sid)
    queue = SessionQueue()
    queue.put(SessionEnded(sid, str(path_of(Path.home(), sid, PROJECT))))
    done = CliRunner().invoke(cli, ["hook", "drain", "--backend", "replay"])
    assert done.exit_code == 0, done.output
    log = (queue.root / "hook.log").read_text(encoding="utf-8")
    assert (f"session {sid}: skipped: unreadable (learn failed to read it (TypeError): "
            "please report this)") in log, log
    assert SECRET_WORDS not in log
    assert queue.pending() == [] and not any(queue.failed.glob("*"))
