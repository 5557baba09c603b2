"""Judging sessions together through keys (issue 32): the judgement text against text
gave, from stored keys and sets, reading a session's turns and texts only where the
keys cannot answer.

The homes are benchmarks/homes.py's, small: a memory plugin's headless observers in one
folder quoting the person's requests (templates, repeated prompts, shapes two sessions
share, quotes of another session), and a person's sessions, some of them resumed copies
of others (turns seen in an older session).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_indexed_show_and_listing import assert_rows_are_the_views

from benchmarks.homes import PLUGIN_DIR, build
from learn.cli import cli
from learn.textfold import fold
from learn.transcripts.templates.quoted import QuotedIn


@settings(deadline=None)  # a loaded machine is no reason to fail
@given(st.lists(st.text(alphabet="ab c", max_size=12), max_size=8),
       st.text(alphabet="ab c", min_size=1, max_size=8))
def test_quoted_in_is_any_text_holding_the_key(texts: list[str], key: str) -> None:
    folded = [fold(t) for t in texts]
    assert (fold(key) in QuotedIn(folded)) == any(fold(key) in t for t in folded)


_PASTED = ("Before you change anything in the billing service, read the runbook in docs/billing.md, "
           "list the invariants it names, and check each one against the code you are about to "
           "touch; write the list into the pull request description, and stop and ask me when an "
           "invariant would have to change rather than working around it quietly.")


def _home(root: Path, sessions: int = 40) -> Path:
    from evals.builder import ClaudeSession, session_id

    build(root, "tree", sessions, mb=8, seed=5)
    # A long prompt typed once, in a session resumed twice: its copies are the same
    # turns, not three sessions repeating a prompt (resume.own_turns).
    s = ClaudeSession(session_id("pasted"), "/home/dev/billing", datetime(2026, 1, 5, tzinfo=UTC))
    s.user(_PASTED)
    s.assistant("Read it.")
    src = s.write(root / ".claude")
    for n in range(2):
        sid = str(uuid.UUID(int=n + 1))
        (src.parent / f"{sid}.jsonl").write_text(
            src.read_text().replace(src.stem, sid) + src.read_text().splitlines()[-1] + "\n")
    return root


def _listing(*args: str) -> dict[str, dict[str, Any]]:
    result = CliRunner().invoke(cli, ["sessions", "--all-projects", "--json", *args],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {r["id"]: r for r in json.loads(result.output)["sessions"]}


def _whole_views() -> list[Any]:
    """Every session's whole stored view (what the judgement read before keys)."""
    from learn.index.indexed import indexed_views, min_signal_confidence
    from learn.store import open_store
    from learn.transcripts.files.discover import scan
    from learn.transcripts.view.replay_files import FingerprintCache

    cache = FingerprintCache()
    with open_store(local_only=True) as local:
        items = indexed_views(scan(all_projects=True).files, index=local.index,
                              min_confidence=min_signal_confidence(),
                              fingerprints_for=lambda f: cache.for_project(f.project))
        return [i.session for i in items]


@pytest.mark.parametrize("programmatic", [False, True])
def test_a_big_tree_is_judged_from_keys_as_from_whole_views(programmatic: bool) -> None:
    from learn.transcripts.templates.scripted import machinery

    _home(Path.home())
    flag = ("--include-programmatic",) if programmatic else ()
    listed = _listing(*flag)
    judged = machinery(_whole_views(), include_programmatic=programmatic).views
    assert len(judged) == len(listed) == 43
    pasted = [r for r in listed.values() if r["project"] == "/home/dev/billing"]
    assert sorted(r["human_turns"] for r in pasted) == [1, 1, 1]  # copies: not a repeated prompt
    assert_rows_are_the_views(listed, judged)
    observers = [r for r in listed.values() if r["project"] == PLUGIN_DIR]
    assert len(observers) == 32 and {r["origin"] for r in observers} == {"programmatic"}


