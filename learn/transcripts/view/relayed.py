"""Other agents' words pasted by the person: not theirs, though the words around them are.

People paste what another agent wrote into the prompt: a review bot's findings
("Fix the following issues reported by …"), another model's review relayed by
hand (markdown headings and bold labels, no terminal glyphs, so
`typed.strip_pasted_output` does not see it), an IDE's embedded file
(`<context ref="…">…</context>`, newer ACP clients). It arrives as a message,
as the reason typed when rejecting a plan, or as the answer to a question.
Mined as speech, every finding of the review became a "directive" the person
never gave. `strip_relayed` cuts the relayed block and keeps what the person
wrote before and after it.
"""

from __future__ import annotations

import re
from typing import Final

# A review bot's or QA agent's report, pasted whole.
_REVIEW_HEAD: Final = re.compile(
    r"^\s*(?:please\s+)?(?:fix|address|resolve)\s+the\s+following\s+"
    r"(?:issues?|problems?|findings?|comments?)\s+(?:reported|raised|found|flagged)\s+by\b",
    re.I)
_HEADING: Final = re.compile(r"^\s{0,3}#{1,6}\s+\S")
_BOLD_LABEL: Final = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?\*\*[^*\n]{2,60}\*\*")
_LIST: Final = re.compile(r"^\s*(?:[-*+•]\s+|\d+[.)]\s+)")
_FENCE: Final = re.compile(r"^\s*(?:```|~~~)")
_TABLE: Final = re.compile(r"^\s*\|")
_QUOTE: Final = re.compile(r"^\s*>")
_INDENTED: Final = re.compile(r"^(?: {2,}|\t)\S")
_CONTEXT_REF: Final = re.compile(r"[ \t]*<context\s+ref=(?:\"[^\"]*\"|'[^']*'|[^\s>]+)\s*>"
                                 r".*?</context>[ \t]*\n?", re.S)
# A finding names code: a backticked span, a file, a line number.
_FINDING: Final = re.compile(r"`|\b[\w/-]+\.[A-Za-z]{1,5}\b|\bline\s+\d+|:\d+\b")
_REVIEW_WORD: Final = re.compile(
    r"\b(?:review\w*|summary|findings?|issues?|problems?|concerns?|bugs?|risks?|severity|"
    r"critical|major|minor|nits?|blocking|blockers?|suggestions?|recommendations?|verdict|"
    r"assessment|strengths?|weaknesses?|must fix|should fix|LGTM|P[0-3])\b", re.I)
_BLANK_RUN: Final = re.compile(r"\n\s*\n(?:\s*\n)+")
# A relayed review has structure a person does not type into a prompt: two
# headings, or two bold labels, or one of each, one of them a reviewer's word
# (a person's own structured prompt, "## Goal" / "## Constraints", stays theirs).
REPORT_MIN_MARKS: Final = 2


def strip_relayed(text: str) -> str:
    """`text` without embedded context blocks and pasted agent reports."""
    if "<context" in text:
        text = _CONTEXT_REF.sub("", text).strip()
    if "\n" not in text:
        return "" if _REVIEW_HEAD.match(text) else text
    lines = text.splitlines()
    start = _report_start(lines)
    if start is None:
        return text
    end = _report_end(lines, start, findings=bool(_REVIEW_HEAD.match(lines[start])))
    kept = [*lines[:start], *lines[end:]]
    return _BLANK_RUN.sub("\n\n", "\n".join(kept)).strip()


def _marks(line: str) -> bool:
    return bool(_HEADING.match(line) or _BOLD_LABEL.match(line))


def _structured(line: str) -> bool:
    return bool(_marks(line) or _LIST.match(line) or _FENCE.match(line) or _TABLE.match(line)
                or _QUOTE.match(line) or _INDENTED.match(line))


def _report_start(lines: list[str]) -> int | None:
    for i, line in enumerate(lines):
        if _REVIEW_HEAD.match(line):
            return i
    marked = [i for i, line in enumerate(lines) if _marks(line)]
    if len(marked) >= REPORT_MIN_MARKS and any(_REVIEW_WORD.search(lines[i]) for i in marked):
        # A line introducing the paste ("codex says:") belongs to the person.
        return marked[0]
    return None


def _report_end(lines: list[str], start: int, *, findings: bool) -> int:
    """The index after the report: its last structured line (or, after a review
    bot's heading, its last finding naming code), with the prose between them (a
    review's paragraphs); prose after a blank line that follows is the person's."""
    last = start
    in_fence = False
    for i in range(start, len(lines)):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
            last = i
        elif in_fence or _structured(line) or (findings and _FINDING.search(line)):
            last = i
    end = last + 1
    # A review's closing paragraph runs on without a blank line; the person's
    # own words after the paste are separated from it.
    while end < len(lines) and lines[end].strip():
        end += 1
    return end
