"""The miner through the real anthropic SDK (AnthropicBackend) against a fake server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from _mining_helpers import fail, make_session, tool, user
from fakes.anthropic_server import FakeAnthropicServer
from fakes.http_server import RecordedRequest

from learn.mining.cache import MineCache
from learn.mining.miner import mine_sessions
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy
from learn.transcripts.view.model import Session

MODEL = "claude-haiku-4-5"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropicServer]:
    def responder(request: RecordedRequest) -> Mapping[str, Any]:
        text = request.user_text
        found = [{"kind": "directive", "text": q}
                 for q in ("we use bun here", "never force push", "keep commits small") if q in text]
        return {"candidates": found}

    with FakeAnthropicServer(responder=responder) as server:
        for k, v in server.env().items():
            monkeypatch.setenv(k, v)
        yield server


def _backend(waits: list[float] | None = None) -> AnthropicBackend:
    sleep = (lambda s: waits.append(s)) if waits is not None else (lambda s: None)
    return AnthropicBackend(
        retry=RetryPolicy(max_attempts=3, initial_backoff=0, jitter=0, sleep=sleep),
        limiter=RateLimiter(None, 4, sleep=lambda s: None),
    )


def _sessions(tmp_path: Path) -> list[Session]:
    out = []
    for i, said in enumerate(["we use bun here, ok?", "never force push to main", "keep commits small"]):
        p = tmp_path / f"s{i}.jsonl"
        p.write_text(f"transcript {i}")
        out.append(make_session([user(said, 0), tool("Bash", "git status", 1)], sid=f"s{i}", path=p))
    return out


def test_tool_use_answers_are_mined_verified_cached_and_warm_rerun_is_free(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    sessions = _sessions(tmp_path)
    cache = MineCache()
    results = mine_sessions(sessions, _backend(), model=MODEL, cache=cache, concurrency=2)
    assert [len(r.candidates) for r in results] == [1, 1, 1]
    assert len(fake.requests) == 3
    body = fake.requests[0].json
    assert body["tool_choice"] == {"type": "tool", "name": "record_candidates"}
    assert [t["name"] for t in body["tools"]] == ["record_candidates"]
    assert results[0].usage.calls == 1 and results[0].usage.input_tokens == 100

    mine_sessions(sessions, _backend(), model=MODEL, cache=cache)
    assert len(fake.requests) == 3  # warm: zero calls


def test_429_with_retry_after_and_529_are_retried(fake: FakeAnthropicServer, tmp_path: Path) -> None:
    fake.enqueue_status(429, headers={"retry-after": "7"})
    fake.enqueue_overloaded()
    waits: list[float] = []
    results = mine_sessions(_sessions(tmp_path)[:1], _backend(waits), model=MODEL, cache=MineCache())
    assert results[0].complete and len(results[0].candidates) == 1
    assert 7 in waits
    assert len(fake.requests) == 3


def test_persistent_errors_fail_the_session_and_nothing_is_cached(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    fake.enqueue_status(500, times=3)  # exhausts the 3 attempts of the first session
    cache = MineCache()
    sessions = _sessions(tmp_path)
    results = mine_sessions(sessions, _backend(), model=MODEL, cache=cache, concurrency=1)
    assert results[0].failed and results[0].failed_chunks == 1
    assert not results[1].failed and not results[2].failed  # the run completes
    assert len(list(cache.dir.glob("*.json"))) == 2
    # Next run retries exactly the failed session.
    before = len(fake.requests)
    again = mine_sessions(sessions, _backend(), model=MODEL, cache=cache)
    assert len(fake.requests) == before + 1 and not again[0].failed


def test_malformed_and_schema_invalid_answers_are_repaired_then_cached(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    # Session 0: the wrong shape, then (while being repaired) no tool call at all, then right.
    fake.enqueue_answer({"not_candidates": 5})
    fake.enqueue_text("Sorry, I can't help with that.")
    cache = MineCache()
    results = mine_sessions(_sessions(tmp_path), _backend(), model=MODEL, cache=cache, concurrency=1)
    assert all(r.complete for r in results)
    assert [len(r.candidates) for r in results] == [1, 1, 1]
    assert len(fake.requests) == 5
    # The repair carried the model's bad answer and the validation error.
    [result] = fake.requests[1].tool_results
    assert result["is_error"] and "candidates" in result["content"]
    assert [len(q.json["messages"]) for q in fake.requests] == [1, 3, 3, 1, 1]
    assert [r.usage.calls for r in results] == [3, 1, 1]
    assert len(list(cache.dir.glob("*.json"))) == 3


def test_answer_invalid_three_times_fails_the_session_uncached_with_its_cost(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    for _ in range(3):
        fake.enqueue_answer({"candidates": [{"kind": "preference", "text": "we use bun here"}]})
    cache = MineCache()
    [r] = mine_sessions(_sessions(tmp_path)[:1], _backend(), model=MODEL, cache=cache)
    assert r.failed and r.error is not None and "after 3 attempts" in r.error
    assert "candidates.0" in fake.requests[2].tool_results[-1]["content"]
    assert r.usage.calls == 3
    assert not list(cache.dir.glob("*.json"))


def test_cut_answer_is_asked_again_larger_and_never_cached_partial(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    fake.enqueue_truncated({"candidates": [{"kind": "directive", "text": "we use"}]})
    cache = MineCache()
    [r] = mine_sessions(_sessions(tmp_path)[:1], _backend(), model=MODEL, cache=cache)
    assert r.complete and [c.text for c in r.candidates] == ["we use bun here"]
    first, second = (q.json["max_tokens"] for q in fake.requests)
    assert second == 2 * first
    [entry] = cache.dir.glob("*.json")
    assert '"we use bun here"' in entry.read_text() and '"we use"' not in entry.read_text()


def _two_turns(tmp_path: Path) -> Session:
    p = tmp_path / "two.jsonl"
    p.write_text("two turns")
    return make_session([user("we use bun here in this repo", 0), tool("Bash", "git status", 1),
                         user("never force push to main please", 2)], sid="two", path=p)


def test_still_cut_after_the_larger_budget_splits_the_chunk_in_two(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    for _ in range(2):
        fake.enqueue_truncated({"candidates": [{"kind": "directive", "text": "we use bun here"}]})
    cache = MineCache()
    [r] = mine_sessions([_two_turns(tmp_path)], _backend(), model=MODEL, cache=cache)
    assert r.complete and r.truncated_chunks == 1 and r.split_chunks == 1
    assert sorted(c.text for c in r.candidates) == ["never force push", "we use bun here"]
    halves = [q.user_text for q in fake.requests[2:]]
    assert len(halves) == 2
    assert "we use bun here" in halves[0] and "never force push" not in halves[0]
    assert "never force push" in halves[1]
    assert len(list(cache.dir.glob("*.json"))) == 1


def test_a_half_still_cut_fails_the_chunk_and_nothing_is_cached(
    fake: FakeAnthropicServer, tmp_path: Path
) -> None:
    for _ in range(4):  # whole chunk twice, first half twice
        fake.enqueue_truncated({"candidates": [{"kind": "directive", "text": "we use bun here"}]})
    cache = MineCache()
    [r] = mine_sessions([_two_turns(tmp_path)], _backend(), model=MODEL, cache=cache)
    assert r.failed and r.error is not None and "max_tokens" in r.error
    assert not list(cache.dir.glob("*.json"))


SECRETS = {
    "anthropic": "sk-ant-api03-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "openai": "sk-proj-" + "Q1w2E3r4T5y6U7i8O9p0AaSsDdFfGgHh",
    "github": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "aws": "AKIA" + "IOSFODNN7EXAMPLE",
    "aws-secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    "slack": "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp",
    "google": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "pem": "MIIEowIBAAKCAQEA7x9q2w3e4r5",
    "url": "s3cr3tPassw0rd",
    "assign": "Zq8rT2vX9kLm4Np7Zq8r",
}


def test_secrets_never_reach_the_server_or_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    said = (
        f"use {SECRETS['anthropic']} and {SECRETS['openai']} and {SECRETS['github']}\n"
        f"aws_access_key_id={SECRETS['aws']} aws_secret_access_key={SECRETS['aws-secret']}\n"
        f"slack {SECRETS['slack']} maps {SECRETS['google']} pay {SECRETS['stripe']}\n"
        f"jwt {SECRETS['jwt']}\n"
        f"-----BEGIN PRIVATE KEY-----\n{SECRETS['pem']}\n-----END PRIVATE KEY-----\n"
        f"db postgres://me:{SECRETS['url']}@db/x and SERVICE_TOKEN={SECRETS['assign']}"
    )

    def echo(request: RecordedRequest) -> Mapping[str, Any]:
        # A model that quotes everything it sees, secrets markers included.
        quote = request.user_text.split("USER: ", 1)[1].split("\nTOOL:", 1)[0]
        return {"candidates": [{"kind": "directive", "text": quote, "rationale": quote}]}

    with FakeAnthropicServer(responder=echo) as server:
        for k, v in server.env().items():
            monkeypatch.setenv(k, v)
        p = tmp_path / "s.jsonl"
        p.write_text("x")
        s = make_session([user(said, 0), tool("Bash", f"curl -H 'x-api-key: {SECRETS['anthropic']}'", 1),
                          fail(f"denied for {SECRETS['github']}", 2)], path=p)
        cache = MineCache()
        [r] = mine_sessions([s], _backend(), model=MODEL, cache=cache)
        assert len(r.candidates) == 1  # the redacted quote still verifies
        sent = b"".join(req.raw for req in server.requests).decode()
        on_disk = "".join(f.read_text() for f in cache.dir.glob("*.json"))
        assert "[REDACTED:" in sent and "[REDACTED:" in on_disk
        for name, secret in SECRETS.items():
            assert secret not in sent, name
            assert secret not in on_disk, name
