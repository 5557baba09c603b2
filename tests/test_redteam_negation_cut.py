"""A quote cut right after the person's negation is not theirs: it says the opposite.

Verification kept any span of a typed turn as the person's words. A miner steered by
the session (or a careless one) quoted "use npm in this repo" out of "don't use npm in
this repo" and "run rm -rf on the data dir" out of "never run rm -rf on the data dir":
every word typed, in order, on word boundaries, and the opposite of the instruction.
It was kept, shown in quotation marks as the person's, counted, and given to the judge,
which words rules from quotes; an ellipsis quote did the same with a fragment
("use bun for installs … pnpm here either" from "… never pnpm here either").
"""

from __future__ import annotations

import pytest

from learn.mining.verify import anchor_quote, verify_candidates
from learn.records.candidate import MinedCandidate

TYPED = [
    "ok so never run rm -rf on the data dir, it holds the fixtures",
    "please do not push to main without asking me first",
    "I told you: don’t use npm in this repo, use bun",
    "use bun for installs. never pnpm here either",
    "STOP using console.log for debugging output",
    "我说了别用mock写测试",
    "这个项目里不要用npm安装依赖",
    "no, use bun for every install",
    "not now. run the full suite before you push",
]


@pytest.mark.parametrize("cut", [
    "run rm -rf on the data dir",
    "push to main without asking me first",
    "asking me first",
    "use npm in this repo",
    "Use npm in this repo.",
    "using console.log for debugging output",
    "use bun for installs … pnpm here either",
    "用mock写测试",
    "用npm安装依赖",
])
def test_a_quote_cut_after_a_negation_is_dropped(cut: str) -> None:
    assert anchor_quote(cut, TYPED).text is None
    result = verify_candidates([MinedCandidate(kind="directive", text=cut)], TYPED, commands=[])
    assert result.kept == () and result.dropped_unquoted == 1


@pytest.mark.parametrize(("quote", "kept"), [
    ("never run rm -rf on the data dir", "never run rm -rf on the data dir"),
    ("do not push to main without asking me first", "do not push to main without asking me first"),
    ("don't use npm in this repo", "don’t use npm in this repo"),
    ("Stop using console.log for debugging", "STOP using console.log for debugging"),
    ("别用mock写测试", "别用mock写测试"),
    ("不要用npm安装依赖", "不要用npm安装依赖"),
    # Punctuation between: an interjection or another sentence, not a cut negation.
    ("use bun for every install", "use bun for every install"),
    ("run the full suite before you push", "run the full suite before you push"),
])
def test_the_negation_kept_with_it_and_an_interjection_before_it_still_anchor(
        quote: str, kept: str) -> None:
    assert anchor_quote(quote, TYPED).text == kept
