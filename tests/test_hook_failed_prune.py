"""The hook queue's failed/ is pruned: the newest FAILED_KEEP, none past FAILED_MAX_AGE_S.

failed/ was never emptied: a backend that stayed broken (no key, a revoked login) left a
file there for every session that ended, for good. It is pruned when a job goes there and
when a worker starts, touching nothing outside it and following no link. Real files in a
temp folder, the real queue and drain loop; doctor (learn.hook.health) counts what is left.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from learn.hook.event import SessionEnded
from learn.hook.health import hook_health
from learn.hook.queue import FAILED_KEEP, FAILED_MAX_AGE_S, MAX_ATTEMPTS, Job, SessionQueue
from learn.hook.worker import Log, drain

DAY = 86400


def _event(session_id: str, tmp_path: Path) -> SessionEnded:
    return SessionEnded(session_id, str(tmp_path / f"{session_id}.jsonl"), str(tmp_path))


def _failed(queue: SessionQueue, count: int, *, age_s: float = 0.0,
            prefix: str = "old") -> list[Path]:
    """`count` given-up jobs in failed/, the first the oldest, all `age_s` old or more."""
    queue.failed.mkdir(parents=True, exist_ok=True)
    now = time.time()
    paths = []
    for i in range(count):
        path = queue.failed / f"{prefix}-{i:03d}.json"
        path.write_text('{"session_id": "x", "transcript_path": "/x", "attempts": 3}')
        when = now - age_s - (count - i) * 60
        os.utime(path, (when, when))
        paths.append(path)
    return paths


def _give_up(queue: SessionQueue, session_id: str, tmp_path: Path) -> None:
    """The worker's last failed attempt on `session_id`: its job goes to failed/."""
    queue.put(_event(session_id, tmp_path))
    job = queue.claim(session_id)
    assert job is not None
    assert not queue.retry(Job(job.event, job.queued_at, MAX_ATTEMPTS - 1), "ModelError: no")


def test_a_job_given_up_keeps_failed_to_the_newest_ones(tmp_path: Path) -> None:
    queue = SessionQueue(tmp_path / "data")
    jobs = _failed(queue, FAILED_KEEP + 10)
    _give_up(queue, "newest", tmp_path)
    left = {p.name for p in queue.failed.iterdir()}
    assert len(left) == FAILED_KEEP
    assert "newest.json" in left
    # The oldest went: the newest FAILED_KEEP - 1 of the earlier ones stay.
    assert left == {"newest.json", *(p.name for p in jobs[-(FAILED_KEEP - 1):])}
    health = hook_health(tmp_path / "settings.json", tmp_path / "data")
    assert health is not None and health.failed == FAILED_KEEP
    assert health.last_failure == "ModelError: no"


def test_a_worker_starting_drops_failures_past_the_age_limit(tmp_path: Path) -> None:
    root = tmp_path / "data"
    queue = SessionQueue(root)
    old = _failed(queue, 3, age_s=FAILED_MAX_AGE_S + DAY)
    recent = _failed(queue, 2, age_s=FAILED_MAX_AGE_S - DAY, prefix="recent")
    stats = drain(queue, lambda job: "mined", Log(root / "hook"), lock_dir=root,
                  interval=0.0, sleep=lambda s: None)
    assert stats.mined == 0
    assert not any(p.exists() for p in old)
    assert all(p.exists() for p in recent)
    health = hook_health(tmp_path / "settings.json", root)
    assert health is not None and health.failed == 2


def test_an_unreadable_job_moved_to_failed_prunes_it_too(tmp_path: Path) -> None:
    queue = SessionQueue(tmp_path / "data")
    old = _failed(queue, 2, age_s=FAILED_MAX_AGE_S + DAY)
    queue.queued.mkdir(parents=True)
    (queue.queued / "cut.json").write_text('{"session_id": "cu')
    assert queue.claim("cut") is None
    assert (queue.failed / "cut.json").exists()
    assert not any(p.exists() for p in old)


def test_pruning_touches_only_regular_job_files_in_failed(tmp_path: Path) -> None:
    queue = SessionQueue(tmp_path / "data")
    _failed(queue, 1, age_s=FAILED_MAX_AGE_S + DAY)
    outside = tmp_path / "outside.json"
    outside.write_text("someone's\n")
    old = time.time() - FAILED_MAX_AGE_S - DAY
    os.utime(outside, (old, old))
    (queue.failed / "link.json").symlink_to(outside)
    os.utime(queue.failed / "link.json", (old, old), follow_symlinks=False)
    (queue.failed / "notes.txt").write_text("mine\n")
    os.utime(queue.failed / "notes.txt", (old, old))
    (queue.failed / "folder.json").mkdir()
    assert queue.prune_failed() == 1
    assert outside.read_text() == "someone's\n"
    assert sorted(p.name for p in queue.failed.iterdir()) == ["folder.json", "link.json",
                                                              "notes.txt"]


def test_a_failed_folder_that_is_a_link_is_not_pruned(tmp_path: Path) -> None:
    queue = SessionQueue(tmp_path / "data")
    elsewhere = SessionQueue(tmp_path / "elsewhere")
    theirs = _failed(elsewhere, 3, age_s=FAILED_MAX_AGE_S + DAY)
    queue.root.mkdir(parents=True)
    queue.failed.symlink_to(elsewhere.failed)
    assert queue.prune_failed() == 0
    assert all(p.exists() for p in theirs)


def test_a_job_another_worker_removed_first_is_passed_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    queue = SessionQueue(tmp_path / "data")
    jobs = _failed(queue, 4, age_s=FAILED_MAX_AGE_S + DAY)
    real_unlink = os.unlink

    def raced(name: str, *, dir_fd: int | None = None) -> None:
        if name == jobs[0].name:
            real_unlink(name, dir_fd=dir_fd)  # the other worker, just before this one
        real_unlink(name, dir_fd=dir_fd)

    monkeypatch.setattr(os, "unlink", raced)
    assert queue.prune_failed() == 3
    assert list(queue.failed.iterdir()) == []
