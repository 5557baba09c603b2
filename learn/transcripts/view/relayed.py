"""Other agents' words pasted by the person: not theirs, though the words around them are.

People paste what another agent wrote into the prompt: a review bot's findings
("Fix the following issues reported by …"), another model's review relayed by
hand (markdown headings and bold labels, no terminal glyphs, so
`typed.strip_pasted_output` does not see it), a review bot's pull-request comment
copied from the web page or its markdown, an IDE's embedded file
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

# A review bot's pull-request comment, copied from the web page (found in real Codex
# sessions: the same bot comment pasted under a one-line request into several sessions,
# its finding then counted as the person's directive) or as the markdown the bot posts.
# Copied from the page it has no heading and no bold label, only the page's own lines:
# the bot's handle, "<handle> bot" (or "<handle>[bot]"), when it commented ("2 days
# ago", "commented 1 hour ago", "on Aug 15, 2025"), a finding tag, the finding. Public
# pastes of CodeRabbit, Gemini Code Assist and the Codex connector all have this head:
#   @coderabbitai / coderabbitai bot / 1 minute ago / 🛠️ Refactor suggestion | 🟠 Major
#   @coderabbitai coderabbitai bot 4 days ago / ⚠️ Potential issue | 🔴 Critical
#   @gemini-code-assist / gemini-code-assist bot / 1 hour ago / medium
#   @chatgpt-codex-connector / chatgpt-codex-connector bot / 1 hour ago / P2 Badge <title>
_WHEN: Final = (
    r"(?:(?:\d+|an?|one)\s+(?:second|minute|hour|day|week|month|year)s?\s+ago|yesterday|just\s+now"
    r"|last\s+(?:week|month|year)|(?:on\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"[a-z]*\.?\s+\d{1,2},?(?:\s+\d{4})?)")
_ACTION: Final = (r"(?:commented|reviewed|left\s+a\s+comment|suggested\s+changes"
                  r"|approved\s+these\s+changes)")
# The author line: a whole line that is a handle (GitHub's are at most 39 characters)
# and "bot" (a person writes "the bot" inside a sentence, not as a line followed by a
# line saying when it commented).
_BOT_AUTHOR: Final = lazy_pattern(
    rf"^\s*(?:@[\w.-]{{1,39}}\s+)?(?!(?:the|a|an|this|that|my|our|your|their|its|review)\s)"
    rf"[a-z0-9][\w.-]{{0,38}}(?:\[bot\]|\s+bot)(?:\s+{_ACTION})?(?:\s+{_WHEN})?\s*(?:[•·].*)?$", re.I)
_WHEN_ON: Final = lazy_pattern(rf"\b{_WHEN}\s*(?:[•·].*)?$", re.I)
_WHEN_LINE: Final = lazy_pattern(rf"^\s*(?:{_ACTION}\s+)?{_WHEN}\s*(?:[•·].*)?$", re.I)
_ACTION_LINE: Final = lazy_pattern(rf"^\s*{_ACTION}\s*$", re.I)
# A bot's finding tag: a category, a bar, a severity ("⚠️ Potential issue | 🟡 Minor",
# posted as "_⚠️ Potential issue_ | _🟡 Minor_"). The bar and the severity word are
# the bot's: a person's "this is a potential issue" has neither (and a table row of
# theirs, "| potential issue | minor |", opens with a bar).
_TAG_CATEGORIES: Final = ("potential issue", "refactor suggestion", "nitpick", "verification agent",
                          "outside diff range")
_FINDING_TAG: Final = lazy_pattern(
    r"^\s*_?[^\w\s|]{0,4}\s*(?:"
    + "|".join(c.replace(" ", r"\s+") for c in _TAG_CATEGORIES)
    + r")(?:\s+comments?)?_?\s*\|\s*_?[^\w\s]{0,4}\s*"
    r"(?:critical|major|minor|trivial|info)_?\s*(?:\|.*)?$", re.I)
# Above the head, the page shows the code commented on: "Comment on lines +12 to +18"
# (under the file's path), the lines themselves, the bot's role and its avatar's handle.
_COMMENTED_LINES: Final = lazy_pattern(r"^\s*comment\s+on\s+lines?\s+[+-]?\d+(?:\s+to\s+[+-]?\d+)?\s*$",
                                      re.I)
_LONE_PATH: Final = lazy_pattern(r"^\s*[\w@.-]*[/.][\w@./-]*\.[A-Za-z0-9]{1,8}\s*$")
_PAGE_LINE: Final = lazy_pattern(
    r"^\s*(?:@[\w.-]+|contributor|member|owner|collaborator|author|outdated|resolved|[•·])\s*$",
    re.I)
# How far above the head the commented code may start: GitHub shows the lines a
# comment is on, a few to a few dozen.
_CODE_ABOVE_MAX: Final = 80
# Where the page's comment ends: the reply box under a thread ("@alice\tReply..."),
# the Codex connector's "Useful? React with 👍 / 👎.", the bot's closing markup. A
# comment copied without one ends where the person's own paragraphs at its foot begin
# (`_persons_tail`).
_COMMENT_END: Final = lazy_pattern(
    r"^\s*(?:@?[\w.-]+\s+)?reply\.\.\.\s*$|^\s*useful\?\s*react\s+with\b|^\s*</details>\s*$"
    r"|^\s*<!--.*-->\s*$|^\s*✅\s*addressed\s+in\s+commits?\b", re.I)
# A comment copied without its page's end ran to the end of the message, and took the
# person's words typed under it ("... anyway, please always run the linter before
# pushing"), a standing instruction lost. A paragraph at its foot, after a blank line, is
# the person's when it is in their voice (opened in lower case, as the bots' generated
# sentences never are, or with a word a review does not use, or saying "I" or "my") and
# no line of it has the comment's shape (`_comment_shaped`): a finding must never be
# kept as theirs, so a paragraph that is both stays cut with the comment.
_PERSON_VOICE: Final = lazy_pattern(
    r"^\s*(?:anyway|btw|by\s+the\s+way|ok(?:ay)?|thanks|thank\s+you|regardless|either\s+way"
    r"|other\s+than\s+that|apart\s+from\s+that)\b|\bi(?:['’](?:m|ve|d|ll))?\b(?![/.-])|\bmy\b",
    re.I)
# Code, which a person's sentence to the agent does not hold: brackets, an assignment, a
# handle, camelCase, a call, snake_case. Three searches, the costly two only where their
# character is: one pattern with every alternative took 6.6 us a line of prose, these 2.2.
_CODE_MARK: Final = lazy_pattern(r"[{}\[\];=<>@]")
_CAMEL_CASE: Final = lazy_pattern(r"\b[a-z]+[A-Z]")
_CALL_OR_SNAKE: Final = lazy_pattern(r"\w\(|\w_\w")
# A severity alone on its line (Gemini Code Assist's "medium").
_SEVERITY_WORDS: Final = frozenset({"critical", "high", "medium", "low", "major", "minor", "nit",
                                    "trivial", "info"})
# "bot" at a word's end ("coderabbitai bot", "coderabbitai[bot]"): found by its letters
# first, which the regex engine scans for in C; a pattern opening with a word boundary
# or ignoring case is tried at every position: 0.11-0.23 s on a 1.6 MB message of shell
# pipelines, which the rest of this module reads in 0.03 s (this way, 0.03 s more where
# each of its 20,000 lines says "robot").
_BOT_END: Final = lazy_pattern(r"bot\b")


def strip_relayed(text: str) -> str:
    """`text` without embedded context blocks and pasted agent reports."""
    if "<context" in text:
        text = _CONTEXT_REF.sub("", text).strip()
    if "\n" not in text:
        return "" if _may_head(text) and _REVIEW_HEAD.match(text) else text
    low = text.lower()
    if _may_hold_comment(low):
        text = _strip_bot_comments(text)
        if "\n" not in text:
            return "" if _may_head(text) and _REVIEW_HEAD.match(text) else text
        low = text.lower()
    lines = text.splitlines()
    found = _report_start(lines, low)
    if found is None:
        return text
    start, findings = found
    end = _report_end(lines, start, findings=findings)
    kept = [*lines[:start], *lines[end:]]
    return _BLANK_RUN.sub("\n\n", "\n".join(kept)).strip()


def _may_head(text: str) -> bool:
    """Whether `text` can open with a review tool's head (`_REVIEW_HEAD`: spaces, then
    "please", "fix", "address", "resolve" or "verify"; no other character matches one
    of their first letters under IGNORECASE): most one-line turns open with another
    letter, and are not matched (callgrind: building the views of the spread and tree
    bench homes, 250 sessions each, took 0.997x and 0.998x the instructions)."""
    first = text[:1]
    return first in _HEAD_INITIALS or first.isspace()


_HEAD_INITIALS: Final = "pfarvPFARV"


def is_generated_findings(text: str) -> bool:
    """A review tool's generated fix prompt with nothing typed around it: it opens with
    the tool's head ("Fix the following issues", "Verify each finding against the
    current code") and `strip_relayed` leaves nothing."""
    head = text.lstrip().split("\n", 1)[0]
    return bool(_REVIEW_HEAD.match(head)) and not strip_relayed(text)


