"""What the digest, `learn apply` and the report say is the newest count over the
widest scope any run measured; and the digest's small things (its window, quotes
said alike, one quote heading one proposal)."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _learn_cli import learn_json

from evals.builder.claude import ClaudeSession
from evals.builder.common import stable_uuid
from learn.records.proposal import Funnel, Proposal, Quote, RunResult, RunUsage
from learn.reduce.counting import distinct_heads
from learn.report.proposal_lines import item_lines
from learn.store.feedback import FeedbackStore
from learn.store.proposals import ProposalBook

CENTS = "keep the order totals in integer cents, never floats"
START = datetime(2026, 4, 6, 9, 0, tzinfo=UTC)


def proposal(sessions: list[str], project: str = "/src/shop", key: str = "keep-cents") -> Proposal:
    quotes = tuple(Quote(s, CENTS, f"2026-04-0{i + 1}T10:00:00+00:00", project)
                   for i, s in enumerate(sessions))
    return Proposal(kind="directive", label=key, text=CENTS, sessions=len(set(sessions)),
                    count=len(sessions), last_seen=quotes[-1].at if quotes else None,
                    quotes=quotes)


def test_a_narrower_run_keeps_what_a_wider_one_counted(tmp_path: Path) -> None:
    with FeedbackStore.open(tmp_path / "s.db") as store:
        book = ProposalBook(store)
        six = [f"s{i}" for i in range(6)]
        book.record([proposal(six)], run_id=1, fallback_project=None, sessions_read=six)
        # A later run over the last three sessions counts three: the other three stay.
        book.record([proposal(six[3:])], run_id=2, fallback_project=None,
                    sessions_read=six[3:])
        [row] = book.rows("/src/shop")
        assert row.sessions == 6 and {q.session_id for q in row.proposal.quotes} == set(six)
        # A run that read all six and found it in five: five (the newest count).
        book.record([proposal(six[1:])], run_id=3, fallback_project=None, sessions_read=six)
        [row] = book.rows("/src/shop")
        assert row.sessions == 5 and row.proposal.sessions == 5


def test_a_point_held_back_refreshes_its_count_and_keeps_its_state(tmp_path: Path) -> None:
    with FeedbackStore.open(tmp_path / "s.db") as store:
        book = ProposalBook(store)
        book.record([proposal(["a", "b", "c"])], run_id=1, fallback_project=None,
                    sessions_read=["a", "b", "c"])
        book.decide("directive:keep-cents", "declined", "/src/shop")
        wider = proposal(["a", "b", "c", "d", "e", "f"])
        assert book.refresh([wider], sessions_read=list("abcdef")) == 1
        [row] = book.rows("/src/shop")
        assert (row.state, row.sessions, row.decided_sessions) == ("declined", 6, 3)
        # A key said in another project is not that project's row.
        assert book.refresh([proposal(list("xyz"), project="/src/web")],
                            sessions_read=list("xyz")) == 0


def test_the_digest_says_the_widest_count_after_a_run_held_it_back(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    shop = home / "src" / "shop"
    shop.mkdir(parents=True)
    for n in range(6):
        s = ClaudeSession(stable_uuid("counts", str(n)), str(shop), START + timedelta(days=n))
        s.user("tidy the totals")
        s.denied_tool("Edit", {"file_path": f"{shop}/t.py", "old_string": "a", "new_string": "b"},
                      CENTS)
        s.write(home / ".claude")

    def learn(*args: str) -> dict[str, object]:
        return learn_json(*args, cwd=shop)

    def counts(data: dict[str, object]) -> list[int]:
        proposals = data["proposals"]
        assert isinstance(proposals, list)
        return [int(p["sessions"]) for p in proposals]

    first = learn("run", "--offline", "--since", "2026-04-09", "--json", "--quiet")
    assert counts(first) == [3]
    # The window opens at the earliest turn read (the oldest session's first line),
    # not at that session's last activity.
    window = first["window"]
    assert isinstance(window, dict) and window["start"].startswith("2026-04-09T09:01")
    # Over every session it is held back (shown, not said since), and counted: 6.
    wider = learn("run", "--offline", "--since", "2026-01-01", "--json", "--quiet")
    assert counts(wider) == []
    assert counts(learn("digest", "--json")) == [6]
    # A narrower run later does not take it back down.
    learn("run", "--offline", "--since", "2026-04-10", "--json", "--quiet")
    assert counts(learn("digest", "--json")) == [6]


def test_quotes_said_alike_in_several_sessions_are_said_once() -> None:
    quotes = (Quote("s1", CENTS, "2026-04-03T10:00:00+00:00"),
              Quote("s2", "Keep the order totals in integer cents,  never floats",
                    "2026-04-02T10:00:00+00:00"),
              Quote("s3", "totals are integer cents", "2026-04-05T10:00:00+00:00"),
              Quote("s4", "totals are integer cents", "2026-04-04T10:00:00+00:00"),
              Quote("s5", "totals are integer cents", "2026-04-01T10:00:00+00:00"))
    p = Proposal(kind="directive", label="keep-cents", text=CENTS, sessions=5, count=5,
                 last_seen="2026-04-05T10:00:00+00:00", quotes=quotes)
    result = RunResult(proposals=(p,), funnel=Funnel(), usage=RunUsage(sessions_seen=5))
    lines = item_lines(p, result)
    assert "  - these words in 2 sessions" in lines
    also = [line for line in lines if "also:" in line]
    assert also == ['  - also: "totals are integer cents" (in 3 sessions, 2026-04-05)']


def test_one_quote_never_heads_two_proposals() -> None:
    excerpt = "no, open a pull request for the fix and remove the worktree after it merges"
    a = Proposal(kind="request", label="open-pr", text=excerpt, sessions=3, count=3,
                 last_seen=None, quotes=(Quote("s1", excerpt, None), Quote("s2", "open a PR", None)))
    b = Proposal(kind="request", label="remove-worktree", text=excerpt, sessions=2, count=2,
                 last_seen=None,
                 quotes=(Quote("s1", excerpt, None), Quote("s3", "remove the worktree", None)))
    first, second = distinct_heads([a, b])
    assert first.text == excerpt and second.text == "remove the worktree"
    # A group with nothing else to open with keeps its quote.
    c = Proposal(kind="request", label="c", text=excerpt, sessions=2, count=2, last_seen=None,
                 quotes=(Quote("s1", excerpt, None),))
    assert distinct_heads([a, c])[1].text == excerpt
