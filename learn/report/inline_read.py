"""Where a Markdown renderer reads code spans and raw HTML in a line: CommonMark's reading.

learn writes an HTML tag in a rule as a code span (learn.report.prose): "use `<button>`"
still names the element, and no renderer acts on it. Which backticks made a span was a
pattern's guess (one backtick each side, not escaped, not doubled), and where backticks
were escaped, doubled or unbalanced a parser paired them otherwise: the span learn made
of `<img src=x onerror=…>` was closed by a stray backtick before it, and the tag stayed
HTML in the rendered file. Of 20,000 random texts built of tags, raw HTML and backticks,
69 carried raw HTML past learn, read by markdown-it (CommonMark's reference parser in
Python).

`read` reads a line as CommonMark's inline parser does (spec 0.31, markdown-it's rules),
left to right: a backslash escapes the punctuation after it; a run of backticks opens a
code span that the next run of the same length closes, and is backticks as they are
(`loose`) when none does; at a `<`, an autolink, else raw HTML (a tag, a comment, a
processing instruction, a declaration, CDATA), else a `<`. What comes first wins: a tag
holding a backtick is a tag, a span holding a `<b>` is code.

Links are not read here: learn keeps a link only to a target with no backtick or angle
bracket (learn.report.prose_links), so a link reads the same as its characters do. The
reading is checked against markdown-it's, piece for piece, on random lines
(tests/test_h2_prose_code_spans.py; 0 of 100,000 differed).
"""

from __future__ import annotations

import bisect
import re
from typing import Final, Literal, NamedTuple

Kind = Literal["text", "code", "loose", "html", "autolink"]


class Piece(NamedTuple):
    kind: Kind  # code: a span, fences included; loose: backticks no run of their length closes
    start: int
    end: int


_ATTRIBUTE: Final = (r"(?:\s+[A-Za-z_:][A-Za-z0-9:._-]*"
                     r"(?:\s*=\s*(?:[^\"'=<>`\x00-\x20]+|'[^']*'|\"[^\"]*\"))?)")
# CommonMark's raw HTML, by what it opens with; each is tried only when the text that
# ends it comes somewhere after (a lazy `<\?.*?\?>` tried from each of 20,000 `<?`
# read to the line's end from every one), as markdown-it does.
_COMMENT: Final = re.compile(r"<!---?>|<!--(?:[^-]|-[^-]|--[^>])*-->")
_RAW_HTML: Final = {  # by the character after the `<`; `a`: a letter's
    "!": (("<![CDATA[", "]]>", re.compile(r"<!\[CDATA\[.*?\]\]>", re.DOTALL)),
          ("<!", ">", re.compile(r"<![A-Za-z][^>]*>"))),
    "?": (("<?", "?>", re.compile(r"<\?.*?\?>", re.DOTALL)),),
    "/": (("</", ">", re.compile(r"</[A-Za-z][A-Za-z0-9-]*\s*>")),),
    "a": (("<", ">", re.compile(rf"<[A-Za-z][A-Za-z0-9-]*{_ATTRIBUTE}*\s*/?>")),),
}
# What of an open or closing tag a line can end inside, which CommonMark reads on into
# the next line of the paragraph (whitespace and a quoted value may hold a line break):
# `<div` then `hidden>`, `<a title="` and all of the next line up to a `"`.
TAG_OPEN_AT_END: Final = re.compile(
    rf"</?[A-Za-z][A-Za-z0-9-]*(?:{_ATTRIBUTE}*(?:\s+[A-Za-z_:][A-Za-z0-9:._-]*"
    r"(?:\s*=\s*(?:\"[^\"]*|'[^']*)?)?)?)?\s*\Z")
_AUTOLINK: Final = re.compile(
    r"<(?:([A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\x00-\x20]*)"
    r"|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>")
# markdown-it makes no link of these (its validateLink): the text is read on as text.
_NO_LINK: Final = re.compile(r"\s*(?:vbscript|javascript|file|data):", re.IGNORECASE)
_IMAGE_DATA: Final = re.compile(r"\s*data:image/(?:gif|png|jpeg|webp);", re.IGNORECASE)
PUNCTUATION: Final = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RUN: Final = re.compile(r"`+")
_SPECIAL: Final = re.compile(r"[\\`<]")  # where anything but text can start


def read(line: str) -> list[Piece]:
    """`line` in pieces, in order, end to end (`text` between the others)."""
    runs: dict[int, list[int]] = {}  # a run's length: where runs of it start, in order
    for m in _RUN.finditer(line):
        runs.setdefault(m.end() - m.start(), []).append(m.start())
    last = {term: line.rfind(term) for term in ("-->", "]]>", "?>", ">")}
    out: list[Piece] = []
    text_at = i = 0
    n = len(line)

    def piece(kind: Kind, start: int, end: int) -> None:
        if start > text_at:
            out.append(Piece("text", text_at, start))
        out.append(Piece(kind, start, end))

    while (at := _SPECIAL.search(line, i)) is not None:
        i = at.start()
        c = line[i]
        if c == "\\":
            i += 2 if i + 1 < n and line[i + 1] in PUNCTUATION else 1
            continue
        if c == "`":
            end = i + 1
            while end < n and line[end] == "`":
                end += 1
            starts = runs.get(end - i, [])
            k = bisect.bisect_left(starts, end)
            if k < len(starts):
                closed = starts[k] + end - i
                piece("code", i, closed)
                i = closed
            else:
                piece("loose", i, end)
                i = end
            text_at = i
            continue
        if c == "<":
            found = _tag_at(line, i, last)
            if found is not None:
                piece(found[0], i, found[1])
                i = text_at = found[1]
                continue
        i += 1
    if text_at < n:
        out.append(Piece("text", text_at, n))
    return out


def _tag_at(line: str, at: int, last: dict[str, int]) -> tuple[Kind, int] | None:
    """(autolink or html, where it ends) for what starts at line[at] (a `<`), or None."""
    if (link := _AUTOLINK.match(line, at)) is not None:
        url = link.group(1)
        if url is None or not _NO_LINK.match(url) or _IMAGE_DATA.match(url):
            return "autolink", link.end()
    second = line[at + 1:at + 2]
    if second == "!" and line.startswith("<!--", at):
        short = line.startswith(("<!-->", "<!--->"), at)
        m = _COMMENT.match(line, at) if short or last["-->"] >= at + 4 else None
        return ("html", m.end()) if m is not None else None
    for opener, closer, pattern in _RAW_HTML.get("a" if second.isalpha() else second, ()):
        if line.startswith(opener, at):
            m = pattern.match(line, at) if last[closer] >= at + len(opener) else None
            return ("html", m.end()) if m is not None else None
    return None
