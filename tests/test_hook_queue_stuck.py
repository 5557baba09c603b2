"""The hook's queue when a job cannot be claimed or read (audit60 F8, F9).

A queued job whose rename into working/ kept failing (`working/<id>.json` a folder, a
file system remounted read-only) was re-listed and retried at once, forever: `learn hook
drain` never returned and spun at 100% CPU holding the worker lock. A queued file cut
short was claimed, found unreadable, left in working/ ("1 in progress" with no worker)
and deleted later without a word. Real files in a temp folder, the real drain loop.
"""

from __future__ import annotations

import threading
from pathlib import Path

from learn.hook.event import SessionEnded
from learn.hook.health import hook_health
from learn.hook.queue import Job, SessionQueue
from learn.hook.worker import Log, drain


def _event(session_id: str, tmp_path: Path) -> SessionEnded:
    return SessionEnded(session_id, str(tmp_path / f"{session_id}.jsonl"), str(tmp_path))


def _drain_in_thread(queue: SessionQueue, log: Log, lock_dir: Path,
                     mined: list[str]) -> threading.Thread:
    def mine_one(job: Job) -> str:
        mined.append(job.event.session_id)
        return "mined 0 candidates"

    worker = threading.Thread(target=drain, args=(queue, mine_one, log),
                              kwargs={"lock_dir": lock_dir, "interval": 0.0,
                                      "sleep": lambda s: None}, daemon=True)
    worker.start()
    worker.join(timeout=20)
    return worker


def test_a_job_that_cannot_be_claimed_is_skipped_once_and_the_worker_returns(
        tmp_path: Path) -> None:
    root = tmp_path / "data"
    queue = SessionQueue(root)
    queue.put(_event("stuck", tmp_path))
    queue.put(_event("fine", tmp_path))
    # working/stuck.json a folder with something in it: the rename into it fails, every
    # time; and failed/stuck.json too, so the worker's recovery cannot move it away either.
    for where in (queue.working, queue.failed):
        (where / "stuck.json" / "x").mkdir(parents=True)
    log = Log(root / "hook")
    mined: list[str] = []
    worker = _drain_in_thread(SessionQueue(root), log, root, mined)
    assert not worker.is_alive(), "the worker spun on a job it cannot claim"
    assert mined == ["fine"]  # the rest of the queue is still mined
    lines = log.path.read_text().splitlines()
    said = [x for x in lines if "Unclaimable" in x]
    assert len(said) == 1 and "session stuck:" in said[0], lines
    assert (queue.queued / "stuck.json").is_file()  # left queued for the next worker


def test_a_pass_that_claims_nothing_ends(tmp_path: Path) -> None:
    queue = SessionQueue(tmp_path)
    queue.put(_event("stuck", tmp_path))
    (queue.working / "stuck.json" / "x").mkdir(parents=True)
    notes: list[str] = []
    assert list(queue.jobs(note=notes.append)) == []
    assert queue.unclaimable == {"stuck"} and len(notes) == 1


def test_an_unreadable_queued_job_goes_to_failed_with_a_line_and_doctor_counts_it(
        tmp_path: Path) -> None:
    root = tmp_path / "data"
    queue = SessionQueue(root)
    queue.put(_event("cut", tmp_path))
    path = queue.queued / "cut.json"
    path.write_bytes(path.read_bytes()[:20])  # cut short, as a full disk leaves it
    log = Log(root / "hook")
    mined: list[str] = []
    worker = _drain_in_thread(queue, log, root, mined)
    assert not worker.is_alive()
    assert mined == []
    assert (queue.failed / "cut.json").is_file()
    assert not (queue.working / "cut.json").exists()
    said = [x for x in log.path.read_text().splitlines() if "Unreadable" in x]
    assert len(said) == 1 and "session cut:" in said[0] and "failed" in said[0]
    health = hook_health(tmp_path / "no-settings.json", root)
    assert health is not None
    assert (health.failed, health.working, health.queued) == (1, 0, 0)


def test_an_unreadable_job_a_stopped_worker_left_goes_to_failed_not_away(
        tmp_path: Path) -> None:
    queue = SessionQueue(tmp_path)
    queue.working.mkdir(parents=True)
    (queue.working / "left.json").write_text("{not json")
    notes: list[str] = []
    assert queue.recover(notes.append) == 0
    assert (queue.failed / "left.json").read_text() == "{not json"
    assert len(notes) == 1 and "Unreadable" in notes[0]