def _may_hold_comment(low: str) -> bool:
    """Whether `low`, a text lowered, has the word "bot" or a finding tag's category: most
    messages have neither and are not read line by line for a comment."""
    for found in _BOT_END.finditer(low):
        at = found.start()
        if at == 0 or not (low[at - 1].isalnum() or low[at - 1] == "_"):
            return True
    return any(category in low for category in _TAG_CATEGORIES)


def _strip_bot_comments(text: str) -> str:
    """`text` without the review bots' pull-request comments pasted into it."""
    lines = text.splitlines()
    heads = [i for i in range(len(lines)) if _comment_head(lines, i)]
    if not heads:
        return text
    cut = [False] * len(lines)
    floor = 0
    tops = []
    for head in heads:
        top = _comment_top(lines, head, floor)
        tops.append(top)
        floor = head + 1
    for k, head in enumerate(heads):
        stop = tops[k + 1] if k + 1 < len(heads) else len(lines)
        ends = [i for i in range(head + 1, stop) if _COMMENT_END.search(lines[i])]
        # Through the last end before the next comment (a thread's replies, a bot's
        # several closing blocks); with none, up to the person's paragraphs at its foot.
        end = ends[-1] + 1 if ends else _persons_tail(lines, head, stop)
        for i in range(tops[k], end):
            cut[i] = True
    kept = [line for line, gone in zip(lines, cut, strict=True) if not gone]
    return _BLANK_RUN.sub("\n\n", "\n".join(kept)).strip()


