from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from _mining_helpers import fail, make_session, tool, user

from learn.mining.cache import MineCache
from learn.mining.miner import SessionMineResult, mine_session, mine_sessions
from learn.mining.prompt import TOOL_NAME
from learn.models.base import CallUsage, ModelError, ModelRequest, ModelResponse

MODEL = "claude-haiku-4-5"
Answer = Mapping[str, Any] | Exception | Callable[[ModelRequest], Mapping[str, Any]]


class ScriptedBackend:
    name = "scripted"

    def __init__(self, *answers: Answer, default: Answer | None = None) -> None:
        self.answers = list(answers)
        self.default: Answer = default if default is not None else {"candidates": []}
        self.requests: list[ModelRequest] = []
        self._lock = threading.Lock()

    def call(self, request: ModelRequest) -> ModelResponse:
        with self._lock:
            self.requests.append(request)
            answer = self.answers.pop(0) if self.answers else self.default
        if isinstance(answer, Exception):
            raise answer
        data = answer(request) if callable(answer) else answer
        return ModelResponse(tool_input=data, model=request.model, usage=CallUsage(10, 2, calls=1))


def _d(text: str, kind: str = "directive") -> dict[str, str]:
    return {"kind": kind, "text": text}


SESSION = make_session([
    user("we use bun here, never npm", 0),
    tool("Bash", "npm install", 1, command="npm install"),
    fail("npm ERR! ENOENT", 2, call=1),
    user("please open a release PR", 3),
])


def test_one_forced_call_per_chunk_in_order_with_every_user_turn() -> None:
    turns = [user(f"rule number {i} " + "x" * 80, i) for i in range(6)]
    backend = ScriptedBackend()
    result = mine_session(make_session(turns), backend, model=MODEL, chunk_chars=250)
    assert result.chunks == len(backend.requests) > 1
    sent = "\n".join(r.user for r in backend.requests)
    for t in turns:
        assert t.text in sent  # every turn verbatim, in order
    assert [sent.index(t.text) for t in turns] == sorted(sent.index(t.text) for t in turns)
    for r in backend.requests:
        assert r.tool.name == TOOL_NAME and r.step == "mine" and r.model == MODEL
        assert "VERBATIM" in r.system


def test_verified_candidates_returned_unverified_counted() -> None:
    backend = ScriptedBackend({"candidates": [
        _d("we use bun here, never npm"),
        _d("Always use bun"),  # paraphrase
        _d("npm ERR! ENOENT"),  # tool output
        {"kind": "fix", "text": "use bun install", "command": "npm install"},
    ]})
    r = mine_session(SESSION, backend, model=MODEL, chunk_chars=10_000)
    assert [c.text for c in r.candidates] == ["we use bun here, never npm", "use bun install"]
    assert r.dropped_unverified == 2 and r.failed_chunks == 0 and not r.failed
    assert sorted(c.text for c in r.dropped) == ["Always use bun", "npm ERR! ENOENT"]
    assert r.usage.calls == 1
    assert r.session is not None and r.session.candidates == r.candidates


def test_bad_chunk_is_counted_and_skipped() -> None:
    turns = [user("keep functions small " + "y" * 100, 0), user("no emojis in commits " + "z" * 100, 1)]
    backend = ScriptedBackend(
        ModelError("anthropic: overloaded"),
        {"candidates": [_d("no emojis in commits")]},
    )
    r = mine_session(make_session(turns), backend, model=MODEL, chunk_chars=150)
    assert r.chunks == 2 and r.failed_chunks == 1
    assert not r.failed and not r.complete
    assert [c.text for c in r.candidates] == ["no emojis in commits"]


def test_malformed_answer_is_repaired_with_the_error_sent_back() -> None:
    backend = ScriptedBackend({"oops": 1}, {"candidates": [_d("we use bun here, never npm")]})
    r = mine_session(SESSION, backend, model=MODEL, chunk_chars=10_000)
    assert r.complete and [c.text for c in r.candidates] == ["we use bun here, never npm"]
    [fix] = backend.requests[1].corrections
    assert fix.answer == {"oops": 1} and "candidates" in fix.error
    assert r.usage.calls == 2


def test_answer_malformed_every_time_counts_as_failed_chunk() -> None:
    backend = ScriptedBackend(default={"oops": 1})
    r = mine_session(SESSION, backend, model=MODEL, chunk_chars=10_000)
    assert r.failed and r.failed_chunks == 1 and r.candidates == ()
    assert len(backend.requests) == 3 and r.usage.calls == 3


def test_every_chunk_failed_means_session_failed() -> None:
    backend = ScriptedBackend(default=ModelError("anthropic: HTTP 500 api_error"))
    r = mine_session(SESSION, backend, model=MODEL, chunk_chars=10_000)
    assert r.failed and r.error is not None and "500" in r.error


def test_fatal_error_stops_the_session_early() -> None:
    turns = [user("a" * 100 + f" {i}", i) for i in range(5)]
    backend = ScriptedBackend(default=ModelError("anthropic: HTTP 401 authentication_error"))
    r = mine_session(make_session(turns), backend, model=MODEL, chunk_chars=110)
    assert r.failed and len(backend.requests) == 1


def test_session_with_nothing_said_costs_no_call() -> None:
    backend = ScriptedBackend()
    r = mine_session(make_session([tool("Bash", "ls")]), backend, model=MODEL)
    assert backend.requests == [] and r.complete and r.candidates == ()


