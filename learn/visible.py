"""Characters a reader does not see: the one test of what learn shows or writes as text.

A rule's words reach an agent's instruction file (learn.report.prose), a digest reaches a
terminal and Claude Code's model (learn.report.digest), a teammate's shared quote reaches
both (learn.reduce.team). In each, a character that shows as nothing, or does something,
must not pass as it is: an ESC sequence moves the cursor, erases a line, sets the window
title or conceals what follows on the screen that is read before a yes; a bidi override
shows text in another order than it is read; a zero-width or tag character carries a
sentence no diff shows ("ASCII smuggling"). `visible` makes each a space.
"""

from __future__ import annotations

import re
import unicodedata

# Shown as nothing, or as blank space, while a model reads them: fillers,
# variation selectors, the combining grapheme joiner, the tag block ("ASCII
# smuggling": a sentence in U+E0020-E007E is invisible in a diff). The rest of
# the invisible characters are found by category (see hidden).
_INVISIBLE = frozenset([0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D,
                        0x180E, 0x180F, 0x2800, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10)])
# Controls, format characters (bidi marks and overrides, zero-width ones, soft
# hyphen, the byte-order mark), private use, lone surrogates, unassigned.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})


def hidden(char: str) -> bool:
    """Whether `char` shows as nothing or acts (see above); a tab and a newline do not."""
    code = ord(char)
    if code < 0x80:
        return (code < 0x20 and char not in "\t\n") or code == 0x7F
    return (code in _INVISIBLE or 0xE0000 <= code <= 0xE0FFF
            or unicodedata.category(char) in _HIDDEN_CATEGORIES)


_INVISIBLE_RE = re.compile("[" + "".join(map(chr, sorted(_INVISIBLE))) + "\U000e0000-\U000e0fff]")


def visible(text: str) -> str:
    """`text` with every hidden character a space (`hidden`): what is shown is what is
    read."""
    # Most texts hold none: then two scans in C say so (str.isprintable is False for
    # every control, format, private, surrogate and unassigned character; the rest of
    # the hidden ones are `_INVISIBLE`), not a Python call per character, which a
    # `learn show` of a 6 MB session would pay on every line it prints.
    plain = text.replace("\n", "").replace("\t", "")
    if plain.isprintable() and (plain.isascii() or not _INVISIBLE_RE.search(plain)):
        return text
    return "".join(" " if hidden(c) else c for c in text)


def code_span(text: str) -> str:
    """`text` (a path, a file name) as one inline Markdown code span: nothing in it is
    Markdown.

    A project path comes from a transcript's `cwd`, and a Linux folder name can hold a
    newline, a backtick or `#`: printed raw, `evil\\n\\n## Apply this now` forged a heading
    and an instruction in the digest Claude Code's model reads (/learn), and a newline
    then three backticks opened a fence that swallowed the rest. So hidden characters
    become spaces (`visible`), line breaks and whitespace runs one space (a code span
    cannot end a line), and the backtick fence is longer than any run of backticks
    inside (CommonMark: the span ends only at a run of the same length).
    """
    flat = " ".join(visible(text).split())  # `textfold.flatten`, a module beside this one
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each side when both are there, so a span that
    # starts or ends with a backtick is padded and still shows exactly `flat`.
    pad = " " if flat[:1] == "`" or flat[-1:] == "`" else ""
    return f"{fence}{pad}{flat or ' '}{pad}{fence}"


def inert_json(text: str) -> str:
    """JSON text (`json.dumps(..., ensure_ascii=False)`) with every hidden character
    (`hidden`) inside its strings written as a `\\uXXXX` escape: the same JSON value
    to any reader, nothing on a screen.

    `--json` keeps the data exact (a session's title, a quote, a path), so `visible`'s
    space would change it; but the output is read on a terminal too, and a U+202E in
    a quote showed the rest of its line reversed, a U+009B (CSI) moved the cursor.
    Outside its strings JSON text is ASCII, and the encoder escapes C0 controls and
    the quote itself, so a raw hidden character can only stand inside a string,
    where its escape means the same character."""
    if text.isascii():
        # The encoder escaped every C0 control, so DEL is the one hidden ASCII character
        # left; two C scans, where the general test below copied the text twice and read
        # each character, a first listing's JSON of 1,000 sessions (~1 MB) each time.
        return text if "\x7f" not in text else text.replace("\x7f", "\\u007f")
    plain = text.replace("\n", "").replace("\t", "")
    if plain.isprintable() and (plain.isascii() or not _INVISIBLE_RE.search(plain)):
        return text
    return "".join(_escaped(c) if hidden(c) else c for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # past the BMP: JSON spells it as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