def _comment_head(lines: list[str], i: int) -> bool:
    """Whether line `i` opens a bot's comment: its author line with when it commented
    (on the line or within the next three), or a finding tag with no author line above."""
    line = lines[i]
    if _BOT_AUTHOR.match(line):
        if _WHEN_ON.search(line):
            return True
        for nxt in lines[i + 1:i + 4]:
            if _WHEN_LINE.match(nxt):
                return True
            if not (_ACTION_LINE.match(nxt) or _PAGE_LINE.match(nxt) or _BOT_AUTHOR.match(nxt)):
                return False
        return False
    return bool(_FINDING_TAG.match(line)) and not any(
        _BOT_AUTHOR.match(above) for above in lines[max(0, i - 3):i])


def _comment_top(lines: list[str], head: int, floor: int) -> int:
    """The first line of the comment opened at `head`: the page's code excerpt above it
    ("Comment on lines ...", under its file's path), or the page's lines right above it
    (the avatar's handle, the bot's role, indented code); never above `floor`."""
    for j in range(head - 1, max(floor, head - _CODE_ABOVE_MAX) - 1, -1):
        if _COMMENTED_LINES.match(lines[j]):
            return j - 1 if j > floor and _LONE_PATH.match(lines[j - 1]) else j
    top = head
    while top > floor and (_PAGE_LINE.match(lines[top - 1]) or _INDENTED.match(lines[top - 1])
                           or _BOT_AUTHOR.match(lines[top - 1])):
        top -= 1
    return top


