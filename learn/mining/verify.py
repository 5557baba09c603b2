"""Drop candidates whose evidence cannot be found in the session.

The miner is told to quote verbatim and the digest renders every quote inside
quotation marks, but on a real corpus a third of quotes appeared nowhere in the
session: paraphrases, merged sentences, lines lifted out of tool output. A quote
that cannot be located is evidence that cannot be shown, and a proposal the
reader cannot check is worse than one that was never made.

The opposite error costs as much: a model that keeps every word but retypes the
typography (curly quotes, an em dash for `--`, `…` for a cut, a capital first
letter) lost 0.3 of end-to-end recall when such quotes were dropped (issue 11).
So a quote is re-anchored: folded with `fold_typography`, located in one typed
turn, and replaced by the person's exact span of that turn. A quote whose
fragments are joined by an ellipsis is kept when every fragment is verbatim in
one turn, in order, and is stored as those fragments joined with " … ". A
changed, added or dropped word is still a paraphrase and is dropped.

Verification runs against the whole session, not the chunk a quote came from,
so a quote that straddles a chunk boundary still passes. Fix candidates carry
commands rather than speech, so they are checked against what actually ran: a
"fix" for a command the agent never executed is the model inventing history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from learn.mining.commands import command_key, command_ran
from learn.mining.cut_edges import balanced, negated
from learn.records.candidate import MinedCandidate
from learn.redaction.redact import redact
from learn.render.render import project_relative, user_turns
from learn.render.spoken import TURN_SEPARATOR, spoken_turns
from learn.textfold import (
    ELLIPSIS,
    QUOTE_MARK,
    Folded,
    fold,
    fold_typography,
    occurring,
)
from learn.textunits import is_unspaced, word_count
from learn.transcripts.view.model import Session

# Three characters verified almost anything ("no", "ok", "use"): a quote must
# carry at least this many words. The shortest real directive in the eval
# corpora is three words ("bump the version", "keep functions short"); a
# shorter turn typed on its own is the exception (see `_anchor`). Words are
# counted by `textunits.word_count`, so a Chinese or Japanese quote (no spaces)
# counts two characters a word instead of being one "word" however long.
MIN_QUOTE_WORDS: Final = 3
# Each fragment of an ellipsis quote must be a phrase on its own; a one-word
# fragment would be found in nearly any turn.
MIN_FRAGMENT_WORDS: Final = 2
# Joins the fragments of an ellipsis quote in what is kept.
FRAGMENT_JOIN: Final = " … "
# Sentence ends: Latin, CJK (。; the full-width ！？ fold to !? first), Arabic,
# Devanagari, Ethiopic, Armenian.
_SENTENCE_END: Final = ".!?。؟।॥።։"
# Sentence ends and clause marks a model adds to or drops from the end of a
# quote (the full-width ，；： fold to ,;: first; 、 is the CJK enumeration comma).
_TERMINAL: Final = _SENTENCE_END + ";:,、،؛፣"
# Spanish opens a question or exclamation with its mirror image; a model drops it.
_OPENERS: Final = "¡¿"
# What may sit around a quote without being part of it, after folding.
_EDGE: Final = f" {QUOTE_MARK}{ELLIPSIS}{_OPENERS}"

DropReason = Literal["paraphrase", "too_short", "fix_command"]
REASONS: Final[tuple[DropReason, ...]] = ("paraphrase", "too_short", "fix_command")


@dataclass(frozen=True, slots=True)
class VerifyResult:
    kept: tuple[MinedCandidate, ...]
    dropped_unquoted: int = 0  # directive/request whose words the user never typed
    dropped_fix_command: int = 0  # fix whose command never ran (or never failed) in the session
    dropped_short: int = 0  # a quote under MIN_QUOTE_WORDS words
    # What was dropped, redacted, for a run's trace ("why was this not proposed?").
    rejected: tuple[MinedCandidate, ...] = ()

    @property
    def dropped(self) -> int:
        return self.dropped_unquoted + self.dropped_fix_command + self.dropped_short

    def by_reason(self) -> dict[str, int]:
        """Drops per reason, every reason present (zeros included) for stable reports."""
        return {
            "paraphrase": self.dropped_unquoted,
            "too_short": self.dropped_short,
            "fix_command": self.dropped_fix_command,
        }


@dataclass(frozen=True, slots=True)
class _Turn:
    text: str  # as typed (redacted)
    folded: Folded


def _turns(spoken: Sequence[str] | str) -> tuple[_Turn, ...]:
    parts = spoken.split(TURN_SEPARATOR) if isinstance(spoken, str) else spoken
    return tuple(_Turn(t, fold_typography(t)) for t in parts if t)


def _trim(folded: str) -> tuple[str, bool]:
    """A folded quote without what surrounds it; and whether it ended a sentence."""
    ended = False
    previous = None
    while folded != previous:
        previous = folded
        folded = folded.strip(_EDGE)
        stripped = folded.rstrip(_TERMINAL)
        if stripped != folded:
            ended = ended or folded[len(stripped):][:1] in _SENTENCE_END
            folded = stripped
    return folded, ended


def _words(text: str) -> int:
    return word_count(text)


def _joined(left: str, right: str) -> bool:
    """Whether `left` then `right` run on inside one spaced-script word.

    Only a letter or digit on both sides joins, and only when neither is from
    a script written without spaces: "use bun" inside "reuse bundle" is not
    the quote, but 别用mock inside 你别用mock了 is (there is no boundary there
    to demand), and neither is a Latin word against a Han character.
    """
    if not (left.isalnum() and right.isalnum()):
        return False
    return not (is_unspaced(left) or is_unspaced(right))


def _sits(needle: str, hay: str, at: int) -> bool:
    """Whether `needle`, found at `at` in `hay`, sits there on word boundaries (where
    the script has them; see `_joined`) and not right after a negation (`negated`)."""
    before = hay[at - 1] if at > 0 else ""
    end = at + len(needle)
    after = hay[end] if end < len(hay) else ""
    return not (_joined(before, needle[0]) or _joined(needle[-1], after) or negated(hay, at))


def _find(needle: str, hay: str, start: int = 0) -> int | None:
    """The first index >= start where `needle` sits in `hay` (`_sits`)."""
    if not needle:
        return None
    at = hay.find(needle, start)
    while at != -1 and not _sits(needle, hay, at):
        at = hay.find(needle, at + 1)
    return None if at == -1 else at


def _span(turn: _Turn, start: int, end: int, *, ended: bool) -> str:
    """The typed characters behind folded [start, end), with the sentence end the
    quote also had when the person typed one there."""
    folded = turn.folded.text
    if ended:
        stop = end
        while stop < len(folded) and folded[stop] in _SENTENCE_END:
            stop += 1
        # "v1.2" is not a sentence end; "。" followed by the next sentence is
        # (Chinese and Japanese put no space after it).
        nxt = folded[stop] if stop < len(folded) else ""
        if stop > end and (not nxt.isalnum() or is_unspaced(nxt) or folded[stop - 1] not in ".!?"):
            end = stop
    if start > 0 and folded[start - 1] in _OPENERS:
        # ¡…! and ¿…? are a pair, like quotation marks: kept whole.
        start -= 1
        if end < len(folded) and folded[end] in "!?":
            end += 1
    lo, hi = turn.folded.span(start, end)
    return balanced(turn.text, lo, hi)


def _anchor_whole(core: str, ended: bool, turns: Sequence[_Turn]) -> str | None:
    for turn in turns:
        at = _find(core, turn.folded.text)
        if at is not None:
            return _span(turn, at, at + len(core), ended=ended)
    return None


def _whole_turn(core: str, ended: bool, turns: Sequence[_Turn]) -> str | None:
    whole = [turn for turn in turns if _trim(turn.folded.text)[0] == core]
    return _anchor_whole(core, ended, whole) if whole else None


def _anchor_fragments(core: str, ended: bool, turns: Sequence[_Turn]) -> str | None:
    """Fragments joined by ellipses, each verbatim and in order in ONE turn."""
    pieces = [_trim(p) for p in core.split(ELLIPSIS)]
    fragments = [(text, i == len(pieces) - 1 and ended) for i, (text, _) in enumerate(pieces) if text]
    if len(fragments) < 2 or any(_words(f) < MIN_FRAGMENT_WORDS for f, _ in fragments):
        return None
    for turn in turns:
        spans: list[str] = []
        pos = 0
        for fragment, last_ended in fragments:
            at = _find(fragment, turn.folded.text, pos)
            if at is None:
                break
            spans.append(_span(turn, at, at + len(fragment), ended=last_ended))
            pos = at + len(fragment)
        else:
            return FRAGMENT_JOIN.join(spans)
    return None


@dataclass(frozen=True, slots=True)
class Anchored:
    """Where a quote landed: the person's exact span, or why it has none."""

    text: str | None
    reason: DropReason | None = None


