"""Recognise slash-command bodies replayed into the user slot.

A `user`-type slash command (and, in some builds, a skill) is persisted as an
ordinary user message holding the whole template body, with nothing to mark it
as machinery. Read back off disk it is indistinguishable from something the
user typed, and it is the most repeated text in a real corpus: running `/pr`
thirty times writes the same two thousand characters thirty times. Mining it
yields directives the user never stated, at counts that look exactly like
organic repetition.

Detection is retroactive on purpose: matching against the command bodies still
on disk cleans the history that already exists, which a provenance flag written
at turn time never could. The gap is a template deleted since; the quote check
downstream is the backstop there.

A fingerprint is a literal run of a template: the text between two placeholders,
normalized. Every run of at least REPLAY_FINGERPRINT_CHARS is kept, not just the
longest, because a template whose longest run sits next to a `!`cmd`` line or an
argument the user rewrote would otherwise never match.

Where the templates are read from (user, project and plugin commands and
skills) is `replay_files`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Final

from learn.lazy import lazy_pattern
from learn.textfold import fold, fold_with_offsets

# Shorter runs are phrases a person types too ("please review the following"),
# so matching them would eat real turns; 40 is where hoocode measured the
# trade-off and where the seed puts it.
REPLAY_FINGERPRINT_CHARS: Final = 40

# Every form of placeholder the harnesses substitute before the body reaches the
# transcript. Whatever stands in their place is unknown text, so runs end there.
_PLACEHOLDER_RE: Final = lazy_pattern(
    r"""
      \$ARGUMENTS(?:\[\d+\])?          # $ARGUMENTS, $ARGUMENTS[0]
    | \$\{@(?::\d+(?::\d+)?)?\}        # ${@}, ${@:2}, ${@:2:3} (hoocode substituteArgs)
    | \$\{[A-Za-z_][A-Za-z0-9_]*\}     # ${CLAUDE_SESSION_ID}, ${CLAUDE_PLUGIN_ROOT}, ...
    | \$[0-9]+                         # $1, $0 (both numbering schemes have existed)
    | \$[@*]                           # $@, $*
    | \$[A-Z][A-Z0-9_]*               # $FILE, $TICKET: Codex custom prompts' named arguments
    | !`[^`\n]*`                       # !`cmd`: its output is inlined before persisting
    """,
    re.VERBOSE,
)

# YAML frontmatter is read by the harness and never persisted with the body, so
# a fingerprint that includes it could never match.
_FRONTMATTER_RE: Final = lazy_pattern(r"\A\ufeff?---[ \t]*\r?\n.*?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)

_PARAGRAPH_RE: Final = lazy_pattern(r"\n[ \t]*\n")


def strip_frontmatter(text: str) -> str:
    return _FRONTMATTER_RE.sub("", text, count=1)


class Fingerprints(list[str]):
    """Fingerprints, plus the shorter literal pieces of the same templates (`scaffold`).

    A fingerprint says a turn replays a template; the scaffold ("## User Input",
    "```text") is what is left of the template around an argument once the
    fingerprints are cut out, and is trimmed so only the argument remains.
    """

    scaffold: tuple[str, ...] = ()


def _pieces(template: str) -> Iterator[str]:
    """The folded literal pieces of a template: split at placeholders and at blank lines.

    Blank lines split too because a template edited since a run (one word in one
    paragraph) must still match on every other paragraph, and because a plan
    the person amended is matched paragraph by paragraph.
    """
    for run in _PLACEHOLDER_RE.split(strip_frontmatter(template)):
        for paragraph in _PARAGRAPH_RE.split(run):
            piece = fold(paragraph)
            if piece:
                yield piece


def replay_fingerprints(templates: Iterable[str]) -> Fingerprints:
    """Every folded literal piece of at least 40 chars across `templates`.

    Order follows the templates; duplicates are dropped.
    """
    seen: set[str] = set()
    out = Fingerprints()
    scaffold: dict[str, None] = {}
    for template in templates:
        for piece in _pieces(template):
            if len(piece) < REPLAY_FINGERPRINT_CHARS:
                scaffold[piece] = None
            elif piece not in seen:
                seen.add(piece)
                out.append(piece)
    # Longest first, so "## user input ```text" is trimmed before "##".
    out.scaffold = tuple(sorted(scaffold, key=len, reverse=True))
    return out


def is_replayed_turn(text: str, fingerprints: Iterable[str]) -> bool:
    """True when a user turn is a slash-command body rather than something typed."""
    return FingerprintIndex(tuple(fingerprints)).replays(fold(text))


def unreplayed_parts(text: str, fingerprints: Sequence[str]) -> list[str]:
    """The parts of `text` no template covers, in the person's own spelling.

    A replayed template with its arguments filled in (a Codex custom prompt, a
    command body, a plan pasted back) minus every fingerprint occurrence and
    the template scaffold at the edges of what is left: the arguments and
    whatever the person wrote around the template. Empty when nothing is left.
    """
    return FingerprintIndex(fingerprints).unreplayed_parts(text)


class FingerprintIndex:
    """`fingerprints` made ready to test many turns (`is_replayed_turn`,
    `unreplayed_parts`): the anchor index and the scaffold looked up once, not
    once a turn (a corpus pass asks for every turn of every session)."""

    __slots__ = ("_index", "_short", "scaffold")

    def __init__(self, fingerprints: Sequence[str]) -> None:
        self._index, self._short = _anchor_index(tuple(fingerprints))
        self.scaffold: Sequence[str] = getattr(fingerprints, "scaffold", ())

    def replays(self, folded: str) -> bool:
        """`is_replayed_turn` of a turn whose folded text (`fold`) is `folded`."""
        if len(folded) < REPLAY_FINGERPRINT_CHARS:
            return False
        index = self._index
        if any(fp in folded for fp in self._short):
            return True
        # Every fingerprint occurrence covers a turn position that is a multiple of
        # _STEP, and the 16 chars there are one of that fingerprint's indexed anchors.
        for start in range(0, len(folded) - _ANCHOR + 1, _STEP):
            candidates = index.get(folded[start : start + _ANCHOR])
            if candidates and any(fp in folded for fp in candidates):
                return True
        return False

    def _present(self, folded: str) -> list[str]:
        """The fingerprints that occur in `folded` (found through the anchor index)."""
        index = self._index
        found: dict[str, None] = {fp: None for fp in self._short if fp in folded}
        for start in range(0, len(folded) - _ANCHOR + 1, _STEP):
            for fp in index.get(folded[start : start + _ANCHOR], ()):
                if fp not in found and fp in folded:
                    found[fp] = None
        return list(found)

    def unreplayed_parts(self, text: str) -> list[str]:
        """`unreplayed_parts(text, the fingerprints)`."""
        folded, offsets = fold_with_offsets(text)
        covered = bytearray(len(folded))
        for fp in self._present(folded):
            at = folded.find(fp)
            while at >= 0:
                covered[at : at + len(fp)] = b"\x01" * len(fp)
                at = folded.find(fp, at + 1)
        scaffold = self.scaffold
        # Template pieces between two arguments ("against the base branch") sit
        # inside what is left; long enough ones are cut there too, shorter ones
        # ("and", "-") only at the edges, where they cannot split an argument.
        for piece in scaffold:
            if len(piece) < _INNER_SCAFFOLD_CHARS:
                break  # sorted longest first
            at = folded.find(piece)
            while at >= 0:
                end = at + len(piece)
                if not any(covered[at:end]) and _edge(folded, at - 1, -1) and _edge(folded, end, len(folded)):
                    covered[at:end] = b"\x01" * len(piece)
                at = folded.find(piece, at + 1)
        parts: list[str] = []
        i = 0
        n = len(folded)
        while i < n:
            # The next uncovered stretch [i, j), found in C (bytearray.find), not char by char.
            i = covered.find(0, i)
            if i < 0:
                break
            j = covered.find(1, i)
            j = n if j < 0 else j
            a, b = _trim_scaffold(folded, i, j, scaffold)
            if a < b:
                piece = text[offsets[a] : offsets[b - 1] + 1].strip()
                if piece:
                    parts.append(piece)
            i = j
        return parts


_INNER_SCAFFOLD_CHARS: Final = 12


def _trim_scaffold(folded: str, a: int, b: int, scaffold: Sequence[str]) -> tuple[int, int]:
    """Shrink [a, b) past template pieces (and the spaces around them) at either end."""
    changed = True
    while changed and a < b:
        changed = False
        while a < b and folded[a] == " ":
            a += 1
        while b > a and folded[b - 1] == " ":
            b -= 1
        for piece in scaffold:
            n = len(piece)
            if n <= b - a and folded.startswith(piece, a) and _edge(folded, a + n, b):
                a += n
                changed = True
                break
            if n <= b - a and folded.endswith(piece, a, b) and _edge(folded, b - n - 1, a - 1):
                b -= n
                changed = True
                break
    return a, b


def _edge(folded: str, at: int, end: int) -> bool:
    """A scaffold piece ends on a word boundary: `at` is the gap's end or a space."""
    return at == end or not (0 <= at < len(folded)) or folded[at] == " "


# Checking every fingerprint against every turn cost ~100 us a turn with 300
# fingerprints (most users with plugins have more); sampling the turn every
# _STEP chars against an anchor index costs a few dict lookups per 100 chars.
_ANCHOR: Final = 16
_STEP: Final = REPLAY_FINGERPRINT_CHARS - _ANCHOR + 1


@functools.lru_cache(maxsize=16)
def _anchor_index(
    fingerprints: tuple[str, ...],
) -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    index: dict[str, dict[str, None]] = {}
    short: list[str] = []
    for fp in fingerprints:
        if not fp:
            continue
        if len(fp) < _ANCHOR + _STEP - 1:
            short.append(fp)  # only from callers not using replay_fingerprints
            continue
        for offset in range(_STEP):
            index.setdefault(fp[offset : offset + _ANCHOR], {})[fp] = None
    return {k: tuple(v) for k, v in index.items()}, tuple(short)
