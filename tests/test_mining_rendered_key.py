"""An upgrade that changes nothing a session sends costs nothing (mining.cache.rendered_key).

The mining cache's key is the transcript's bytes and learn's render, redaction and prompt
versions; nine redaction versions so far each gave every session a new key, and the next
run mined the person's whole history again, paid for. The answer is also kept under what
the model was sent, so a session whose text is the same under the new version is not asked
again; one whose text changed is."""

from __future__ import annotations

from pathlib import Path

import pytest
from _mining_helpers import make_session, user
from test_mining_miner import MODEL, ScriptedBackend

import learn.mining.cache as cache_module
from learn.mining.cache import MineCache
from learn.mining.miner import mine_sessions
from learn.mining.plan import plan_mining

SAID = {"candidates": [{"kind": "directive", "text": "we use bun here, never npm"}]}


def _session(tmp_path: Path, name: str, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / f"{name}.jsonl"
    path.write_text(f"the bytes of {name}")
    return make_session([user(text, 0)], sid=name, path=path)


def _new_learn_version(monkeypatch: pytest.MonkeyPatch) -> None:
    # A render or redaction version bump: every session's first key changes.
    before = cache_module.mining_version()
    monkeypatch.setattr(cache_module, "mining_version", lambda: before + "-next")


def test_a_version_bump_that_changes_no_session_text_asks_nothing_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    same = _session(tmp_path, "same", "we use bun here, never npm")
    cache = MineCache(tmp_path / "cache")
    first = ScriptedBackend(default=SAID)
    mine_sessions([same], first, model=MODEL, cache=cache)
    assert len(first.requests) == 1

    _new_learn_version(monkeypatch)
    assert plan_mining([same.path], cache, MODEL, views={same.path: same}).cached
    again = ScriptedBackend(default=SAID)
    [result] = mine_sessions([same], again, model=MODEL, cache=cache)
    assert again.requests == []
    assert result.cached and [c.text for c in result.candidates] == ["we use bun here, never npm"]
    # Kept under the new first key too: the next run finds it without rendering.
    assert cache.get(cache.key_for_file(same.path)) is not None


def test_a_session_whose_text_changed_is_asked_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = _session(tmp_path, "s", "we use bun here, never npm")
    cache = MineCache(tmp_path / "cache")
    mine_sessions([before], ScriptedBackend(default=SAID), model=MODEL, cache=cache)

    _new_learn_version(monkeypatch)
    # The new version renders it otherwise (a redaction rule now takes a word of it).
    after = _session(tmp_path, "s", "we use bun here, never npm, token [REDACTED:token]")
    assert plan_mining([after.path], cache, MODEL, views={after.path: after}).to_mine
    backend = ScriptedBackend(default=SAID)
    [result] = mine_sessions([after], backend, model=MODEL, cache=cache)
    assert len(backend.requests) == 1 and not result.cached


def test_a_new_mining_prompt_asks_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _session(tmp_path, "p", "we use bun here, never npm")
    cache = MineCache(tmp_path / "cache")
    mine_sessions([s], ScriptedBackend(default=SAID), model=MODEL, cache=cache)
    version = cache_module.prompt_version()
    monkeypatch.setattr(cache_module, "prompt_version", lambda: version + 1)
    _new_learn_version(monkeypatch)
    backend = ScriptedBackend(default=SAID)
    mine_sessions([s], backend, model=MODEL, cache=cache)
    assert len(backend.requests) == 1


def test_another_session_of_the_same_text_is_not_given_this_ones_answer(tmp_path: Path) -> None:
    # Its quotes are dated from its own turns: reused, they carried the other's dates
    # (what last-seen, --since and "said again after it was applied" read).
    first = _session(tmp_path, "a", "we use bun here, never npm")
    cache = MineCache(tmp_path / "cache")
    mine_sessions([first], ScriptedBackend(default=SAID), model=MODEL, cache=cache)
    other = _session(tmp_path, "b", "we use bun here, never npm")
    assert plan_mining([other.path], cache, MODEL, views={other.path: other}).to_mine
    backend = ScriptedBackend(default=SAID)
    [result] = mine_sessions([other], backend, model=MODEL, cache=cache)
    assert len(backend.requests) == 1 and not result.cached