def anchor_quote(text: str, spoken: Sequence[str] | str) -> Anchored:
    """The person's exact span for `text` (typography forgiven), or why there is none.

    `spoken` is the session's typed turns (`spoken_turns`); a `spoken_text`
    string is split back into its turns.
    """
    return _anchor(text, _turns(spoken))


def _anchor(text: str, turns: Sequence[_Turn]) -> Anchored:
    core, ended = _trim(fold_typography(redact(text)).text)
    if _words(core) < MIN_QUOTE_WORDS:
        # A two-word turn typed on its own ("use bun", "no emojis") is a whole
        # directive, not a fragment that would match anywhere: kept when it is
        # the entire turn.
        whole = _whole_turn(core, ended, turns) if _words(core) >= MIN_FRAGMENT_WORDS else None
        return Anchored(whole) if whole is not None else Anchored(None, "too_short")
    found = _anchor_whole(core, ended, turns)
    if found is None and ELLIPSIS in core:
        found = _anchor_fragments(core, ended, turns)
    return Anchored(found) if found is not None else Anchored(None, "paraphrase")


def quote_found(text: str, spoken: Sequence[str] | str) -> bool:
    """True when `text` re-anchors on what the person typed (see `anchor_quote`)."""
    return anchor_quote(text, spoken).text is not None


