"""Drop candidates whose evidence cannot be found in the session.

The miner is told to quote verbatim and the digest renders every quote inside
quotation marks, but on a real corpus a third of quotes appeared nowhere in the
session: paraphrases, merged sentences, lines lifted out of tool output. A quote
that cannot be located is evidence that cannot be shown, and a proposal the
reader cannot check is worse than one that was never made.

Verification runs against the whole session, not the chunk a quote came from,
so a quote that straddles a chunk boundary still passes. Fix candidates carry
commands rather than speech, so they are checked against what actually ran: a
"fix" for a command the agent never executed is the model inventing history.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from learn.mining.candidate import MinedCandidate
from learn.render.redact import redact
from learn.textfold import fold
from learn.transcripts.view import Session

# A "quote" this short is a substring of almost anything ("ok", "no").
MIN_QUOTE_CHARS: Final = 3
# Marks models put around or after a quote that are not part of it.
_QUOTE_MARKS: Final = "\"'“”‘’`"
_ELLIPSES: Final = ("…", "...")


@dataclass(frozen=True, slots=True)
class VerifyResult:
    kept: tuple[MinedCandidate, ...]
    dropped_unquoted: int = 0  # directive/request whose quote the user never typed
    dropped_fix_command: int = 0  # fix whose command never ran in the session
    # What was dropped, redacted, for a run's trace ("why was this not proposed?").
    rejected: tuple[MinedCandidate, ...] = ()

    @property
    def dropped(self) -> int:
        return self.dropped_unquoted + self.dropped_fix_command


def _trim(text: str) -> str:
    previous = None
    while text != previous:
        previous = text
        text = text.strip().strip(_QUOTE_MARKS)
        for mark in _ELLIPSES:
            text = text.removeprefix(mark).removesuffix(mark)
    return text.strip()


def _located(text: str, spoken: str) -> str | None:
    """The quote as it should be kept (marks trimmed when only that form is found), or None."""
    if not spoken:
        return None
    whole = fold(redact(text))
    if len(whole) >= MIN_QUOTE_CHARS and whole in spoken:
        return text
    trimmed = fold(redact(_trim(text)))
    if len(trimmed) >= MIN_QUOTE_CHARS and trimmed in spoken:
        return _trim(text)
    return None


def quote_found(text: str, spoken: str) -> bool:
    """True when `text`, normalized, is a substring of the normalized spoken text."""
    return _located(text, spoken) is not None


def _command_strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Sequence):
        parts = [v for v in value if isinstance(v, str)]
        if parts:
            yield " ".join(parts)
            # Codex runs ["bash", "-lc", "<script>"]: the script is the command.
            yield parts[-1]


def session_commands(session: Session) -> list[str]:
    """Normalized, redacted commands that ran: every tool call's summary and command input."""
    seen: dict[str, None] = {}
    for call in session.tool_calls:
        raw: list[str] = [call.summary]
        inp: Mapping[str, Any] = call.input if isinstance(call.input, Mapping) else {}
        for key in ("command", "cmd"):
            raw.extend(_command_strings(inp.get(key)))
        for text in raw:
            norm = fold(redact(text))
            if norm:
                seen.setdefault(norm, None)
    return list(seen)


def command_ran(command: str, commands: Sequence[str]) -> bool:
    """True when `command` (normalized) is, or is part of, a command that ran.

    Part of, because the model sees summaries cut at 200 chars and tends to
    quote the meaningful tail (`pytest -q`) of `cd app && pytest -q`.
    """
    cand = fold(redact(_trim(command)))
    if len(cand) < MIN_QUOTE_CHARS:
        return False
    return any(cand == ran or cand in ran for ran in commands)


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
    candidates: Iterable[MinedCandidate], spoken: str, *, commands: Sequence[str]
) -> VerifyResult:
    """Keep quotes found in `spoken` (from `spoken_text`) and fixes whose command ran."""
    kept: dict[tuple[str, str], MinedCandidate] = {}
    rejected: list[MinedCandidate] = []
    unquoted = bad_fix = 0
    for c in candidates:
        if c.kind == "fix":
            if not (c.command and command_ran(c.command, commands)):
                bad_fix += 1
                rejected.append(_scrub(c))
                continue
        else:
            quote = _located(c.text, spoken)
            if quote is None:
                unquoted += 1
                rejected.append(_scrub(c))
                continue
            c = replace(c, text=quote)
        # The same quote reported twice in one session is one occurrence.
        key = (c.kind, fold(c.command or "") if c.kind == "fix" else fold(c.text))
        kept.setdefault(key, _scrub(c))
    return VerifyResult(tuple(kept.values()), unquoted, bad_fix, tuple(rejected))
