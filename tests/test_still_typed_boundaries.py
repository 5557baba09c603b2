"""A cached quote is kept only where verification would cut it today: on word boundaries.

`still_typed` re-reads a cached mining answer against the session as it reads now. Its
cheap pass was a substring search over the folded turns, so a cached quote whose own turn
had since become machinery stayed kept when it happened to occur inside other words of
another turn ("please use bun" inside "please use bundler here"), though verification
of the same quote mined today drops it.

The fixtures are written for these tests (not copied from any transcript).
"""

from __future__ import annotations

import pytest
from _mining_helpers import make_session, user

from learn.mining.verify import anchor_quote, still_typed
from learn.records.candidate import MinedCandidate


def _quote(text: str) -> MinedCandidate:
    return MinedCandidate(kind="directive", text=text)


def _kept(quote: str, turns: list[str]) -> bool:
    session = make_session([user(t, i) for i, t in enumerate(turns)])
    kept, gone = still_typed([_quote(quote)], session)
    assert len(kept) + len(gone) == 1
    return bool(kept)


@pytest.mark.parametrize(("quote", "turns"), [
    # Only inside a longer word of another turn, at either end of the quote.
    ("please use bun", ["please use bundler here"]),
    ("run the tests", ["rerun the tests twice"]),
    ("keep it tiny", ["thanks, that was it", "keep it tinypng for the icons"]),
    # A two-word quote stood only as a whole turn; "use bun" inside a longer one is not it.
    ("use bun", ["we use bundler here"]),
    ("use bun", ["we use bun here"]),
    # Right after a negation: the opposite of what was typed.
    ("use npm in this repo", ["never use npm in this repo"]),
])
def test_a_quote_only_found_where_verification_would_not_cut_it_is_dropped(
        quote: str, turns: list[str]) -> None:
    assert anchor_quote(quote, turns).text is None
    assert not _kept(quote, turns)


@pytest.mark.parametrize(("quote", "turns"), [
    ("please use bun", ["ok, please use bun here, not npm"]),
    ("use bun", ["review this diff", "Use   bun"]),
    ("run the tests", ["rerun them. Then run the tests twice"]),
])
def test_a_quote_on_word_boundaries_is_kept(quote: str, turns: list[str]) -> None:
    assert _kept(quote, turns)


@pytest.mark.parametrize("quote", [
    "keep the summary short",  # the start of the first turn
    "ship it when green",  # the end of the last
    "rebase onto main first",  # the start of a turn after another
    "then push the branch",  # the end of a turn before another
])
def test_a_quote_at_the_very_start_or_end_of_a_turn_is_kept(quote: str) -> None:
    turns = ["keep the summary short, under ten lines",
             "rebase onto main first, then push the branch",
             "and ship it when green"]
    assert _kept(quote, turns)


@pytest.mark.parametrize(("quote", "turns", "kept"), [
    # No spaces to demand a boundary at: a span of the sentence is the person's words.
    ("用pnpm安装依赖", ["以后都用pnpm安装依赖吧"], True),
    ("以后都用bun", ["以后都用bun吧"], True),
    # A Latin word inside a longer Latin word is not it, Han around it or not.
    ("以后都用bun", ["以后都用bundler吧"], False),
    # Right after the negation these scripts put before the verb.
    ("用npm安装依赖", ["别用npm安装依赖"], False),
])
def test_unspaced_quotes_are_kept_as_verification_decides(
        quote: str, turns: list[str], kept: bool) -> None:
    assert (anchor_quote(quote, turns).text is not None) is kept
    assert _kept(quote, turns) is kept


def test_kept_candidates_are_the_cached_ones_and_a_fix_is_always_kept() -> None:
    quote = _quote("Don’t   retry on a 404,\nit never recovers")
    gone = _quote("please use bun")
    fix = MinedCandidate(kind="fix", text="pin the node version", command="npm ci")
    session = make_session([user("ok so\nDon’t   retry on a 404,\nit never recovers", 0),
                            user("please use bundler here", 1)])
    kept, dropped = still_typed([quote, gone, fix], session)
    assert kept == (quote, fix) and kept[0] is quote and kept[1] is fix
    assert dropped == (gone,)