def _command_strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Sequence):
        parts = [v for v in value if isinstance(v, str)]
        if parts:
            yield " ".join(parts)
            # Codex runs ["bash", "-lc", "<script>"]: the script is the command.
            yield parts[-1]


def session_commands(session: Session, *, failed: bool = False) -> list[str]:
    """The commands that ran, redacted and in `command_key` form: every tool call's summary
    and command input, also with paths under the project written relative to it (as
    the render showed them to the model). `failed`: only the calls that failed."""
    seen: dict[str, None] = {}
    failures = {f.tool_use_id for f in session.failures} if failed else set()
    for call in session.tool_calls:
        if failed and call.id not in failures:
            continue
        raw: list[str] = [call.summary]
        inp: Mapping[str, Any] = call.input if isinstance(call.input, Mapping) else {}
        for key in ("command", "cmd"):
            raw.extend(_command_strings(inp.get(key)))
        for text in raw:
            clean = redact(text)
            for form in (clean, project_relative(clean, session)):
                norm = command_key(form)
                if norm:
                    seen.setdefault(norm, None)
    return list(seen)


def _scrub(c: MinedCandidate) -> MinedCandidate:
    # Defence in depth: whatever the model wrote goes to the cache and the
    # store, so it is redacted like everything else that is kept.
    return replace(
        c,
        text=redact(c.text),
        rationale=redact(c.rationale) if c.rationale else c.rationale,
        command=redact(c.command) if c.command else c.command,
        error_excerpt=redact(c.error_excerpt) if c.error_excerpt else c.error_excerpt,
        intervening_commands=tuple(redact(s) for s in c.intervening_commands),
        edited_files=tuple(redact(s) for s in c.edited_files),
    )


