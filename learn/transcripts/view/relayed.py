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

from learn.lazy import lazy_pattern

# A review bot's or QA agent's report, pasted whole, or the fix prompt a review tool
# generates from its findings ("Fix the following issues. ... Verify each finding
# against the current code ...", 3,000+ characters through the Agent SDK).
_REVIEW_HEAD: Final = lazy_pattern(
    r"^\s*(?:please\s+)?(?:fix|address|resolve)\s+the\s+following\s+"
    r"(?:issues?|problems?|findings?|comments?|review\s+comments?)"
    r"(?:\s+(?:reported|raised|found|flagged)\s+by\b|\s*[.:](?:\s|$))"
    r"|^\s*verify\s+each\s+finding\s+against\s+the\s+current\s+code\b",
    re.I)
# A finding's priority or severity, as review tools tag them: "[P1]", "🔴 Critical",
# "Severity: high", "(major)".
_SEVERITY: Final = lazy_pattern(
    r"\[P[0-3]\]|\bP[0-3]\b:|[🔴🟠🟡🟢⚠❗]|\bseverity\s*:|\((?:critical|major|minor|high|medium|low|nit)\)"
    r"|^\s*(?:[-*+]\s+|\d+[.)]\s+)?\**(?:critical|major|minor|high|medium|low|nit)\**\s*[:—-]",
    re.I)
# An assistant addressing its reader (another model's answer pasted by hand): its
# opening and closing lines around a structured answer.
_VOICE_OPEN: Final = lazy_pattern(
    r"^\s*(?:here(?:'s|’s| is| are)\b|sure[,!]|certainly[,!]|absolutely[,!]|great question|"
    r"good question|below is\b|got it[,!—-])", re.I)
_VOICE_CLOSE: Final = lazy_pattern(
    r"^\s*(?:if you(?:'d| would)? (?:want|like)\b|would you like me to\b|want me to\b|"
    r"let me know (?:if|whether|which)\b|i can also\b|hope (?:this|that) helps\b|"
    r"happy to (?:help|adjust|expand)\b)", re.I)
# A structured answer: this many structured lines (one of them a heading or a bold label).
VOICED_MIN_LINES: Final = 3
_HEADING: Final = lazy_pattern(r"^\s{0,3}#{1,6}\s+\S")
_BOLD_LABEL: Final = lazy_pattern(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?\*\*[^*\n]{2,60}\*\*")
_LIST: Final = lazy_pattern(r"^\s*(?:[-*+•]\s+|\d+[.)]\s+)")
_FENCE: Final = lazy_pattern(r"^\s*(?:```|~~~)")
_TABLE: Final = lazy_pattern(r"^\s*\|")
_QUOTE: Final = lazy_pattern(r"^\s*>")
_INDENTED: Final = lazy_pattern(r"^(?: {2,}|\t)\S")
_CONTEXT_REF: Final = lazy_pattern(r"[ \t]*<context\s+ref=(?:\"[^\"]*\"|'[^']*'|[^\s>]+)\s*>"
                                 r".*?</context>[ \t]*\n?", re.S)
# A finding names code: a backticked span, a file, a line number.
_FINDING: Final = lazy_pattern(r"`|\b[\w/-]+\.[A-Za-z]{1,5}\b|\bline\s+\d+|:\d+\b")
_REVIEW_WORD: Final = lazy_pattern(
    r"\b(?:review\w*|summary|findings?|issues?|problems?|concerns?|bugs?|risks?|severity|"
    r"critical|major|minor|nits?|blocking|blockers?|suggestions?|recommendations?|verdict|"
    r"assessment|strengths?|weaknesses?|must fix|should fix|LGTM|P[0-3])\b", re.I)
_BLANK_RUN: Final = lazy_pattern(r"\n\s*\n(?:\s*\n)+")
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
    found = _report_start(lines)
    if found is None:
        return text
    start, findings = found
    end = _report_end(lines, start, findings=findings)
    kept = [*lines[:start], *lines[end:]]
    return _BLANK_RUN.sub("\n\n", "\n".join(kept)).strip()


def is_generated_findings(text: str) -> bool:
    """A review tool's generated fix prompt with nothing typed around it: it opens with
    the tool's head ("Fix the following issues", "Verify each finding against the
    current code") and `strip_relayed` leaves nothing."""
    head = text.lstrip().split("\n", 1)[0]
    return bool(_REVIEW_HEAD.match(head)) and not strip_relayed(text)


def _marks(line: str) -> bool:
    return bool(_HEADING.match(line) or _BOLD_LABEL.match(line))


def _structured(line: str) -> bool:
    return bool(_marks(line) or _LIST.match(line) or _FENCE.match(line) or _TABLE.match(line)
                or _QUOTE.match(line) or _INDENTED.match(line))


def _report_start(lines: list[str]) -> tuple[int, bool] | None:
    """(the report's first line, whether it is a list of findings naming code), or None.

    The evidence, in order: a review tool's head line; two headings or bold labels,
    one with a reviewer's word; two list items tagged with a priority or severity;
    a structured answer in an assistant's voice (opened with "Here's ..." or closed
    with "If you want, I can ..."). A person's own structured prompt ("## Goal" /
    "## Constraints", a list of bugs they found) has none of these.
    """
    for i, line in enumerate(lines):
        if _REVIEW_HEAD.match(line):
            return i, True
    marked = [i for i, line in enumerate(lines) if _marks(line)]
    if len(marked) >= REPORT_MIN_MARKS and any(_REVIEW_WORD.search(lines[i]) for i in marked):
        # A line introducing the paste ("codex says:") belongs to the person.
        return marked[0], False
    tagged = [i for i, line in enumerate(lines) if _LIST.match(line) and _SEVERITY.search(line)]
    if len(tagged) >= REPORT_MIN_MARKS:
        return _with_heading(lines, tagged[0]), True
    # An answer in an assistant's voice has a heading or a bold label among its lines.
    voiced = _voiced_start(lines) if marked else None
    return (voiced, False) if voiced is not None else None


def _with_heading(lines: list[str], i: int) -> int:
    """`i`, or the heading or bold label right above it (blank lines between)."""
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j if j >= 0 and _marks(lines[j]) else i


def _voiced_start(lines: list[str]) -> int | None:
    structured = [i for i, line in enumerate(lines) if _structured(line)]
    if len(structured) < VOICED_MIN_LINES or not any(_marks(lines[i]) for i in structured):
        return None
    first = structured[0]
    # An opener at most two non-blank lines above the structure.
    above = [j for j in range(first - 1, -1, -1) if lines[j].strip()][:2]
    for j in above:
        if _VOICE_OPEN.match(lines[j]):
            return j
    if any(_VOICE_CLOSE.match(line) for line in lines[structured[-1] + 1:]):
        return first
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
    # ...unless that paragraph is the answer's own closing offer ("If you want, I can ...").
    nxt = end
    while nxt < len(lines) and not lines[nxt].strip():
        nxt += 1
    if nxt < len(lines) and _VOICE_CLOSE.match(lines[nxt]):
        end = nxt
        while end < len(lines) and lines[end].strip():
            end += 1
    return end
