"""A secret caught once in a session is removed wherever else that session shows it.

`redact` is a function of one text: it finds a secret by its label or its shape
(`Authorization: Bearer …`, `aws_secret_access_key …`, a reply under `Password:`).
A privacy audit found the same values again, bare, a few items later in the same
session (tests/test_redact_session_values.py holds its cases): the tool error `token <the bearer>
rejected`, the AWS CLI echoing the secret it was given, the person typing their
password again in a sentence. Each went to the model whole, and into the index's
view and prompts, because nothing in that text named it a secret.

So a session is redacted in two passes: every text through `redact` (its memo,
`redactor`), noting the values each rule removed (`removed_values`: the redacted
text aligned on its markers against the original); then every redacted text again,
each noted value replaced by the marker of the rule that caught it. A text whose
redaction changed nothing is not aligned, and a session where no rule removed a
value worth carrying is not passed over again (`SessionValues.together`): its
output is the one-pass output, at the one-pass cost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final, TypeVar

from learn.lazy import lazy_pattern
from learn.redaction.redact import redactor
from learn.redaction.secret_values import MARKER_PREFIX, is_placeholder, marker

if TYPE_CHECKING:
    from learn.transcripts.models import TranscriptEvent
    from learn.transcripts.view.model import Session

__all__ = ["SessionValues", "carried", "removed_values"]

_T = TypeVar("_T")

_MARKER_RE: Final = lazy_pattern(r"\[REDACTED:([a-z0-9-]+)\]")

# The floor of a carried value. A rule's match is the rule's judgement in its
# context (`-p test` after mysql, a reply under `Password:`); the same characters
# elsewhere in the session have no such context, so a short or common value would
# wipe plain words: `sshpass -p test` would turn every "test" of a session into a
# marker, `Password:\nadmin` every "admin". Eight characters, or six with a digit or
# a symbol (`hunter2`, `pa$$wd`), is the length `MIN_PASSWORD_CHARS` (6) the
# password rules accept plus the margin a plain word needs: English words of six
# or seven letters are everyday prose, random tokens and chosen passwords of eight
# and more rarely are. Placeholders (`changeme`, `YOUR_API_KEY`) are never carried.
MIN_CARRIED_CHARS: Final = 8
MIN_CARRIED_MIXED_CHARS: Final = 6

_QUOTES: Final = "\"'`"


def _value(gap: str) -> str:
    # A rule may take a value with its quotes or a blank (`-p'pw'`); the value that
    # comes back bare is the one inside them.
    value = gap.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in _QUOTES:
        value = value[1:-1].strip()
    return value


def removed_values(original: str, redacted: str) -> list[tuple[str, str]]:
    """(value, kind) for each value a redaction of `original` removed, in order.

    The literal pieces between `redacted`'s markers are found in `original` in
    order; the gaps between them are the values. A piece is searched for from one
    character past the gap's start (a rule never removes nothing). Markers next to
    each other (nothing between them) are one gap, under the first one's kind. When
    a piece is not found (a rule rewrote text around its value) the values found
    before it are kept and the rest are not read: none is guessed."""
    if redacted is original or redacted == original:
        return []
    parts = _MARKER_RE.split(redacted)  # literal, kind, literal, kind, …, literal
    pieces, kinds = parts[0::2], parts[1::2]
    head, tail = pieces[0], pieces[-1]
    if not original.startswith(head) or len(head) + len(tail) > len(original):
        return []
    end_of_values = len(original) - len(tail)
    if not original.endswith(tail):
        return []
    found: list[tuple[str, str]] = []
    at = len(head)
    kind: str | None = None
    for i, this_kind in enumerate(kinds):
        kind = kind or this_kind
        piece = pieces[i + 1]
        if i == len(kinds) - 1:
            end = end_of_values
        elif not piece:
            continue  # the next marker follows at once: one gap
        else:
            end = original.find(piece, at + 1, end_of_values)
        if end <= at:
            return found
        found.append((original[at:end], kind))
        at, kind = end + len(piece), None
    return found


def carried(value: str, redacted: str) -> bool:
    """Whether a value a rule removed from a text (`redacted` is that text redacted)
    is removed from the session's other texts too (the floor above).

    A word of letters alone that the text still shows in clear is not carried: the
    rules judged its other place there not a secret (`postgres://postgres:postgres@`
    loses only the password; carrying `postgres` would take the scheme and the user
    of every URL and every `psql -U postgres` of the session). Nor are several words
    of letters alone: the passphrase rules guess them from their shape under a label,
    and a tool line's summary joins its lines, so `Password:` over `Permission denied`
    reads as a label and its passphrase there (tests/test_secrets_e2e.py's decoys);
    carried, six such decoys were taken out of every text of that session."""
    if MARKER_PREFIX in value or is_placeholder(value):
        return False
    words = value.split()
    if all(word.isalpha() for word in words):
        return len(words) == 1 and len(value) >= MIN_CARRIED_CHARS and value not in redacted
    return len(value) >= MIN_CARRIED_MIXED_CHARS


class SessionValues:
    """One session's redaction: each text through `redactor()` (`first`), and the
    values its rules removed anywhere in the session out of every text (`clean`)."""

    def __init__(self) -> None:
        self._redact = redactor()
        self._kinds: dict[str, str] = {}
        self._aligned: set[str] = set()
        self._finder: _ValueFinder | None = None

    @property
    def values(self) -> dict[str, str]:
        """Each carried value and the kind of the rule that first caught it."""
        return dict(self._kinds)

    def first(self, text: str) -> str:
        """`text` redacted on its own, its removed values noted for the session."""
        redacted = self._redact(text)
        if redacted is text or redacted == text or text in self._aligned:
            return redacted
        self._aligned.add(text)
        self.note(text, redacted)
        return redacted

    def note(self, original: str, redacted: str) -> None:
        """Note the values a redaction other than `redact` took out of `original`: the
        session view's, which replaces a password given in answer to the agent
        (learn.secret_answers) before any text reaches `first`."""
        for gap, kind in removed_values(original, redacted):
            value = _value(gap)
            if value not in self._kinds and carried(value, redacted):
                self._kinds[value] = kind
                self._finder = None

    def carry(self, redacted: str) -> str:
        """`redacted` (a text already through `first`) with every value noted so far
        replaced by its kind's marker: the longest first, each only as a whole (not
        where a letter or a digit runs on either side: `hunter2!x` is not taken out
        of `hunter2!xyz`), never inside a marker."""
        if not self._kinds:
            return redacted
        finder = self._finder
        if finder is None:
            finder = self._finder = _ValueFinder(self._kinds)
        return finder.replace(redacted)

    def clean(self, text: str) -> str:
        """`text` through both passes (`first`, then `carry`)."""
        return self.carry(self.first(text))

    def together(self, build: Callable[[Callable[[str], str]], _T]) -> _T:
        """What `build` makes of the session's texts, given the function that redacts
        each: built once with `first` (noting every value of every text), and when a
        value was noted, built again with `clean`, so a value caught late in the
        session is out of its earlier texts too. Nothing noted: the first build, as
        one pass made it before."""
        built = build(self.first)
        return built if not self._kinds else build(self.clean)


class _ValueFinder:
    """Every carried value in a text, found at once (Aho-Corasick, in Rust): one regular
    expression of them all tried each value at each character, and a session of 10,000
    caught values took 20 s to carry (3,000: 1.9 s, against 0.7 s to redact)."""

    def __init__(self, kinds: dict[str, str]) -> None:
        import ahocorasick_rs

        self._values = list(kinds)
        self._markers = [marker(kinds[v]) for v in self._values]
        self._find = ahocorasick_rs.AhoCorasick(
            self._values, matchkind=ahocorasick_rs.MatchKind.Standard).find_matches_as_indexes

    def replace(self, text: str) -> str:
        """`text` with each value replaced as a whole (no letter or digit run on either
        side), leftmost first and the longest where two start together, never inside a
        marker."""
        found = self._find(text, overlapping=True)
        if not found:
            return text
        taken = [(m.start(), m.end()) for m in _MARKER_RE.finditer(text)]
        out: list[str] = []
        at = 0
        for index, start, end in sorted(found, key=lambda f: (f[1], f[1] - f[2])):
            if start < at or not _whole(text, start, end) or any(
                    a < end and start < b for a, b in taken):
                continue
            out += (text[at:start], self._markers[index])
            at = end
        return "".join(out) + text[at:] if out else text


def _whole(text: str, start: int, end: int) -> bool:
    """No letter or digit runs on at either end of text[start:end] (`_` does not count)."""
    return not ((start > 0 and text[start - 1].isalnum())
                or (end < len(text) and text[end].isalnum()))


def note_answers(values: SessionValues, session: Session,
                 events: Sequence[TranscriptEvent]) -> None:
    """Note in `values` each password the session view replaced in a turn given in answer
    to the agent (learn.secret_answers): the view holds only its marker, and the typed
    text it came from is the turn's event's. Noted, a value typed again elsewhere in the
    session is out of that text too."""
    # Imported only for a session with a marker in a turn (the answer marker is one): a
    # `from … import` in a function runs on every call, ~8 k instructions in CPython 3.11,
    # and most sessions have none.
    marked = [turn for turn in session.human_turns if MARKER_PREFIX in turn.text]
    if not marked:
        return
    from learn.secret_answers import MARKER as ANSWER_MARKER
    from learn.transcripts.models import UserEvent

    for turn in marked:
        if ANSWER_MARKER in turn.text and 0 <= turn.event_index < len(events):
            event = events[turn.event_index]
            if isinstance(event, UserEvent) and event.text:
                values.note(event.text.strip(), turn.text)
