"""Links and images in model-written prose, read as CommonMark reads them, kept only
to a safe target (learn.report.prose says which and why).

A link is read where a Markdown parser reads one: its brackets are not those of a code
span, an autolink or raw HTML, nor escaped ones (learn.report.inline_read); its text
may hold a link, undone in the same pass; in a command's body, whose lines are one
paragraph, a link is closed on its own line or is none.
"""

from __future__ import annotations

import re
from typing import Final

from learn.report.inline_read import PUNCTUATION, read

# A link's target, one level of parentheses inside (as CommonMark allows). Matched
# only at a `](` (`links_out`), never tried from every position.
_TARGET = r"\(((?:[^()\n]|\([^()\n]*\))*)\)"
_TARGET_AT = re.compile(_TARGET)
# A target that stays: http(s) and mailto, or a relative path of plain
# characters. Anything else (`javascript:`, `file:`, an entity or escape that a
# renderer decodes into a scheme, `javascript&#58;`) leaves the link's text only.
# The relative path stays inside the project's visible files: no `/` or `~` first, no
# `..`, no hidden name (`.env`, `.ssh`), no `%` escape of one. VS Code's Copilot
# Chat attaches the files the links of `.github/copilot-instructions.md` name (the
# file learn writes for Copilot): `[setup](../../.ssh/id_rsa)` sent the key to the
# model, as `@~/.ssh/id_rsa` does in Claude Code (microsoft/vscode#279045).
# No backtick or angle bracket in a target or its title either: CommonMark reads none there
# as a span or a tag, learn's reading of the line does (learn.report.inline_read), and a
# span learn made of a tag in a title was closed by a backtick of the title.
_SAFE_TARGET = re.compile(r"\s*<?(?:(?:https?://|mailto:)[^\s<>\\&`]*"
                          r"|(?:\./)?(?:[\w=+-][\w.=+-]*/)*(?:[\w=+-][\w.=+-]*)?"
                          r"(?:[#?][\w./~#?=%+-]*)?)>?"
                          r"(?:\s+\"[^\"\n`<>]*\")?\s*", re.IGNORECASE)
_BRACKET_OR_ESCAPE: Final = re.compile(r"[\[\]\\\n]")


def _bracket_scan(line: str) -> tuple[dict[int, int], list[int]]:
    """(each `[` of `line` that a `]` closes, to that `]`; every `[`, closed or not),
    brackets nested as CommonMark balances a link's text (`[[x]](…)` is a link whose
    text is `[x]`). One pass.

    A bracket CommonMark reads as no bracket is none here: an escaped one (`\\]`), or
    one in a code span, an autolink or raw HTML (learn.report.inline_read). Paired with
    the `]` of a span, the `[` of "[the `]` docs](../../.ssh/id_rsa)" opened no link
    learn saw, and the link to the key was written as it came."""
    pairs: dict[int, int] = {}
    opens: list[int] = []
    if "[" not in line:
        return pairs, opens
    open_at: list[int] = []
    inert = [(p.start, p.end) for p in read(line) if p.kind in ("code", "autolink", "html")]
    k = skip = 0
    while (m := _BRACKET_OR_ESCAPE.search(line, k)) is not None:
        k = m.start()
        while skip < len(inert) and inert[skip][1] <= k:
            skip += 1
        if skip < len(inert) and inert[skip][0] <= k:
            k = inert[skip][1]
            continue
        c = line[k]
        if c == "[":
            open_at.append(k)
            opens.append(k)
        elif c == "]" and open_at:
            pairs[open_at.pop()] = k
        elif c == "\n":
            open_at.clear()
        elif c == "\\" and line[k + 1:k + 2] in PUNCTUATION:
            k += 1
        k += 1
    return pairs, opens


def no_link_across_lines(lines: list[str]) -> list[str]:
    """A body's `lines` with each `[` escaped whose link or image a later line would
    close: its target's `)` is not on its line, or its `]` is not and a later line of
    the paragraph holds a `](` or `][` (a `[` left open in `projects = [` stays).

    CommonMark reads a paragraph's lines as one and learn reads a link a line at a time
    (`links_out`): "[the\\ndocs](../../.ssh/id_rsa)", "![a\\nb](https://…/p.png)" and
    "[a](../../.ssh/id_rsa\\n\"t\")" were written as they came, the key linked and the
    image fetched (14 of 200,000 random bodies)."""
    out = list(lines)
    closes_below = False  # a `](` or `][` on a later line of the paragraph
    for n in range(len(out) - 1, -1, -1):
        line = out[n]
        if not line.strip():
            closes_below = False
            continue
        if "[" in line:
            out[n] = _escaped_opens(line, closes_below)
        closes_below = closes_below or "](" in line or "][" in line
    return out


def _escaped_opens(line: str, closes_below: bool) -> str:
    pairs, opens = _bracket_scan(line)
    out: list[str] = []
    cut = 0
    for k in opens:
        close = pairs.get(k)
        if close is None and not closes_below:
            continue
        if close is not None and (not line.startswith("(", close + 1)
                                  or _TARGET_AT.match(line, close + 1) is not None):
            continue
        out += [line[cut:k], "\\"]
        cut = k
    return "".join([*out, line[cut:]])


def links_out(line: str) -> str:
    """`line` with images as their alt text, reference links and images as their
    text, and links kept only to a safe target (`_SAFE_TARGET`), else their text.

    A hand scan, linear in the line: the regexes it replaces (`\\[([^\\]\\n]*)\\]…`,
    one each for images, links and their reference forms) were tried from every `[`
    and read to the line's end from each when no `]` came: 20,000 `[` took 3.7 s,
    and a stored proposal is not bounded in size. A link's text is read inside
    (only the `](target)` of a kept one is copied as it is), so a link inside
    another's text (`[[x](javascript:0)](https://ok)`) is undone too, in one pass."""
    pairs = _bracket_scan(line)[0]
    out: list[str] = []
    resume: dict[int, tuple[int, bool]] = {}  # at a closing `]`: (go on at, copy it)
    k, n = 0, len(line)
    while k < n:
        if k in resume:
            go, copy = resume.pop(k)
            if copy:
                out.append(line[k:go])
            k = go
            continue
        image = line.startswith("![", k)
        start = k + 1 if image else k
        close = pairs.get(start) if image or line[k] == "[" else None
        if close is None:
            out.append(line[k])
            k += 1
            continue
        after = close + 1
        target = _TARGET_AT.match(line, after) if line.startswith("(", after) else None
        ref_end = pairs.get(after) if target is None and line.startswith("[", after) else None
        if target is None and ref_end is None:
            out.append(line[k])  # `[a] b`: no link here; one may start inside
            k += 1
            continue
        end = target.end() if target is not None else (ref_end or 0) + 1
        kept = target is not None and not image and _SAFE_TARGET.fullmatch(target.group(1))
        if kept:
            out.append("[")
        resume[close] = (end, bool(kept))
        k = start + 1
    return "".join(out)
