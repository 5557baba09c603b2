"""A team run keeps its books as a personal run does: every call, failed ones included, on disk as it returns.

A team run (learn.reduce.team) summed its meter's tokens by hand at its end, so
its failed calls were never in its books, and a team run killed mid-way (SIGKILL:
an OOM killer, a CI timeout) left no row in the team's `runs` at all, though every
call it had been answered was billed. Here, on a SQLite team file and the fake
Messages server on 127.0.0.1: a run whose calls partly fail counts them; a finished
run's books are written over the row its first paid call started (one row); and
the real CLI, killed once the fake has answered two calls, leaves a row holding
exactly those two.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import DEFAULT_USAGE, FakeAnthropicServer, default_tool_input
from fakes.http_server import RecordedRequest
from test_interrupt_points import wait_until

from learn.config import Config, ModelsConfig, TeamConfig
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.catalog import model_info
from learn.models.retry import RetryPolicy
from learn.records.proposal import RunResult
from learn.reduce.team import run_team
from learn.store import FeedbackStore, open_store
from learn.store.team import SharedCandidate

REPO = Path(__file__).resolve().parents[1]
REMOTE = "https://github.com/team/app.git"
REPOSITORY = "github.com/team/app"  # what a checkout with REMOTE is grouped by
SAID = ("never deploy on fridays", "use the staging database", "keep pull requests small",
        "write a changelog entry")
# One naming call per group (name_batch = 1), then one judge call: five calls.
NAMING_CALLS = len(SAID)
ANSWERED = 2  # calls the killed run is answered before it is killed


def _team_file(tmp_path: Path) -> Path:
    """A SQLite team file where two people said each of SAID once."""
    db = tmp_path / "team.db"
    rows = [SharedCandidate(person, f"{person}{i}", "directive", None, text, f"2026-11-0{i + 1}",
                            REPOSITORY)
            for i, text in enumerate(SAID) for person in ("ana", "bo")]
    with open_store(db) as store:
        store.team.share(rows)
    return db


def _run(tmp_path: Path, db: Path, fake: FakeAnthropicServer) -> RunResult:
    backend = AnthropicBackend(api_key="test-key", base_url=fake.base_url,
                               retry=RetryPolicy(sleep=lambda s: None, max_attempts=1))
    config = Config(team=TeamConfig(database_url=str(db)), models=ModelsConfig(name_batch=1))
    return run_team(tmp_path, REPOSITORY, config, backend=backend, embedder="tfidf")


def _messages(fake: FakeAnthropicServer) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.path.split("?")[0].rstrip("/").endswith("/v1/messages")]


def _runs(db: Path) -> list[dict[str, Any]]:
    with FeedbackStore.open(db) as store:
        rows: list[dict[str, Any]] = store.sql(
            "SELECT id, finished_at, usage_json FROM runs ORDER BY id")
    return rows


def test_a_team_run_whose_calls_partly_fail_counts_the_failed_calls_and_every_token(
        tmp_path: Path) -> None:
    db = _team_file(tmp_path)
    with FakeAnthropicServer() as fake:
        # Two answers without the tool: unusable, and billed (the fake's usage on each).
        fake.enqueue_text("I would call this one deploy-days.")
        fake.enqueue_text("Staging, I think.")
        result = _run(tmp_path, db, fake)
        sent = len(_messages(fake))
    assert sent > 2
    usage = result.usage
    assert usage.failed_calls == 2
    assert usage.model_calls == sent
    assert usage.input_tokens == sent * DEFAULT_USAGE["input_tokens"]
    assert usage.output_tokens == sent * DEFAULT_USAGE["output_tokens"]
    (row,) = _runs(db)
    assert json.loads(row["usage_json"]) == usage.to_json()


def test_a_finished_team_run_writes_its_books_over_the_row_its_first_call_started(
        tmp_path: Path) -> None:
    db = _team_file(tmp_path)
    during: list[list[dict[str, Any]]] = []

    def responder(request: RecordedRequest) -> dict[str, Any]:
        if request.tool_name == "record_verdicts":  # the last call: naming has been paid
            during.append(_runs(db))
        return default_tool_input(request.tool_name)

    with FakeAnthropicServer(responder=responder) as fake:
        result = _run(tmp_path, db, fake)
    (before,) = during
    (started,) = before
    assert started["finished_at"] is None
    assert json.loads(started["usage_json"])["model_calls"] == NAMING_CALLS
    (row,) = _runs(db)
    assert row["id"] == started["id"] and row["finished_at"] is not None
    assert json.loads(row["usage_json"]) == result.usage.to_json()
    assert result.usage.model_calls == NAMING_CALLS + 1 and result.usage.sessions_seen == 8


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the subprocess helpers are Linux's (test_interrupt_points)")
def test_a_team_run_killed_after_two_calls_leaves_a_row_with_those_two(tmp_path: Path) -> None:
    db = _team_file(tmp_path)
    home = tmp_path / "person"
    app = home / "code" / "app"
    app.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(app)], check=True)
    subprocess.run(["git", "-C", str(app), "remote", "add", "origin", REMOTE], check=True)
    (home / "config").mkdir()
    (home / "config" / "config.toml").write_text(
        f'[models]\nname_batch = 1\n\n[team]\ndatabase_url = "{db}"\n')
    release = threading.Event()
    answered = 0
    lock = threading.Lock()

    def responder(request: RecordedRequest) -> dict[str, Any]:
        nonlocal answered
        with lock:
            hold = answered >= ANSWERED
            answered += 0 if hold else 1
        if hold:
            release.wait(60)
        return default_tool_input(request.tool_name)

    with FakeAnthropicServer(responder=responder) as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
        env.update(HOME=str(home), LEARN_DATA_DIR=str(home / "data"),
                   LEARN_CACHE_DIR=str(home / "cache"), LEARN_CONFIG_DIR=str(home / "config"),
                   PYTHONPATH=str(REPO), **fake.env())
        proc = subprocess.Popen(
            [sys.executable, "-m", "learn", "run", "--team", "--project", str(app), "--yes",
             "--quiet", "--embedder", "tfidf", "--backend", "anthropic"],
            cwd=app, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        # Naming calls one at a time: the third sent means the first two came back
        # and were counted (the meter writes before the next call is made).
        wait_until(lambda: len(_messages(fake)) > ANSWERED, proc,
                   f"{ANSWERED} calls answered and the next one held")
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        release.set()
        model = str(_messages(fake)[0].json["model"])
    assert proc.returncode == -signal.SIGKILL

    (row,) = _runs(db)
    assert row["finished_at"] is None  # unfinished, and on the books
    usage = json.loads(row["usage_json"])
    assert (usage["model_calls"], usage["failed_calls"]) == (ANSWERED, 0)
    assert usage["input_tokens"] == ANSWERED * DEFAULT_USAGE["input_tokens"]
    assert usage["output_tokens"] == ANSWERED * DEFAULT_USAGE["output_tokens"]
    per_call = model_info(model).cost(DEFAULT_USAGE["input_tokens"], DEFAULT_USAGE["output_tokens"])
    assert per_call > 0
    assert usage["cost_usd"] == pytest.approx(ANSWERED * per_call, abs=1e-6)
