"""A review bot's comment copied from a pull request's web page is not the person's.

Found running learn on real Codex sessions (a person who pasted a review bot's PR
comments into several sessions, each with a one-line request of their own in front):
the comment arrives as the web page renders it when copied, with no markdown headings
or bold labels and no "Fix the following issues" head: the bot's handle, its name with
"bot", "N days ago", one "⚠️ Potential issue | 🟡 Minor" line, the finding's title,
its paragraph and a suggested diff. `strip_relayed` keeps all of it, so the finding's
sentences ("Guard against negative durations ...") verify as the person's words, and
the same comment pasted into two sessions counts as a directive said twice.

The fixture is written for this test (not copied from any transcript).
"""

from __future__ import annotations

from learn.transcripts.view.relayed import strip_relayed

LEAD_IN = "check whether this review point is right and answer briefly"

PASTED = (
    f"{LEAD_IN} src/lib/cache.ts\n"
    "  export function ttl(ms: number) {\n"
    "    return ms\n"
    "@lintbot-ai\n"
    "lintbot-ai bot\n"
    "2 days ago\n"
    "⚠️ Potential issue | 🟡 Minor\n"
    "\n"
    "Guard against negative durations in ttl.\n"
    "\n"
    "A negative value is accepted silently, which makes entries expire at once and "
    "hides the caller's bug.\n"
    "\n"
    "Apply this diff:\n"
    "\n"
    "-  return ms\n"
    "+  return Math.max(0, ms)"
)


def test_copied_bot_comment_is_cut_and_the_request_kept() -> None:
    kept = strip_relayed(PASTED)
    assert LEAD_IN in kept
    assert "Guard against negative durations" not in kept
    assert "accepted silently" not in kept


def test_the_persons_own_short_request_is_untouched() -> None:
    assert strip_relayed(LEAD_IN) == LEAD_IN
