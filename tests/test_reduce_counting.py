"""Counting, thresholds, identical-text merges, suppression and the funnel."""

from __future__ import annotations

import random
from typing import Any

from _reduce_helpers import cand, directive, session

from learn.records.candidate import SessionCandidates
from learn.records.proposal import Funnel
from learn.reduce.counting import CountConfig, count_points, flatten_candidates, occurrences
from learn.reduce.memory import InMemoryShownState
from learn.reduce.protocols import ShownRecord
from learn.reduce.suppress import Reduced, reduce_occurrences


def run(sessions: list[SessionCandidates], labels_by_text: dict[str, str], **kw: Any) -> Reduced:
    labels = [labels_by_text[c.text] for c in flatten_candidates(sessions)]
    return reduce_occurrences(occurrences(sessions, labels), **kw)


def test_three_mentions_in_one_session_are_not_a_proposal() -> None:
    s = [session("a", "2026-01-01T00:00:00Z", directive("use bun"), directive("bun!"), directive("bun please"))]
    r = run(s, {"use bun": "use-bun", "bun!": "use-bun", "bun please": "use-bun"})
    assert r.shown == ()
    assert r.funnel == Funnel(candidates=3, points=1, over_threshold=0, below_threshold=1)


def test_two_sessions_are_a_proposal_with_counts_dates_and_longest_text() -> None:
    s = [
        session("a", "2026-01-01T10:00:00Z", directive("use bun"), directive("bun!")),
        session("b", "2026-01-03T10:00:00Z", directive("we use bun, not npm")),
    ]
    r = run(s, {"use bun": "use-bun", "bun!": "use-bun", "we use bun, not npm": "use-bun"})
    (p,) = r.shown
    assert (p.kind, p.label, p.sessions, p.count) == ("directive", "use-bun", 2, 3)
    assert p.last_seen == "2026-01-03T10:00:00Z"
    assert p.text == "we use bun, not npm"
    assert p.quotes[0].session_id == "b" and p.quotes[0].at == "2026-01-03T10:00:00Z"
    assert {q.session_id for q in p.quotes} == {"a", "b"}


def test_requests_need_three_sessions_by_default_and_the_bar_is_configurable() -> None:
    two = [session(sid, "2026-01-01", cand("request", "write the changelog")) for sid in "ab"]
    three = [*two, session("c", "2026-01-02", cand("request", "write the changelog"))]
    labels = {"write the changelog": "write-changelog"}
    assert run(two, labels).shown == ()
    assert [p.label for p in run(three, labels).shown] == ["write-changelog"]
    config = CountConfig(min_sessions={"directive": 2, "fix": 2, "request": 2})
    assert len(run(two, labels, config=config).shown) == 1


def test_identical_text_merges_across_labels_before_the_threshold_in_any_order() -> None:
    base = [
        session("a", "2026-01-01", directive("Stage only your own files")),
        session("b", "2026-01-02", directive("stage only  your own files")),
        session("c", "2026-01-03", directive("only stage what you changed")),
    ]
    labels = {
        "Stage only your own files": "stage-only-own-files",
        "stage only  your own files": "stage-only-changed-files",
        "only stage what you changed": "stage-only-changed-files",
    }
    rng = random.Random(3)
    seen = set()
    for _ in range(6):
        shuffled = base[:]
        rng.shuffle(shuffled)
        (p,) = run(shuffled, labels).shown
        seen.add((p.label, p.sessions, p.count, p.text))
    assert seen == {("stage-only-changed-files", 3, 3, "only stage what you changed")}


def test_identical_text_never_merges_across_kinds() -> None:
    s = [session(sid, "2026-01-01", directive("run the tests"), cand("request", "run the tests")) for sid in "ab"]
    labels = [lab for _ in s for lab in ("run-tests-first", "run-test-suite")]
    points = count_points(occurrences(s, labels))
    assert sorted((p.kind, p.label) for p in points) == [("directive", "run-tests-first"), ("request", "run-test-suite")]