def _persons_tail(lines: list[str], head: int, stop: int) -> int:
    """The index after the comment opened at `head`, which has no end marker before
    `stop`: its foot's paragraphs that each read as the person's are not in it. Read
    from the foot up and stopped at the first paragraph that does not, so a line the bot
    wrote is never kept, nor one above it (the person's words follow a paste)."""
    end = stop
    while True:
        last = end
        while last > head + 1 and not lines[last - 1].strip():
            last -= 1
        first = last
        while first > head + 1 and lines[first - 1].strip():
            first -= 1
        # A paragraph opening right under the head line has no blank line above it.
        if first == last or first == head + 1 or not _reads_as_persons(lines[first:last]):
            # The blank line above the person's words stays, as after a marked end.
            return last if end < stop else stop
        end = first


def _reads_as_persons(paragraph: list[str]) -> bool:
    """Whether a paragraph at a comment's foot is the person's: in their voice (see
    `_PERSON_VOICE`), no line of it shaped like the comment's."""
    opening = paragraph[0].lstrip()
    voiced = "a" <= opening[0] <= "z" or bool(_PERSON_VOICE.search(paragraph[0]))
    return voiced and not any(_comment_shaped(line) for line in paragraph)


def _comment_shaped(line: str) -> bool:
    """Whether `line` could be a comment's: structured (a list, a quote, code, a table, a
    diff), code or a name of it, a mark of the page or of the bot (an emoji or a symbol
    opening it, a finding tag, a severity, its closing offer), or introducing what
    follows ("Apply this diff:"). The cheap checks first: a kept paragraph passes all."""
    bare = line.strip()
    if not (bare[0].isalnum() or bare[0] in "\"'‘“(") or bare.endswith(":"):
        return True
    if bare.lower() in _SEVERITY_WORDS or _CODE_MARK.search(line) or _CAMEL_CASE.search(line):
        return True
    if ("(" in line or "_" in line) and _CALL_OR_SNAKE.search(line):
        return True
    return _structured(line) or bool(
        _FINDING.search(line) or _SEVERITY.search(line) or _FINDING_TAG.match(line)
        or _VOICE_CLOSE.match(line) or _BOT_AUTHOR.match(line) or _WHEN_LINE.match(line)
        or _PAGE_LINE.match(line))


def _marks(line: str) -> bool:
    return bool(_HEADING.match(line) or _BOLD_LABEL.match(line))


def _structured(line: str) -> bool:
    return bool(_marks(line) or _LIST.match(line) or _FENCE.match(line) or _TABLE.match(line)
                or _QUOTE.match(line) or _INDENTED.match(line))


def _report_start(lines: list[str], low: str) -> tuple[int, bool] | None:
    """(the report's first line, whether it is a list of findings naming code), or None;
    `low` is the lines' text lowered.

    The evidence, in order: a review tool's head line; two headings or bold labels,
    one with a reviewer's word; two list items tagged with a priority or severity;
    a structured answer in an assistant's voice (opened with "Here's ..." or closed
    with "If you want, I can ..."). A person's own structured prompt ("## Goal" /
    "## Constraints", a list of bugs they found) has none of these.
    """
    # A line is matched only in a text that has what the pattern cannot match without
    # (most have none): a head says "follow" ("fix the following") or "current"
    # ("verify each finding against the current code"), a heading "#", a bold label
    # "**". Found in the lowered text: no letter of those words is one that IGNORECASE
    # also matches outside ASCII (as "ı" and "İ" match "i", "ſ" "s", the Kelvin sign "k"),
    # so a line the pattern matches has the word in its lowered form. (Over the typed
    # turns of the spread and tree bench homes, `strip_relayed` took 0.84x the time.)
    if "follow" in low or "current" in low:
        for i, line in enumerate(lines):
            if _REVIEW_HEAD.match(line):
                return i, True
    marked = ([i for i, line in enumerate(lines) if _marks(line)]
              if "#" in low or "**" in low else [])
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
