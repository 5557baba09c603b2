"""A cached mining answer is read against the session as it reads now: a quote the view
still has the person type is kept exactly as cached, one it no longer has is dropped and
counted as verification counts it, and a fix is kept.

The fixtures are written for these tests (not copied from any transcript).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _mining_helpers import make_session, tool, user

import learn.mining.verify as verify
from learn.mining.cache import MineCache
from learn.mining.miner import SessionMineResult, mine_sessions
from learn.records.candidate import MinedCandidate, SessionCandidates
from learn.textfold import fold
from learn.transcripts.view.model import TimelineItem

KEY = "sk-ant-api03-" + "a" * 90


class _NoCalls:
    """A backend that must not be asked: every session here is cached."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"backend.{name} used for a cached session")


def _said(kind: str, text: str, **more: Any) -> MinedCandidate:
    return MinedCandidate(kind=kind, text=text, **more)  # type: ignore[arg-type]


def _run(tmp_path: Path, items: list[TimelineItem], cached: list[MinedCandidate],
         *, fingerprints: tuple[str, ...] = ()) -> SessionMineResult:
    path = tmp_path / "s1.jsonl"
    path.write_text('{"type":"placeholder"}\n', encoding="utf-8")
    session = make_session(items, path=path)
    cache = MineCache(tmp_path / "cache")
    cache.put(cache.key_for_file(path),
              SessionCandidates(session_id=session.id, provider="claude", project="/proj",
                                last_activity=None, candidates=tuple(cached)),
              dropped_unverified=1, chunks=1,
              dropped_by_reason={"paraphrase": 1, "too_short": 0, "fix_command": 0})
    [result] = mine_sessions([session], _NoCalls(), model="m", cache=cache, concurrency=1,
                             fingerprints=fingerprints)
    assert result.cached
    return result


def test_a_quote_still_typed_is_kept_byte_for_byte(tmp_path: Path) -> None:
    # Typed across a line break with a curly apostrophe: the cheap pass folds both sides.
    turn = "ok so\nDon’t   retry on a 404,\nit never recovers"
    quote = "Don’t   retry on a 404,\nit never recovers"
    result = _run(tmp_path, [user(turn)], [_said("directive", quote)])
    assert [c.text for c in result.candidates] == [quote]
    assert result.dropped == ()
    assert result.dropped_unverified == 1


def test_a_fragment_quote_and_one_with_a_redacted_key_are_found_on_the_redacted_turns(
        tmp_path: Path) -> None:
    typed = f"use the key {KEY} for the staging box only, never for prod"
    redacted = "use the key [REDACTED:anthropic-key] for the staging box only"
    fragments = "use the key … never for prod"
    result = _run(tmp_path, [user(typed)],
                  [_said("directive", redacted), _said("directive", fragments)])
    assert [c.text for c in result.candidates] == [redacted, fragments]


def test_a_quote_cut_from_the_view_since_is_dropped_and_counted(tmp_path: Path) -> None:
    own = "check whether this bot comment is right"
    cut = "Cap the retry budget per worker, not per pool."
    result = _run(tmp_path, [user(own)], [_said("request", own), _said("directive", cut)])
    assert [c.text for c in result.candidates] == [own]
    assert [c.text for c in result.dropped] == [cut]
    assert result.dropped_unverified == 2
    assert result.dropped_by_reason["paraphrase"] == 2
    assert result.session is not None
    assert [c.text for c in result.session.candidates] == [own]


def test_a_quote_in_a_turn_a_newer_template_replays_is_dropped(tmp_path: Path) -> None:
    body = ("Review the diff against the base branch, list every finding with its file and "
            "line, and keep the summary under ten lines")
    fingerprint = fold(body)
    quote = "keep the summary under ten lines"
    result = _run(tmp_path, [user(body), user("thanks, ship it")], [_said("directive", quote)],
                  fingerprints=(fingerprint,))
    assert result.candidates == ()


def test_a_fix_is_kept_though_its_words_are_no_typed_turn(tmp_path: Path) -> None:
    fix = _said("fix", "pin the node version", command="npm ci")
    result = _run(tmp_path, [user("the install keeps breaking"), tool("Bash", "npm ci", 1)], [fix])
    assert [c.text for c in result.candidates] == [fix.text]


def test_quotes_found_in_one_pass_redact_nothing(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # A warm run reads every cached session: the redacted turns are made only for a quote
    # the folded pass did not find.
    def no(*_: object, **__: object) -> tuple[str, ...]:
        raise AssertionError("redacted turns made for quotes found in the folded pass")

    monkeypatch.setattr(verify, "spoken_turns", no)
    result = _run(tmp_path, [user("always run the linter before committing")],
                  [_said("directive", "run the linter before committing")])
    assert len(result.candidates) == 1
