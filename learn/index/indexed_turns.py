"""A session's human turns in the session index: what the cross-session judgement reads.

Who started a session and which prompts are templates are judged across the
sessions in scope (`scripted.machinery`: repeated prompts, skeletons learned
from the turns' shapes, quotes of what was typed elsewhere, the origin). That
reads each session's human turns, its id, project, start time and client,
and nothing else of it. Decoding every stored view for them was most of a
warm `learn sessions` (issue 21), and `learn show` read the heads of up to
300 other sessions and built a view of each.

So the index keeps, beside each file's summary, its human turns as the view
has them (`encode_turns_and_keys`), redacted like the stored view (`redaction.redact`:
the index is on disk; no raw record, no pickle, issue 20), and
`turns_view` rebuilds from them and the summary a view that holds only
those turns. `machinery` over these views judges exactly as over the full
ones: every input it reads is there, the same text the stored view holds.

Beside them it keeps the turns without their texts, each with its text's keys,
and the session's keys as sets (`templates.entries`):
`light_entry` gives the judgement those, and it builds a view of the turns and
reads their texts (`turn_texts`) only where the sets cannot answer. A home of 1,000 sessions holds ~160 MB of turn text
when a memory plugin's sessions are among them; their keys are a few MB.

The index makes both in one pass (`encode_turns_and_keys`): each turn's text and
command redacted once and its time formatted once for the two, the same bytes as
two passes apart (tests/test_turn_keys.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import msgspec

# At the top, not in each function: a `from … import` inside a function ran on every
# call, ~8 k instructions each in CPython 3.11 (the import looks `__path__` up on the
# module and formats, then clears, an AttributeError), twice for every session a first
# listing stores and judges. Whoever imports this module reads or judges turns and
# imports `entries` anyway.
from learn.transcripts.templates.entries import Entry, decode_entry, decode_turns, encode_cleaned
from learn.transcripts.view.model import HumanTurn, Session

if TYPE_CHECKING:
    from learn.transcripts.templates.keys import Keys

# text, origin, at, event_index, uuid, command, on_branch, filled
_Row = tuple[str, str, str | None, int, str | None, str | None, bool, bool]
_decoder: Final = msgspec.json.Decoder(list[_Row])


def encode_turns_and_keys(session: Session, clean: Callable[[str], str]) -> tuple[str, bytes]:
    """`session`'s human turns as JSON, every text and command through `clean` (the
    index passes `redact`); and the turns without their texts, each with the keys of
    its text as stored, and the session's keys as sets (`templates.entries`: what
    judging sessions together compares). One pass: each text and command through
    `clean`, and each time through `isoformat`, once for both."""
    turns = session.human_turns
    texts = [clean(t.text) for t in turns]
    commands = [clean(t.command) if t.command is not None else None for t in turns]
    ats = [isoformat(t.at) if t.at is not None else None for t in turns]
    rows = msgspec.json.encode([
        (text, t.origin, at, t.event_index, t.uuid, command, t.on_branch, t.filled)
        for t, text, command, at in zip(turns, texts, commands, ats, strict=True)
    ]).decode()
    return rows, encode_cleaned(turns, texts, commands, ats)


# "00" to "99", for `isoformat`.
_TWO_DIGITS: Final = tuple(f"{n:02d}" for n in range(100))


def isoformat(at: datetime) -> str:
    """`at.isoformat()`, written out for a UTC time of a four-digit year (every turn's
    time as the clients write it). `datetime.isoformat` formats each field through C's
    sprintf: 11.8 k instructions a call against 7.6 k here (callgrind; 0.84 against
    0.65 us, timeit), once for every turn the index stores. Any other time is
    `isoformat`'s own (tests/test_turn_keys.py compares the two)."""
    if at.tzinfo is not UTC or at.year < 1000:
        return at.isoformat()
    two = _TWO_DIGITS
    us = at.microsecond
    day = f"{at.year}-{two[at.month]}-{two[at.day]}T{two[at.hour]}:{two[at.minute]}:{two[at.second]}"
    # The microseconds' six digits: 1,000,000 more, less its leading 1.
    return f"{day}.{str(1_000_000 + us)[1:]}+00:00" if us else f"{day}+00:00"


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def turns_view(summary: Mapping[str, Any], turns: str, path: Path | None) -> Session:
    """A view holding only the stored human turns (and the summary's id, project,
    dates and client): enough for `scripted.machinery`, nothing else is in it."""
    human = tuple(HumanTurn(text, origin, _dt(at), index, uuid, command, on_branch, filled)  # type: ignore[arg-type]
                  for text, origin, at, index, uuid, command, on_branch, filled
                  in _decoder.decode(turns))
    return _view(summary, human, path)


def turn_texts(turns: str) -> list[str]:
    """The texts of stored turns (`encode_turns_and_keys`), in order."""
    return [row[0] for row in _decoder.decode(turns)]


def light_entry(summary: Mapping[str, Any], blob: bytes | None, path: Path | None,
                read_texts: Callable[[], list[str]], keys: Keys) -> Entry | None:
    """The entry the judgement reads of a stored session (`templates.entries`): its keys
    as sets, and a view of its turns with empty texts and their stored keys in `keys`,
    built if the judgement asks for it, whose texts `read_texts` gives (all of them,
    in order) if it needs them. None when no keys of this version are stored."""
    got = decode_entry(blob)
    if got is None:
        return None
    sets, opening, packed, pairs = got
    # The view without its turns, made once: the pass asks each entry's last activity
    # of it (`corpus._Corpus._own_turns`), and the view with its turns is it with them
    # (a Struct's replace, in C: building a Session from the summary twice an entry
    # was 2,000 of them for 1,000 sessions; with the one-pass `keys_as_sets` and the
    # sets decoded as sets, 0.993x the instructions of the spread home's first listing).
    made: list[Session] = []

    def bare() -> Session:
        if not made:
            made.append(_view(summary, (), path))
        return made[0]

    def make() -> Session:
        stored = decode_turns(packed)
        human = tuple(HumanTurn("", t.origin, _dt(t.at), t.event_index, t.uuid, t.command,  # type: ignore[arg-type]
                                t.on_branch, t.filled) for t in stored)
        keys.light(human, [t.keys for t in stored], read_texts)
        return msgspec.structs.replace(bare(), human_turns=human,
                                       timeline=tuple(t for t in human if t.on_branch))

    return Entry(summary["id"], summary["project"], summary.get("entrypoint"),
                 _dt(summary["started_at"]), sets, opening, make=make,
                 signals=tuple(summary.get("signals", ())), bare=bare, pairs=pairs)


def _view(summary: Mapping[str, Any], human: tuple[HumanTurn, ...], path: Path | None) -> Session:
    return Session(
        id=summary["id"], provider=summary["provider"], path=path, project=summary["project"],
        started_at=_dt(summary["started_at"]), last_activity=_dt(summary["last_activity"]),
        timeline=tuple(t for t in human if t.on_branch), human_turns=human, tool_calls=(),
        failures=(), denials=(), interrupts=(), turns=summary["turns"],
        entrypoint=summary.get("entrypoint"), signals=tuple(summary.get("signals", ())),
    )