def test_small_window_model_gets_small_chunks() -> None:
    turns = [user(f"turn {i} " + "w" * 1000, i) for i in range(40)]
    backend = ScriptedBackend()
    r = mine_session(make_session(turns), backend, model="some-local-8b", context_window=8_192)
    assert r.chunks > 1
    assert all(len(req.user) // 3 + len(req.system) // 3 + req.max_tokens < 8_192 for req in backend.requests)


def _session_file(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / f"{name}.jsonl"
    p.write_text(body)
    return p


def test_mine_sessions_bounded_concurrency_order_and_progress(tmp_path: Path) -> None:
    active = 0
    peak = 0
    lock = threading.Lock()
    gate = threading.Event()

    def slow(request: ModelRequest) -> Mapping[str, Any]:
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        gate.wait(0.05)
        with lock:
            active -= 1
        return {"candidates": []}

    sessions = [make_session([user(f"session {i} says hello", 0)], sid=f"s{i}") for i in range(8)]
    seen: list[SessionMineResult] = []
    results = mine_sessions(sessions, ScriptedBackend(default=slow), model=MODEL, concurrency=3,
                            on_progress=seen.append)
    assert [r.session_id for r in results] == [f"s{i}" for i in range(8)]
    assert 1 < peak <= 3
    assert len(seen) == 8


def test_cache_warm_rerun_makes_zero_calls_and_failed_sessions_are_retried(tmp_path: Path) -> None:
    good = make_session([user("we use bun here, never npm", 0)], sid="good",
                        path=_session_file(tmp_path, "good", "a"))
    bad = make_session([user("never force push", 0)], sid="bad",
                       path=_session_file(tmp_path, "bad", "b"))

    def answer(request: ModelRequest) -> Mapping[str, Any]:
        if "force push" in request.user:
            raise ModelError("anthropic: HTTP 500 api_error")
        return {"candidates": [_d("we use bun here, never npm")]}

    class Raising(ScriptedBackend):
        def call(self, request: ModelRequest) -> ModelResponse:
            with self._lock:
                self.requests.append(request)
            return ModelResponse(answer(request), request.model, CallUsage(calls=1))

    cache = MineCache()
    first = Raising()
    r1 = mine_sessions([good, bad], first, model=MODEL, cache=cache)
    assert len(first.requests) == 2 and r1[1].failed and not r1[0].cached
    assert len(list(cache.dir.glob("*.json"))) == 1  # the failed one is not cached

    second = Raising()
    r2 = mine_sessions([good, bad], second, model=MODEL, cache=cache)
    assert [req.user for req in second.requests] == ["USER: never force push"]  # only the failed one
    assert r2[0].cached and [c.text for c in r2[0].candidates] == ["we use bun here, never npm"]

    # A different model reads the same cache: the key never includes the model.
    third = Raising()
    mine_sessions([good], third, model="claude-sonnet-4-5", cache=cache)
    assert third.requests == []


def test_changed_transcript_is_mined_again(tmp_path: Path) -> None:
    path = _session_file(tmp_path, "s", "v1")
    s = make_session([user("we use bun here, never npm", 0)], path=path)
    cache = MineCache()
    mine_sessions([s], ScriptedBackend(), model=MODEL, cache=cache)
    path.write_text("v2")  # a live session went on: a turn more
    grown = make_session([user("we use bun here, never npm", 0), user("and pnpm is out", 1)],
                         path=path)
    backend = ScriptedBackend()
    mine_sessions([grown], backend, model=MODEL, cache=cache)
    assert len(backend.requests) == 1
    # Bytes changed, nothing it sends did (a line the view leaves out was added): the
    # answer kept under what was sent is reused (learn.mining.cache.rendered_key).
    path.write_text("v3")
    same = ScriptedBackend()
    [result] = mine_sessions([grown], same, model=MODEL, cache=cache)
    assert same.requests == [] and result.cached


def test_oversized_turn_is_sent_whole_up_to_the_hard_limit_and_cut_beyond() -> None:
    from learn.render.chunk import hard_chunk_chars

    budget = 1_000
    fits = user("a" * 1_200 + " end", 0)  # over budget, under the hard limit: sent whole
    huge = user("b" * 10_000 + " end", 1)
    backend = ScriptedBackend()
    mine_session(make_session([fits, huge]), backend, model=MODEL, chunk_chars=budget)
    sent = [r.user for r in backend.requests]
    assert sent[0] == "USER: " + fits.text
    assert len(sent[1]) <= hard_chunk_chars(budget) and sent[1].endswith(" end")


def test_mine_sessions_prunes_old_cache_entries() -> None:
    import os
    import time

    cache = MineCache(max_age_days=1)
    from learn.records.candidate import SessionCandidates

    cache.put("stale", SessionCandidates("x", "claude", None, None))
    old = time.time() - 3 * 86400
    os.utime(cache.path_for("stale"), (old, old))
    mine_sessions([], ScriptedBackend(), model=MODEL, cache=cache)
    assert not cache.path_for("stale").exists()


def test_a_fix_whose_command_never_failed_is_dropped() -> None:
    """A fix names the failing command (the mining contract): one that ran and passed, or
    was never run, fixed nothing."""
    passed = make_session([user("we use bun here, never npm", 0),
                           tool("Bash", "bun install", 1, command="bun install"),
                           tool("Bash", "npm test", 2, command="npm test"),
                           fail("1 failing", 3, call=2)])
    backend = ScriptedBackend({"candidates": [
        {"kind": "fix", "text": "use bun", "command": "bun install"},  # ran, never failed
        {"kind": "fix", "text": "run the db first", "command": "npm test"},  # failed
        {"kind": "fix", "text": "yarn", "command": "yarn install"},  # never ran
    ]})
    r = mine_session(passed, backend, model=MODEL, chunk_chars=10_000)
    assert [c.command for c in r.candidates] == ["npm test"]
    assert r.dropped_fix_command == 2
