"""The SessionEnd hook's parts: the hook input, the queue, the worker's drain loop and
the settings.json entry."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from learn.commands.install_claude_command import command as install
from learn.hook.event import BadHookInput, parse_event, read_stdin
from learn.hook.queue import MAX_ATTEMPTS, Job, SessionQueue
from learn.hook.settings import has_hook, hook_command, is_learn_hook, with_hook, with_hooks
from learn.hook.worker import Log, drain
from learn.lock import run_lock

EVENT = {"session_id": "5f1c2d3e-aaaa-bbbb-cccc-000000000001", "transcript_path": "/t/s.jsonl",
         "cwd": "/work/p", "hook_event_name": "SessionEnd", "reason": "clear"}


def test_the_hook_input_names_the_ended_session() -> None:
    e = parse_event(json.dumps({**EVENT, "permission_mode": "plan", "new_field": 1}).encode())
    assert (e.session_id, e.transcript_path, e.cwd, e.reason) == (
        EVENT["session_id"], "/t/s.jsonl", "/work/p", "clear")


@pytest.mark.parametrize("raw", [
    b"", b"[]", b"{", json.dumps({**EVENT, "session_id": "../../x"}).encode(),
    json.dumps({**EVENT, "session_id": "a/b"}).encode(),
    json.dumps({**EVENT, "transcript_path": None}).encode(),
    json.dumps({**EVENT, "hook_event_name": "Stop"}).encode(),
])
def test_an_unusable_hook_input_is_refused(raw: bytes) -> None:
    with pytest.raises(BadHookInput):
        parse_event(raw)


def test_stdin_is_read_without_waiting_for_a_pipe_that_stays_open() -> None:
    r, w = os.pipe()
    os.write(w, json.dumps(EVENT).encode())
    started = time.monotonic()
    with os.fdopen(r, "rb") as stream:
        got = read_stdin(stream, timeout=5.0)
    os.close(w)
    assert json.loads(got) == EVENT
    assert time.monotonic() - started < 1.0


def test_stdin_that_never_completes_is_given_up_at_the_deadline() -> None:
    r, w = os.pipe()
    os.write(w, b'{"session_id": ')
    started = time.monotonic()
    with os.fdopen(r, "rb") as stream:
        assert read_stdin(stream, timeout=0.3) == b'{"session_id": '
    os.close(w)
    assert time.monotonic() - started < 2.0


def test_a_session_queued_twice_is_one_job_and_only_one_claim_wins(tmp_path: Path) -> None:
    q = SessionQueue(tmp_path)
    event = parse_event(json.dumps(EVENT).encode())
    q.put(event)
    q.put(event)
    assert q.pending() == [event.session_id]
    first, second = q.claim(event.session_id), q.claim(event.session_id)
    assert first is not None and first.event == event
    assert second is None
    assert oct((q.working / f"{event.session_id}.json").stat().st_mode & 0o777) == "0o600"


def test_a_failing_session_is_retried_then_set_aside(tmp_path: Path) -> None:
    q = SessionQueue(tmp_path)
    q.put(parse_event(json.dumps(EVENT).encode()))
    outcomes = []
    for _ in range(MAX_ATTEMPTS):
        job = next(q.jobs())
        outcomes.append(q.retry(job, "HTTP 529"))
    assert outcomes == [True] * (MAX_ATTEMPTS - 1) + [False]
    assert not q.pending() and (q.failed / f"{EVENT['session_id']}.json").exists()


def test_a_job_a_dead_worker_left_is_queued_again(tmp_path: Path) -> None:
    q = SessionQueue(tmp_path)
    q.put(parse_event(json.dumps(EVENT).encode()))
    assert q.claim(str(EVENT["session_id"])) is not None
    assert q.pending() == []
    assert q.recover() == 1
    assert q.pending() == [EVENT["session_id"]]


def _queue_many(q: SessionQueue, n: int) -> list[str]:
    ids = [f"s{i:03d}" for i in range(n)]
    for sid in ids:
        q.put(parse_event(json.dumps({**EVENT, "session_id": sid}).encode()))
    return ids


def test_two_workers_at_once_mine_each_session_once(tmp_path: Path) -> None:
    q = SessionQueue(tmp_path)
    ids = _queue_many(q, 12)
    seen: list[str] = []
    lock = threading.Lock()

    def mine(job: Job) -> str:
        time.sleep(0.01)
        with lock:
            seen.append(job.event.session_id)
        return "mined"

    workers = [threading.Thread(target=drain, args=(SessionQueue(tmp_path), mine, Log(q.root)),
                                kwargs={"lock_dir": tmp_path, "interval": 0}) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted(seen) == ids
    assert q.pending() == []


def test_a_worker_finding_another_at_work_leaves_the_queue_to_it(tmp_path: Path) -> None:
    q = SessionQueue(tmp_path)
    _queue_many(q, 2)
    with run_lock("hook-worker", timeout=0, directory=tmp_path):
        stats = drain(q, lambda job: "mined", Log(q.root), lock_dir=tmp_path, interval=0)
    assert stats.skipped_locked and stats.mined == 0
    assert len(q.pending()) == 2


def test_the_worker_waits_for_a_learn_run_to_finish(tmp_path: Path) -> None:
    q = SessionQueue(tmp_path)
    _queue_many(q, 1)
    mined_while_run_held: list[bool] = []
    held = threading.Event()
    release = threading.Event()

    def run() -> None:
        with run_lock("run", timeout=0, directory=tmp_path):
            held.set()
            release.wait(5)

    t = threading.Thread(target=run)
    t.start()
    held.wait(5)
    sleeps: list[float] = []

    def sleep(s: float) -> None:
        sleeps.append(s)
        release.set()
        t.join()

    def mine(job: Job) -> str:
        mined_while_run_held.append(not release.is_set())
        return "mined"

    stats = drain(q, mine, Log(q.root), lock_dir=tmp_path, interval=0, sleep=sleep)
    assert stats.mined == 1 and mined_while_run_held == [False] and sleeps


def test_a_session_that_fails_is_logged_and_the_rest_still_mined(tmp_path: Path) -> None:
    q = SessionQueue(tmp_path)
    _queue_many(q, 3)

    def mine(job: Job) -> str:
        if job.event.session_id == "s001":
            raise RuntimeError("HTTP 500")
        return "mined"

    stats = drain(q, mine, Log(q.root), lock_dir=tmp_path, interval=0)
    assert stats.mined == 2 and stats.failed == 1
    log = (q.root / "hook.log").read_text(encoding="utf-8")
    assert "s001: RuntimeError: HTTP 500 (will retry)" in log
    # It waits for the next worker instead of being hammered in this one.
    assert q.pending() == ["s001"]
    again = drain(q, lambda job: "mined", Log(q.root), lock_dir=tmp_path, interval=0)
    assert again.mined == 1 and q.pending() == []


def test_the_settings_hook_is_added_once_beside_the_persons_own() -> None:
    mine = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "notify-send bye"}]}],
                      "Stop": [{"hooks": [{"type": "command", "command": "x"}]}]},
            "permissions": {"allow": ["Bash(ls:*)"]}}
    once = with_hook(mine)
    assert has_hook(once) and not has_hook(mine)
    assert once["hooks"]["SessionEnd"][0] == mine["hooks"]["SessionEnd"][0]
    assert once["hooks"]["Stop"] == mine["hooks"]["Stop"] and once["permissions"] == mine["permissions"]
    assert with_hook(once) is once
    command = once["hooks"]["SessionEnd"][1]["hooks"][0]["command"]
    assert command == hook_command() and command.startswith("/")  # learn by absolute path


def test_a_bare_learn_hook_is_pointed_at_this_learn() -> None:
    old = {"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "learn hook session-end",
                                                "timeout": 10}]}]}}
    new = with_hook(old)
    assert new is not old and len(new["hooks"]["SessionEnd"]) == 1
    assert new["hooks"]["SessionEnd"][0]["hooks"][0]["command"] == hook_command()
    assert old["hooks"]["SessionEnd"][0]["hooks"][0]["command"] == "learn hook session-end"


def test_both_hooks_run_this_learn_and_bare_ones_of_either_are_repointed() -> None:
    old = {"hooks": {"InstructionsLoaded": [{"hooks": [
        {"type": "command", "command": "learn hook instructions-loaded", "timeout": 10}]}]}}
    new = with_hooks(old)
    assert with_hooks(new) is new
    for event, args in (("SessionEnd", "hook session-end"),
                        ("InstructionsLoaded", "hook instructions-loaded")):
        [group] = new["hooks"][event]
        [hook] = group["hooks"]
        assert hook["command"] == hook_command(args=args) and hook["command"].startswith("/")
        assert has_hook(new, event, args)
    # One hook is not mistaken for the other (the plugin's script runs both).
    plugin = 'sh "${CLAUDE_PLUGIN_ROOT}/hooks/learn-hook" instructions-loaded'
    assert is_learn_hook(plugin, "hook instructions-loaded") and not is_learn_hook(plugin)


def test_install_with_hooks_writes_settings_and_keeps_a_backup(tmp_path: Path) -> None:
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"model": "opus"}), encoding="utf-8")
    result = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert result.exit_code == 0, result.output
    data = json.loads(settings.read_text(encoding="utf-8"))
    assert data["model"] == "opus" and has_hook(data)
    assert "backed up" in result.output
    again = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert again.exit_code == 0 and "already" in again.output
    assert json.loads(settings.read_text(encoding="utf-8")) == data


def test_install_with_hooks_leaves_a_broken_settings_file_alone() -> None:
    settings = Path.home() / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(install, ["--hooks", "--yes"])
    assert result.exit_code != 0 and "not valid JSON" in result.output
    assert settings.read_text(encoding="utf-8") == "{not json"