def test_fix_fields_are_merged_deduplicated_in_order_and_capped() -> None:
    many = tuple(f"cmd{i}" for i in range(20))
    s = [
        session("a", "2026-01-02", cand("fix", "install deps first", command="npm test",
                                        error_excerpt="missing module", intervening_commands=("npm i", "npm test"),
                                        edited_files=("a.ts",))),
        session("b", "2026-01-01", cand("fix", "install deps first", command="npm run test",
                                        intervening_commands=("npm i", *many), edited_files=("b.ts", "a.ts"))),
    ]
    (p,) = run(s, {"install deps first": "install-deps-first"}).shown
    assert p.command == "npm test"  # newest session's
    assert p.error_excerpt == "missing module"
    assert p.intervening_commands[:3] == ("npm i", "npm test", "cmd0")
    assert len(p.intervening_commands) == 12
    assert p.edited_files == ("a.ts", "b.ts")


def test_sorted_by_sessions_then_count_then_label() -> None:
    s = [
        session("a", "2026-01-01", directive("zz one"), directive("aa one"), directive("mm one"), directive("mm two")),
        session("b", "2026-01-01", directive("zz two"), directive("aa two"), directive("mm three")),
        session("c", "2026-01-01", directive("zz three")),
    ]
    labels = {t: f"{t[:2]}-point" for t in ("zz one", "zz two", "zz three", "aa one", "aa two")}
    labels |= {"mm one": "mm-point", "mm two": "mm-point", "mm three": "mm-point"}
    r = run(s, labels)
    assert [p.label for p in r.shown] == ["zz-point", "mm-point", "aa-point"]


def _five_points() -> tuple[list[SessionCandidates], dict[str, str]]:
    texts = ["alpha rule", "beta rule", "gamma rule", "delta rule"]
    sessions = [session(sid, "2026-02-01T00:00:00Z", *(directive(t) for t in texts)) for sid in "ab"]
    sessions.append(session("c", "2026-02-01T00:00:00Z", directive("lonely rule")))
    return sessions, {t: t.replace(" ", "-") for t in [*texts, "lonely rule"]}


def test_funnel_numbers_are_exact_with_cap_and_suppression() -> None:
    sessions, labels = _five_points()
    state = InMemoryShownState()
    state.put("directive:alpha-rule", ShownRecord(shown_at="2026-03-01T00:00:00Z"))
    r = run(sessions, labels, config=CountConfig(max_per_kind=2), state=state)
    assert r.funnel == Funnel(
        candidates=9, points=5, over_threshold=4, shown=2, held_back=1, cut=1, below_threshold=1
    )
    assert [p.label for p in r.held_back] == ["alpha-rule"]
    assert [p.label for p in r.shown] == ["beta-rule", "delta-rule"]
    assert [p.label for p in r.cut] == ["gamma-rule"]


def test_suppressed_item_returns_when_said_again_after_it_was_shown() -> None:
    sessions, labels = _five_points()
    state = InMemoryShownState()
    state.put("directive:alpha-rule", ShownRecord(shown_at="2026-01-15T00:00:00+00:00"))
    r = run(sessions, labels, state=state)
    assert "alpha-rule" in [p.label for p in r.shown]
    assert r.funnel.held_back == 0


def test_show_all_ignores_what_was_shown() -> None:
    sessions, labels = _five_points()
    state = InMemoryShownState()
    for t in labels.values():
        state.put(f"directive:{t}", ShownRecord(shown_at="2027-01-01T00:00:00Z"))
    assert run(sessions, labels, state=state).funnel.shown == 0
    everything = run(sessions, labels, state=state, show_all=True)
    assert everything.funnel.shown == 4 and everything.funnel.held_back == 0


def test_labels_must_match_candidates() -> None:
    import pytest

    with pytest.raises(ValueError):
        occurrences([session("a", None, directive("x y"))], [])
