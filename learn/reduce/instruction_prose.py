"""Which lines of an instruction file (CLAUDE.md, AGENTS.md...) are prose the agent reads.

One answer for both halves of learn: the corpus coverage checks proposals against
(learn.reduce.rules) and the writer that rewrites a restated rule or skips one already
present (learn.report.edits). When the two read a file differently, a rule the run saw as
"restated" was rewritten where no agent reads it: inside an HTML comment (Claude Code
strips comments before the model sees the file), inside an indented code block, or
where learn's own marker (itself a comment) closed the person's comment early and left
a stray `-->` in the prose.

Not prose: YAML front matter, fenced code blocks, indented code blocks and the inside of
`<!-- ... -->` comments. The scan follows CommonMark where it matters to those four (fence
lengths, four columns of indent, tabs to the next multiple of four, list items shifting
the indent code needs, an indented block never interrupting a paragraph) without being a
full Markdown parser. Pure: lines in, a verdict per line out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

BOM = "\ufeff"
OPEN = "<!--"
CLOSE = "-->"

_FENCE = re.compile(r"(`{3,}|~{3,})(.*)$")
_ITEM = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?=[ \t]|$)")
_HEADING = re.compile(r"#{1,6}(?:[ \t]|$)")
_TICKS = re.compile(r"`+")


@dataclass(frozen=True, slots=True)
class ProseLine:
    """A line the agent reads (some of it, at least)."""

    text: str  # what the agent reads of it: comments cut out, no line ending, no BOM
    # All of the line is prose: no comment runs into it from above or on past its end,
    # so rewriting the whole line cannot open, close or cut a comment.
    whole: bool


@dataclass(frozen=True, slots=True)
class Prose:
    lines: tuple[ProseLine | None, ...]  # per line; None: code, front matter, or all comment
    open_fence: str  # the fence still open after the last line ("" when none)

    def whole(self) -> list[bool]:
        """Per line: prose from end to end (a line learn may rewrite)."""
        return [p is not None and p.whole for p in self.lines]


def _columns(line: str) -> tuple[int, str]:
    """(the indent in columns, tabs to the next multiple of four; the rest of the line)."""
    col = 0
    for i, ch in enumerate(line):
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            return col, line[i:]
    return col, ""


def _front_matter_end(lines: Sequence[str]) -> int:
    """How many lines the front matter takes (0: none), as learn.reduce.rule_places'
    strip_frontmatter reads it: a `---` first line up to a `---` or `...` line; never
    closed, it is no front matter."""
    if not lines or lines[0].removeprefix(BOM).strip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].strip() in ("---", "..."):
            return i + 1
    return 0


def _comment_opens(text: str, closes_later: bool) -> int:
    """Where the first comment opener of `text` is (-1: none). An opener inside a code
    span is the code's text, and one never closed anywhere after it is plain text (a
    stripper of `<!-- ... -->` spans leaves it)."""
    i = 0
    while i < len(text):
        if text.startswith(OPEN, i):
            if CLOSE in text[i + len(OPEN):] or closes_later:
                return i
            return -1
        if text[i] == "`":
            run = _TICKS.match(text, i)
            assert run is not None
            end = text.find(run.group(0), run.end())
            if end != -1:
                i = end + len(run.group(0))
                continue
            i = run.end()
            continue
        i += 1
    return -1


def _strip_comments(text: str, in_comment: bool, closes_later: bool) -> tuple[str, bool]:
    """(the part of `text` outside comments, whether a comment is still open after it)."""
    out: list[str] = []
    rest = text
    while True:
        if in_comment:
            end = rest.find(CLOSE)
            if end == -1:
                return "".join(out), True
            rest = rest[end + len(CLOSE):]
            in_comment = False
        start = _comment_opens(rest, closes_later)
        if start == -1:
            out.append(rest)
            return "".join(out), False
        out.append(rest[:start])
        rest = rest[start + len(OPEN):]
        in_comment = True


def prose_of(lines: Sequence[str]) -> Prose:
    """Read `lines` (with or without their line endings) as an agent's instruction file."""
    bare = [x.rstrip("\r\n") for x in lines]
    if bare:
        bare[0] = bare[0].removeprefix(BOM)
    # closes_after[i]: a comment closer sits on a line after line i.
    closes_after = [False] * len(bare)
    seen = False
    for i in range(len(bare) - 1, -1, -1):
        closes_after[i] = seen
        seen = seen or CLOSE in bare[i]
    front = _front_matter_end(bare)
    out: list[ProseLine | None] = [None] * front
    fence = ""  # the opening fence while inside a fenced block
    fence_base = 0  # the indent of the container the fence opened in
    items: list[int] = []  # the content columns of the list items the line may belong to
    in_comment = False
    in_code = False  # inside an indented code block
    paragraph = False  # the line before continues a paragraph (code cannot interrupt it)
    blank_before = True
    for line in bare[front:]:
        indent, rest = _columns(line)
        i = len(out)
        if fence:
            m = _FENCE.match(rest)
            if (m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
                    and not m.group(2).strip() and indent - fence_base <= 3):
                fence = ""
            out.append(None)
            blank_before, paragraph = False, False
            continue
        if in_comment:
            text, in_comment = _strip_comments(line, True, closes_after[i])
            out.append(ProseLine(text, whole=False) if text.strip() else None)
            blank_before, paragraph = False, bool(text.strip()) and paragraph
            continue
        if not rest:
            out.append(ProseLine("", whole=True) if not in_code else None)
            blank_before, paragraph = True, False
            continue
        starts_block = bool(_FENCE.match(rest) or _HEADING.match(rest) or _ITEM.match(rest)
                            or rest.startswith(OPEN))
        if blank_before or starts_block:
            # A list item holds only what is indented to its content (a lazy line
            # continuing its paragraph aside).
            while items and indent < items[-1]:
                items.pop()
        base = items[-1] if items else 0
        if indent - base >= 4 and (in_code or not paragraph):
            in_code = True
            out.append(None)
            blank_before = False
            continue
        in_code = False
        if indent - base <= 3 and (m := _FENCE.match(rest)) and not (
                m.group(1)[0] == "`" and "`" in m.group(2)):
            fence, fence_base = m.group(1), base
            out.append(None)
            blank_before, paragraph = False, False
            continue
        if indent - base <= 3 and (item := _ITEM.match(rest)):
            after = rest[item.end():]
            gap, content = _columns(after)  # columns are relative here, close enough
            width = item.end() + (1 if gap > 4 or not content else gap)
            items.append(indent + width)
        text, in_comment = _strip_comments(line, False, closes_after[i])
        out.append(ProseLine(text, whole=not in_comment))
        blank_before = False
        paragraph = bool(text.strip()) and not _HEADING.match(rest)
    return Prose(tuple(out), fence)
