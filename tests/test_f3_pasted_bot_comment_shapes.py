"""The shapes a review bot's pull-request comment takes when a person pastes it, and the
person's own lines that look a little like one and stay theirs.

The shapes follow public pastes of CodeRabbit, Gemini Code Assist and the Codex
connector (the web page copied: handle, "<handle> bot", when, a finding tag or a
severity word; and the markdown CodeRabbit posts: "_⚠️ Potential issue_ | _🟡 Minor_",
a bold title, `<details>` blocks). Every fixture is written here, not copied.
"""

from __future__ import annotations

import pytest

from learn.transcripts.view.relayed import strip_relayed
from learn.transcripts.view.typed import typed_text

ASK = "is this one worth fixing? answer in two lines"
AFTER = "and run the unit tests when done"


def test_the_page_copy_with_its_commented_code_is_cut_from_the_path_down() -> None:
    pasted = (
        f"{ASK}\n"
        "server/queue/worker.go\n"
        "Comment on lines +40 to +44\n"
        "func drain(q *Queue) {\n"
        "\tfor q.Len() > 0 {\n"
        "Contributor\n"
        "@reviewpal\n"
        "reviewpal bot\n"
        "commented\n"
        "3 hours ago\n"
        "🛠️ Refactor suggestion | 🟠 Major\n"
        "\n"
        "Drain the queue under its lock.\n"
        "\n"
        "Two workers can both see a length above zero and pop the same job twice."
    )
    assert strip_relayed(pasted) == ASK


def test_the_author_and_its_time_on_one_line_open_a_comment() -> None:
    pasted = (f"{ASK}\n\n@reviewpal reviewpal bot 4 days ago\n⚠️ Potential issue | 🔴 Critical\n\n"
              "Escape the name before it reaches the shell.\n\nA quote in it ends the command early.")
    assert strip_relayed(pasted) == ASK


def test_words_after_the_pages_end_of_a_comment_are_the_persons() -> None:
    connector = ("@review-connector\nreview-connector bot\n1 hour ago\n"
                 "P2 Badge Close the file on the error path\n\n"
                 "When the parse fails the handle stays open until the process exits.\n\n"
                 "Useful? React with 👍 / 👎.")
    assert strip_relayed(f"{ASK}\n{connector}\n\n{AFTER}") == f"{ASK}\n\n{AFTER}"
    assistant = ("@code-helper\ncode-helper bot\n2 hours ago\nmedium\n\n"
                 "The retry count is read twice; keep it in one place so the two cannot drift.\n\n"
                 "@someone\tReply...")
    assert strip_relayed(f"{ASK}\n{assistant}\n{AFTER}") == f"{ASK}\n{AFTER}"


def test_the_bots_markdown_is_cut_through_its_last_closing_block() -> None:
    posted = (
        "_⚠️ Potential issue_ | _🟡 Minor_\n\n"
        "**Trim the tag before comparing it.**\n\n"
        "A tag read from the form keeps its trailing space, so the lookup misses.\n\n"
        "<details>\n<summary>Proposed fix</summary>\n\n```diff\n-  key := tag\n+  key := strings.TrimSpace(tag)\n```\n\n"
        "</details>\n\n<!-- a marker the bot leaves -->"
    )
    assert strip_relayed(f"{ASK}\n\n{posted}\n\n{AFTER}") == f"{ASK}\n\n{AFTER}"


def test_two_comments_pasted_one_after_another_go_and_a_line_between_stays() -> None:
    first = ("@reviewpal\nreviewpal bot\n5 days ago\n⚠️ Potential issue | 🟡 Minor\n\n"
             "Reject an empty region.\n\nAn empty string falls through to the default zone.\n"
             "@someone\tReply...")
    second = ("lib/zone.py\nComment on lines +3 to +5\ndef zone(region):\n    return ZONES[region]\n"
              "@reviewpal\nreviewpal bot\n5 days ago\n🛠️ Refactor suggestion | 🟠 Major\n\n"
              "Look the zone up once.\n\nThe table is read on every call.")
    between = "the second one matters more"
    assert strip_relayed(f"{ASK}\n{first}\n{between}\n{second}") == f"{ASK}\n{between}"


def test_a_review_summary_under_the_bots_app_name_is_cut() -> None:
    pasted = ("reviewpal[bot]\nreviewpal Bot reviewed 6 hours ago\nContributor\nreviewpal Bot\n"
              "left a comment\nA cache read on every request is the main cost of this change.\n"
              "@someone\tReply...")
    assert strip_relayed(f"{ASK}\n{pasted}\n{AFTER}") == f"{ASK}\n{AFTER}"


def test_a_finding_copied_without_the_pages_end_ends_where_the_persons_words_begin() -> None:
    # Nothing on the page marks where the bot's paragraphs stop: the bot's capitalised
    # sentences stay cut, never read as the person's; the person's lower-case line under
    # them is theirs (relayed._persons_tail).
    pasted = ("⚠️ Potential issue | 🟠 Major\n\nHold the lock while the map is copied.\n\n"
              "A writer can resize it mid-copy.")
    assert strip_relayed(f"{ASK}\n\n{pasted}") == ASK
    assert strip_relayed(f"{ASK}\n\n{pasted}\n\nplease double check this") == (
        f"{ASK}\n\nplease double check this")


def test_a_pasted_comment_is_a_pasted_report_in_the_typed_view() -> None:
    raw = (f"{ASK}\n@reviewpal\nreviewpal bot\nyesterday\n⚠️ Potential issue | 🟠 Major\n\n"
           "Free the buffer before returning.\n\nThe early return leaks it on every short read.")
    typed = typed_text(raw)
    assert typed.text == ASK
    assert typed.reason == "pasted-agent-report"


@pytest.mark.parametrize("own", [
    # The words, typed by the person: no bar, no severity, no bot's head.
    "this is a potential issue with the cache\nplease guard the ttl against negatives",
    "⚠️ potential issue: the ttl can go negative\nguard it and add a test",
    "Potential issue | minor? I think it is major\nfix it first",
    # Their own table.
    "triage these:\n| finding | kind | weight |\n|---|---|---|\n| ttl | potential issue | minor |\n"
    "| Potential issue | Minor |",
    # A bot named, but no page's head under it.
    "renovate bot\nopened a pull request yesterday, merge it if the tests pass",
    "ask the review bot\n2 days ago it flagged the same line",
    "the bot\n2 days ago\nsaid the same thing, ignore it",
    # A time alone, no bot.
    "@alice\n2 days ago you said to keep the flag\nso keep it",
    # "bot" inside words only.
    "both paths fail at the bottom of the robot's loop\nfix the bottleneck | then rerun",
])
def test_the_persons_own_lines_that_look_like_a_comment_stay(own: str) -> None:
    assert strip_relayed(own) == own
