"""Whole runs over a network that fails them: what was done is kept, a re-run picks up
where the last one stopped and counts the same, and what cannot work is said once.

The demo corpus, the real anthropic SDK, the fake Messages and Message Batches
server (tests/fakes/anthropic_batches.py), a stand-in `claude`; budgets are short
and waits are recorded, not slept (tests/_batch_helpers.py).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _batch_helpers import _backend, _server, _use
from _mining_helpers import make_session, user
from fakes.anthropic_batches import FakeBatchServer
from fakes.anthropic_server import FakeAnthropicServer
from fakes.claude_stub import print_result, write_claude_stub

from learn.config import Config, load_config
from learn.mining.miner import mine_session
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.base import ModelError, ModelRequest, ModelResponse, ToolSpec
from learn.models.claude_cli import ClaudeCliBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy
from learn.pipeline import RunOptions, run_pipeline
from learn.records.proposal import RunResult

KEY = "sk-ant-api03-network-audit-key-0123456789"


def _run(config: Config | None = None, *, batch: bool = False,
         backend: Any = None, notes: list[str] | None = None) -> RunResult:
    result, _ = run_pipeline(RunOptions(all_projects=True, embedder="tfidf", batch=batch,
                                        show_all=True),
                             config or load_config(), backend=backend or _backend(),
                             notify=None if notes is None else notes.append)
    return result


def _shape(result: RunResult) -> list[tuple[str, int]]:
    return sorted((p.key, p.sessions) for p in result.proposals)


def _mining(fake: FakeBatchServer) -> list[str]:
    return [r.user_text for r in fake.requests
            if fake.route(r) == "messages" and r.tool_name == "record_candidates"]


@pytest.fixture(scope="module")
def direct(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[str, int]]]:
    """The proposals of a clean, uninterrupted direct run: what every run here ends with."""
    root = tmp_path_factory.mktemp("direct") / "r"
    mp = pytest.MonkeyPatch()
    fake = _server(root)
    with fake:
        _use(root, fake, mp)
        got = _shape(_run())
    mp.undo()
    assert got, "the demo corpus proposes something"
    yield got


# -- a gateway without Message Batches -------------------------------------------------

@pytest.mark.parametrize("status", [404, 405])
def test_a_gateway_without_batches_mines_directly_and_does_not_fail_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct: list[tuple[str, int]], status: int,
) -> None:
    # Was: failed_stages ("batch",), exit 1, "batch submit failed after retries".
    root = tmp_path / "r"
    fake = _server(root)
    fake.fail("create", status, times=10, retry_after=False)
    notes: list[str] = []
    with fake:
        _use(root, fake, monkeypatch)
        result = _run(batch=True, backend=_backend(budget=5.0), notes=notes)
    assert fake.faults_served["create"] == 1, "a 404/405 is not asked again"
    assert not fake.batches and _mining(fake)
    assert not result.failed_stages, result.failures
    assert not any(f.startswith("batch") for f in result.failures), result.failures
    (note,) = [n for n in notes if "no Message Batches" in n]
    assert f"HTTP {status}" in note and "mined directly" in note
    assert _shape(result) == direct
    assert result.usage.sessions_mined == result.usage.sessions_seen


def test_a_pending_batch_the_endpoint_does_not_know_is_mined_directly_not_held_forever(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct: list[tuple[str, int]],
) -> None:
    # A batch submitted, left pending (its polls failed), then unknown to the endpoint
    # (expired after 29 days, or ANTHROPIC_BASE_URL now names a gateway): every run
    # after held its sessions, never mined them, and failed.
    root = tmp_path / "r"
    fake = _server(root)
    fake.fail("poll", 529, times=1000, retry_after=False)
    with fake:
        _use(root, fake, monkeypatch)
        first = _run(batch=True, backend=_backend(budget=3.0))
        assert "batch" in first.failed_stages and not _mining(fake)
        fake._faults.clear()
        fake.batches.clear()  # the endpoint no longer knows it: 404 "no such batch"
        notes: list[str] = []
        second = _run(notes=notes)
        assert not second.failed_stages, second.failures
        assert any("is not known to this endpoint" in n and "mined directly" in n for n in notes)
        assert _shape(second) == direct
        assert second.usage.sessions_mined == second.usage.sessions_seen
        polls = sum(1 for r in fake.requests if fake.route(r) == "poll")
        third = _run()  # nothing pending any more: no poll, nothing mined again
        assert sum(1 for r in fake.requests if fake.route(r) == "poll") == polls
        assert not third.failed_stages and _shape(third) == direct
        assert third.usage.sessions_cached == third.usage.sessions_seen


def test_batches_collect_prints_a_failure_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `learn batches --collect` printed the run's failures as they came, not through
    # the redaction `learn run` applies: an error quoting the key went out whole.
    from click.testing import CliRunner

    from learn.commands.batches import command

    root = tmp_path / "r"
    fake = _server(root)
    fake.fail("poll", 529, times=1000, retry_after=False)
    with fake:
        _use(root, fake, monkeypatch)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        _run(batch=True, backend=_backend(budget=2.0))
        fake._faults.clear()
        fake.fail("poll", 500, times=1000, retry_after=True, message=f"bad key {KEY}")
        monkeypatch.setenv("LEARN_CONFIG_DIR", str(root / "config"))
        (root / "config").mkdir(parents=True, exist_ok=True)
        (root / "config" / "config.toml").write_text("[backend]\nretry_seconds = 2\n")
        done = CliRunner().invoke(command, ["--collect"])
    assert done.exit_code == 1, done.output
    assert "bad key" in done.output and KEY not in done.output, done.output


def test_an_overload_notice_never_prints_the_key(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # The wait notice quotes the 529's own message; a proxy quoting the key put it on
    # the terminal whole.
    from learn.commands.run import build_backend

    with FakeAnthropicServer() as fake:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        fake.enqueue_status(529, headers={"retry-after": "2.1"}, message=f"busy, key {KEY}")
        backend = build_backend("anthropic", record=False, cache_dir=None, config=load_config())
        tool = ToolSpec("record_candidates", "", {"type": "object"})
        backend.call(ModelRequest("mine", "claude-haiku-4-5", "s", tool, "USER: hi"))
    err = capsys.readouterr().err
    assert "waiting for the API: HTTP 529" in err and "busy, key" in err
    assert KEY not in err


# -- a prompt too long for the model is split, not failed -------------------------------

def test_a_chunk_refused_as_too_long_is_split_and_both_halves_mined() -> None:
    # Was: the chunk failed, the session was not cached, and every later run sent the
    # same request and failed the same way.
    session = make_session([user("always use bun, never npm", 0), user("run the tests with bun", 1)])
    with FakeAnthropicServer(responder=lambda r: {"candidates": [
            {"kind": "directive", "text": "always use bun, never npm"}]}
            if "always use bun" in r.user_text else {"candidates": []}) as fake:
        fake.enqueue_status(400, message="prompt is too long: 210000 tokens > 200000 maximum")
        backend = AnthropicBackend(api_key="k", base_url=fake.base_url,
                                   limiter=RateLimiter(None, None),
                                   retry=RetryPolicy(sleep=lambda s: None))
        result = mine_session(session, backend, model="claude-haiku-4-5")
        sent = [r.user_text for r in fake.requests]
    assert result.complete and result.split_chunks == 1 and result.truncated_chunks == 0
    assert [c.text for c in result.candidates] == ["always use bun, never npm"]
    assert len(sent) == 3 and all(len(half) < len(sent[0]) for half in sent[1:])


# -- a `claude` that hangs --------------------------------------------------------------

def test_a_hanging_claude_holds_a_run_for_the_budget_not_five_minutes_a_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every call waited its whole timeout: 40 hung sessions, 50 minutes at four workers.
    stub = write_claude_stub(tmp_path / "bin", stdout=print_result({"candidates": []}), sleep=30)
    monkeypatch.setenv("PATH", f"{stub.path.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    # A budget above the timeout: the first call has its whole timeout, and its own
    # 3 s count against the budget (learn.models.retry.Outage.failed).
    backend = ClaudeCliBackend(timeout=3.0, retry_seconds=3.5)
    tool = ToolSpec("record_candidates", "", {"type": "object"})
    request = ModelRequest("mine", "claude-haiku-4-5", "s", tool, "USER: hi")

    def took() -> tuple[float, str]:
        started = time.monotonic()
        with pytest.raises(ModelError) as info:
            backend.call(request)
        return time.monotonic() - started, str(info.value)

    first, said = took()
    assert first >= 3.0 and "timed out after 3s" in said
    second, said = took()  # the budget is spent: what is left of it, at least 1 s
    assert second < 2.2 and "timed out after 1s" in said
    write_claude_stub(tmp_path / "bin", stdout=print_result({"candidates": []}))
    assert backend.call(request).tool_input == {"candidates": []}
    assert backend.outage.elapsed() == 0.0  # it answers again: the next call gets 3 s


# -- killed part-way, run again ---------------------------------------------------------

class Killed(BaseException):
    """The process ends here (kill -9): nothing after it runs, nothing is cleaned up."""


class DiesAfter:
    """A backend that dies once `n` mining calls have been answered."""

    def __init__(self, inner: Any, n: int) -> None:
        self.inner, self.name, self.n = inner, inner.name, n
        self.answered = 0
        self.lock = threading.Lock()

    def call(self, request: ModelRequest) -> ModelResponse:
        if request.tool.name == "record_candidates":
            with self.lock:
                if self.answered >= self.n:
                    raise Killed()
                self.answered += 1
        response: ModelResponse = self.inner.call(request)
        return response


def test_a_run_killed_after_some_sessions_reruns_only_the_rest_and_counts_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, direct: list[tuple[str, int]],
) -> None:
    root = tmp_path / "r"
    fake = _server(root)
    with fake:
        _use(root, fake, monkeypatch)
        monkeypatch.setenv("LEARN_CONCURRENCY", "1")
        with pytest.raises(Killed):
            _run(backend=DiesAfter(_backend(), 3))
        mined_before = len(_mining(fake))
        assert mined_before == 3
        again = _run()
    # Nothing mined twice: the three answered before the kill came from the cache.
    assert max(fake.answered.values()) == 1
    assert again.usage.sessions_cached == 3
    assert _shape(again) == direct
