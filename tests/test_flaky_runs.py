"""A flaky Messages endpoint through the real CLI (the network audit, F1 hook path, F4,
F5): a connection reset at the startup check, a key refused after the check passed, and
a refused answer in the SessionEnd hook's worker. `python -m learn` over the demo corpus,
against the fake Messages server on 127.0.0.1."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest, Reply, _reset

from evals.corpora import demo
from evals.oracle import GoldOracle
from learn.config import Config
from learn.hook.event import SessionEnded
from learn.hook.queue import SessionQueue
from learn.models.preflight import check_backend_ready

REPO = Path(__file__).resolve().parents[1]
RUN = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet"]


class Resetting(FakeAnthropicServer):
    """Resets (RST, before any byte) the first `resets` preflight checks (GET /v1/models)."""

    def __init__(self, resets: int, **kw: Any) -> None:
        super().__init__(**kw)
        self.resets = resets
        self.reset_done = 0

    def _serve(self, handler: Any) -> None:
        if handler.command == "GET" and "/v1/models" in handler.path and self.resets > 0:
            self.resets -= 1
            self.reset_done += 1
            _reset(handler)
            handler.wfile = io.BytesIO()  # the handler flushes it after us: nothing to send
            return
        super()._serve(handler)


class KeyRevoked(FakeAnthropicServer):
    """The preflight takes the key; every Messages call refuses it (HTTP 401)."""

    def default_reply(self, request: RecordedRequest) -> Reply:
        return self.error_reply(401, message="invalid x-api-key")


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, GoldOracle]:
    gold = demo.build(tmp_path / "corpus")
    return tmp_path / "corpus" / "home", GoldOracle(gold)


def learn(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_", "OPENAI_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), LEARN_DATA_DIR=str(home / "data"),
               LEARN_CACHE_DIR=str(home / "cache"), LEARN_CONFIG_DIR=str(home / "config"),
               LEARN_HOOK_INTERVAL="0", **extra)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=240, cwd=home)


# -- F4: the startup check --------------------------------------------------------------


def test_one_reset_at_the_startup_check_is_asked_again_and_the_run_goes_on(
        corpus: tuple[Path, GoldOracle]) -> None:
    home, oracle = corpus
    with Resetting(1, responder=lambda r: oracle.answer(r.tool_name or "", r.user_text)) as fake:
        done = learn(home, *RUN, "--backend", "anthropic", **fake.env())
    # Was: exit 3, "nothing answers at http://127.0.0.1:… ([Errno 104] Connection reset by peer)".
    assert fake.reset_done == 1
    assert done.returncode == 0, done.stderr
    assert "nothing answers" not in done.stderr and "Traceback" not in done.stderr


def test_a_check_reset_every_time_says_reset_not_nothing_answers() -> None:
    with Resetting(10) as fake:
        ready = check_backend_ready("anthropic", Config(), env=fake.env())
        url = fake.base_url
    assert not ready.ok and ready.problem == "unavailable"
    assert fake.reset_done == 3  # PREFLIGHT_ATTEMPTS
    line = ready.line()
    assert f"the connection to {url} was reset before it answered, 3 times in a row" in line
    assert "nothing answers" not in line
    assert "fix: try again in a minute; if it keeps happening, check ANTHROPIC_BASE_URL" in line


# -- F5: a key refused mid-run --------------------------------------------------------


@pytest.mark.parametrize("in_flight", ["1", "4"])
def test_a_key_refused_after_the_check_stops_the_run_at_once_with_exit_3(
        corpus: tuple[Path, GoldOracle], in_flight: str) -> None:
    home, _ = corpus
    with KeyRevoked() as fake:
        done = learn(home, *RUN, "--backend", "anthropic", LEARN_CONCURRENCY=in_flight, **fake.env())
    assert "Traceback" not in done.stderr, done.stderr
    # Was: exit 1, 8 refused requests (one per session, then naming), "failed after retries".
    assert done.returncode == 3, done.stderr
    assert len(fake.requests) <= int(in_flight)  # only the calls already in flight
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("learn run: anthropic: HTTP 401 authentication_error: invalid x-api-key")
    assert "fix: check ANTHROPIC_API_KEY" in lines[0] and "the run stopped" in lines[0]
    assert "retr" not in done.stderr  # nothing was retried, and nothing says it was
    assert "test-key" not in done.stderr + done.stdout


def test_with_exit_zero_the_refused_key_is_said_in_the_digest(corpus: tuple[Path, GoldOracle]) -> None:
    home, _ = corpus
    with KeyRevoked() as fake:
        done = learn(home, *RUN, "--exit-zero", "--backend", "anthropic", LEARN_CONCURRENCY="1",
                     **fake.env())
    assert done.returncode == 0, done.stderr
    assert "## What failed" in done.stdout and "ANTHROPIC_API_KEY" in done.stdout
    # The run had begun (sessions read, one asked): not "could not run, nothing was read".
    assert "learn run stopped before its digest" in done.stdout
    assert "nothing was read" not in done.stdout
    assert len(fake.requests) == 1


# -- F1: the SessionEnd hook's worker ---------------------------------------------------


def test_the_hook_worker_does_not_cache_a_refused_session(corpus: tuple[Path, GoldOracle]) -> None:
    home, oracle = corpus
    transcript = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))[0]
    queue = SessionQueue(home / "data")
    queue.put(SessionEnded(transcript.stem, str(transcript), str(home)))

    def refusing(request: RecordedRequest) -> Any:
        return oracle.answer(request.tool_name or "", request.user_text)

    with FakeAnthropicServer(responder=refusing) as fake:
        for _ in range(40):
            fake.enqueue_answer({"candidates": []}, stop_reason="refusal")
        done = learn(home, "hook", "drain", "--backend", "anthropic", **fake.env())
        refused = len(fake.requests)
    assert done.returncode == 0, done.stderr
    log = (home / "data" / "hook" / "hook.log").read_text(encoding="utf-8")
    # Was: "mined: 0 candidate(s) in 1 chunk(s)", cached for good.
    assert "refused to answer" in log and "(will retry)" in log, log
    assert "mined:" not in log
    assert refused >= 2 and transcript.stem in queue.pending()

    with FakeAnthropicServer(responder=refusing) as fake:
        done = learn(home, "hook", "drain", "--backend", "anthropic", **fake.env())
        asked = len(fake.requests)
    log = (home / "data" / "hook" / "hook.log").read_text(encoding="utf-8")
    assert asked >= 1 and f"session {transcript.stem}: mined:" in log, log