def test_show_of_an_observer_reads_no_other_sessions_text(monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.index.indexed import CachedHeads
    from learn.index.indexed_turns import turns_view
    from learn.render.redacted_view import redact_session
    from learn.store import open_store
    from learn.store.session_index import SessionIndex
    from learn.transcripts.files.discover import scan
    from learn.transcripts.parser import parse
    from learn.transcripts.templates.scripted import HEAD_SESSIONS, machinery
    from learn.transcripts.view.replay_files import FingerprintCache
    from learn.transcripts.view.serialise import session_to_dict
    from learn.transcripts.view.session import build_session

    _home(Path.home())
    listed = _listing()
    observer = sorted((r for r in listed.values() if r["project"] == PLUGIN_DIR),
                      key=lambda r: r["size_bytes"])[-1]
    read: list[str] = []
    texts_of = SessionIndex.texts_of

    def counted(self: SessionIndex, path: str) -> str | None:
        read.append(path)
        return texts_of(self, path)

    monkeypatch.setattr(SessionIndex, "texts_of", counted)
    result = CliRunner().invoke(cli, ["show", observer["id"], "--json", "--full"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert read == []  # the others' keys answered: no other session's text was read
    shown = json.loads(result.output)
    assert shown["origin"] == "programmatic" and shown["human_turns_detail"] == []

    # The same as judging it with the other sessions' whole turns, as `learn show` did.
    monkeypatch.setattr(SessionIndex, "texts_of", texts_of)
    path = Path(observer["path"])
    with open_store(local_only=True) as local:
        heads = CachedHeads(local.index)
        others = [f for f in scan(project=Path(PLUGIN_DIR), heads=heads, limit=HEAD_SESSIONS).files
                  if f.path != path]
        rows = local.index.get_many([str(f.path) for f in others], views=False)
        whole = [turns_view(json.loads(rows[str(f.path)].summary), rows[str(f.path)].prompts or "[]",
                            f.path) for f in others]
    own = build_session(parse(path), fingerprints=FingerprintCache().for_project(PLUGIN_DIR))
    expected = redact_session(machinery([own, *whole]).views[0], inputs=True)
    assert shown == _cut(session_to_dict(expected))


def test_a_person_shown_in_the_tree_is_cut_as_from_whole_views() -> None:
    _home(Path.home())
    listed = _listing()
    person = next(r for r in sorted(listed.values(), key=lambda r: r["size_bytes"])
                  if r["project"] != PLUGIN_DIR and r["provider"] == "claude")
    result = CliRunner().invoke(cli, ["show", person["id"], "--json"], catch_exceptions=False)
    shown = json.loads(result.output)
    # One count: the listing and `learn show` agree on what the person typed.
    assert len(shown["human_turns_detail"]) == person["human_turns"]
    assert shown["origin"] == person["origin"] == "interactive"


def _cut(value: Any) -> Any:
    """`learn show --json --full` prints what session_to_dict gives, JSON-round-tripped."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def test_the_index_keeps_keys_that_equal_those_worked_out_from_the_texts() -> None:
    from learn.store import open_store
    from learn.transcripts.templates.entries import (
        _pieces_holding,
        decode_entry,
        decode_turns,
        session_keys,
    )
    from learn.transcripts.templates.keys import Keys
    from learn.transcripts.templates.skeleton import TEMPLATE_MIN_CHARS

    home = _home(Path.home(), sessions=10)
    _listing()
    keys = Keys()
    for view in _whole_views():
        with open_store(local_only=True) as local:
            row = local.index.get_many([str(view.path)], views=False)[str(view.path)]
        sets, _opening, packed, pairs = decode_entry(row.keys)  # type: ignore[misc]
        stored = decode_turns(packed)
        assert [t.keys.folded for t in stored] == [keys.of(t).folded for t in view.human_turns]
        assert [t.keys.pieces for t in stored] == [keys.of(t).pieces for t in view.human_turns]
        assert sets == session_keys(view.human_turns, keys.of)
        learned = [keys.of(t).pieces for t in view.human_turns
                   if t.origin in ("typed", "queued") and len(t.text) >= TEMPLATE_MIN_CHARS]
        every = frozenset(k for p in learned for k, _ in p)
        assert [list(p) for p in _pieces_holding(pairs, every)] == [list(p) for p in learned]
    assert home.is_dir()


def test_a_session_holding_no_skeleton_shape_has_the_parts_turn_by_turn_gives() -> None:
    """`_Corpus.parts_of` answers from a session's shapes when none is a skeleton's, and
    that answer is what asking each of its turns gives (none of them is an instance)."""
    from learn.transcripts.templates.corpus import _Corpus
    from learn.transcripts.templates.entries import Entry
    from learn.transcripts.templates.keys import Keys

    _home(Path.home())
    _listing()
    keys = Keys()
    corpus = _Corpus([Entry.of(v, keys) for v in _whole_views()], (), keys)
    answered = 0
    for i, entry in enumerate(corpus.entries):
        turn_by_turn = [part for t in corpus.cut(i).human_turns if corpus.instance(t)
                        for part in corpus.skeleton.varying(keys.text(t), keys.of(t).pieces)]
        assert corpus.parts_of(i) == turn_by_turn
        answered += corpus.skeleton.shapes.isdisjoint(entry.keys.shapes)
    assert 0 < answered < len(corpus.entries)  # both ways were taken
