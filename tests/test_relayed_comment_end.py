"""Where a review bot's pasted pull-request comment ends when nothing on the page marks it.

A comment copied without the page's end (no reply box, no "Useful? React with ...", no
closing markup) was cut to the end of the message, and the person's own words typed
under it went with it: "anyway, please always run the linter before pushing", a standing
instruction, was never seen. Their paragraphs at the comment's foot are theirs again;
every line the bot wrote is still cut (a finding kept as the person's was the defect
the cut exists for). Every fixture is written here, not copied.
"""

from __future__ import annotations

import pytest

from learn.transcripts.view.relayed import strip_relayed
from learn.transcripts.view.typed import typed_text

ASK = "does this finding hold? keep the answer short"
CLOSING = "anyway, please always run the linter before pushing"

# The page copied from the bot's handle to its suggested diff, and nothing after it.
COMMENT = (
    "@checkhound\n"
    "checkhound bot\n"
    "3 days ago\n"
    "⚠️ Potential issue | 🟠 Major\n"
    "\n"
    "Reject a page size of zero.\n"
    "\n"
    "A zero size makes the pager loop forever on the first empty result.\n"
    "\n"
    "Apply this diff:\n"
    "\n"
    "-  if size < 0 {\n"
    "+  if size <= 0 {"
)
FINDINGS = ("Reject a page size of zero", "loop forever", "size <= 0")


def _no_findings(kept: str) -> None:
    for words in FINDINGS:
        assert words not in kept


@pytest.mark.parametrize("closing", [
    CLOSING,
    "Anyway, from now on run the whole test suite before you tell me it works.",
    "I want every fix to come with a test, so add one for this too.",
    "also keep the commits small\nand write their messages in the imperative",
])
def test_the_persons_closing_words_after_an_unmarked_comment_are_kept(closing: str) -> None:
    kept = strip_relayed(f"{COMMENT}\n\n{closing}")
    assert kept == closing
    _no_findings(kept)


def test_the_persons_words_before_and_after_the_comment_are_both_kept() -> None:
    kept = strip_relayed(f"{ASK}\n{COMMENT}\n\n{CLOSING}")
    assert kept == f"{ASK}\n\n{CLOSING}"


def test_an_unmarked_comment_with_only_its_findings_is_cut_whole() -> None:
    assert strip_relayed(f"{ASK}\n{COMMENT}") == ASK
    assert strip_relayed(f"{ASK}\n\n{COMMENT}\n\n") == ASK


@pytest.mark.parametrize("foot", [
    # The bot's sentences: capitalised, about the code.
    "The same check is missing from the cursor variant.",
    "Please confirm that callers never pass a negative size.",
    # Its offers and marks.
    "Would you like me to open an issue to track the cursor variant?",
    "📝 Committable suggestion",
    "‼️ IMPORTANT Carefully review the code before committing.",
    "medium",
    "checkhound bot\n2 days ago",
    # Code and the lines introducing it, even where a line opens in lower case.
    "pageSize is read before it is checked",
    "the guard belongs in fetch_page, not in the caller",
    "see pager.go for the loop",
    "    return nil, errEmptyPage",
    "suggested change:",
    "- a zero size\n- a negative size",
    "> the loop never ends",
])
def test_a_comment_shaped_paragraph_at_the_foot_is_cut(foot: str) -> None:
    assert strip_relayed(f"{ASK}\n{COMMENT}\n\n{foot}") == ASK


def test_the_persons_voice_above_a_paragraph_of_the_bots_is_cut_with_it() -> None:
    # Read from the foot up: a bot's line under a paragraph that sounds like the person
    # leaves that paragraph inside the comment, never kept above a line the bot wrote.
    pasted = f"{COMMENT}\n\ni think it is right\n\nThe cursor variant has the same loop."
    assert strip_relayed(f"{ASK}\n{pasted}") == ASK


def test_words_that_follow_the_comment_without_a_blank_line_stay_cut() -> None:
    # No paragraph break: nothing says the bot's paragraph has ended.
    assert strip_relayed(f"{ASK}\n{COMMENT}\n{CLOSING}") == ASK


def test_words_between_two_unmarked_comments_are_the_persons() -> None:
    second = ("@checkhound\ncheckhound bot\n3 days ago\n🛠️ Refactor suggestion | 🟡 Minor\n\n"
              "Name the retry limit.\n\nA bare 5 in two places will drift.")
    between = "only the first one matters to me"
    kept = strip_relayed(f"{ASK}\n{COMMENT}\n\n{between}\n{second}")
    assert kept == f"{ASK}\n\n{between}"


def test_the_typed_view_keeps_the_closing_instruction() -> None:
    typed = typed_text(f"{ASK}\n{COMMENT}\n\n{CLOSING}")
    assert typed.text == f"{ASK}\n\n{CLOSING}"
    assert typed.reason == "pasted-agent-report"