def verify_candidates(
    candidates: Iterable[MinedCandidate], spoken: Sequence[str] | str, *, commands: Sequence[str],
    failed: Sequence[str] | None = None,
) -> VerifyResult:
    """Keep quotes re-anchored on `spoken` (`spoken_turns`) and fixes whose command ran
    and, given `failed` (`session_commands(..., failed=True)`), failed: a fix's command is
    the failing one (the mining contract), and a command that only ever passed, or was
    refused before it ran, fixed nothing (an audit found such "fixes" shared with a team)."""
    kept: dict[tuple[str, str], MinedCandidate] = {}
    rejected: list[MinedCandidate] = []
    unquoted = bad_fix = short = 0
    turns = _turns(spoken)
    for c in candidates:
        if c.kind == "fix":
            if not (c.command and command_ran(c.command, commands)
                    and (failed is None or command_ran(c.command, failed))):
                bad_fix += 1
                rejected.append(_scrub(c))
                continue
        else:
            where = _anchor(c.text, turns)
            if where.text is None:
                if where.reason == "too_short":
                    short += 1
                else:
                    unquoted += 1
                rejected.append(_scrub(c))
                continue
            # The person's characters, never the model's retyping of them.
            c = replace(c, text=where.text)
        # The same quote reported twice in one session is one occurrence.
        key = (c.kind, command_key(c.command or "") if c.kind == "fix" else fold(c.text))
        kept.setdefault(key, _scrub(c))
    return VerifyResult(tuple(kept.values()), unquoted, bad_fix, short, tuple(rejected))


def still_typed(candidates: Sequence[MinedCandidate], session: Session,
                fingerprints: Sequence[str] = ()) -> tuple[tuple[MinedCandidate, ...],
                                                           tuple[MinedCandidate, ...]]:
    """(kept, gone): a cached answer's candidates against the session as it reads now.

    A quote was verified on the typed turns of the view it was mined from, and the
    cache is keyed by the file's bytes and learn's versions: not by what a later
    session made machinery. Found on real Codex sessions: a bot's comment pasted
    into one session was that session's words until a second session pasted it too,
    and the 400+ shared characters became a template cut from both views; the first
    session's cached quote of it still counted, the second's was dropped as not
    typed. So a quote the view no longer has the person type is dropped here, as
    verification would drop it mined today ("paraphrase": found in no typed turn).

    Kept candidates are returned as they were, byte for byte. A fix is kept: it
    quotes a command that ran, and no later session makes a command not have run.
    Cheap first, since it runs on every cached session a run reads (a run with
    nothing new reads none: learn.pipeline.warm): the quotes in one pass over the
    folded turns (`_cut_in`), 0.026 s CPU for the 942 cached quotes of
    benchmarks/homes.py's 250-session home, about 1% of that run, when that pass
    was a bare substring search. Only a quote the pass does not find as
    verification cuts one (holding a redaction placeholder, fragments joined by an
    ellipsis, only inside other words or after a negation, under MIN_QUOTE_WORDS
    words) is re-anchored on the redacted turns, as when it was mined.
    """
    quotes = [c for c in candidates if c.kind != "fix"]
    if not quotes:
        return tuple(candidates), ()
    turns = user_turns(session, fingerprints)
    found = _cut_in([fold(c.text) for c in quotes], [fold(t.text) for t in turns])
    missed = [c for c, hit in zip(quotes, found, strict=True) if not hit]
    if not missed:
        return tuple(candidates), ()
    spoken = _turns(spoken_turns(session, fingerprints))
    gone = [c for c in missed if _anchor(c.text, spoken).text is None]
    if not gone:
        return tuple(candidates), ()
    ids = {id(c) for c in gone}
    return tuple(c for c in candidates if id(c) not in ids), tuple(gone)


def _cut_in(needles: Sequence[str], turns: Sequence[str]) -> list[bool]:
    """For each folded quote, whether the folded `turns` still hold it as verification
    cuts one: of MIN_QUOTE_WORDS words or more (a shorter one stood only as a whole
    turn, which `_anchor` decides) and sitting on word boundaries (`_sits`).

    A substring search (`textfold.occurring` alone) kept a cached "use bun", cut from
    the view since, for the "use bundler" of another turn. Here every place a quote
    occurs is found in the same one pass and tested there (`occurring`'s `where`). Measured
    on synthetic cached quotes (verified, so all kept): 942 over 250 sessions of 24
    turns took 0.042 s CPU with the substring search and 0.052 s with this, most of
    the difference the word count; 289 on one session of 1,500 turns 0.015 s and
    0.017 s. `_find` for each found quote read the whole text again per quote, quotes
    times turns: 0.058 s for those 289.
    """
    long = [n if _words(n) >= MIN_QUOTE_WORDS else "" for n in needles]
    found = occurring([n for n in long if n], turns, where=_sits)
    said = iter(found)
    return [bool(n) and next(said) for n in long]
