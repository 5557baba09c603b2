"""What happened around a quote: the context window the judge reads.

"no, use the other one" is a durable rule or a one-off depending on what the
agent had just done, and "leave it" reads differently when the agent then
stopped. The judge is therefore shown, for a proposal's representative quote,
the seed's `capture_window` around the turn that holds it: the agent turn just
before (the trigger: its text and tool calls) and the turn that came after.

A quote is often a fragment of what the person typed ("use bun" out of "use bun
only for this one script"), and the rest of the message can limit or reverse
it. When the message holds more than the quote, the line opens with it in full
(`said in full: "…"`), shortened around the quote to FULL_TURN_CHARS.

The transcript is re-read per session only when a shown proposal quotes it,
and the line is redacted like every other text sent to a model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from learn.models.items import flatten
from learn.textfold import fold, fold_with_offsets

if TYPE_CHECKING:
    from learn.detect.context import ContextWindow, Turn, TurnRef
    from learn.transcripts.models import TranscriptEvent

# (session id, quote text) -> one line of context, or None when it cannot be had.
QuoteContext = Callable[[str, str], "str | None"]

BEFORE_TURNS = 1
AFTER_TURNS = 1
PREVIEW_CHARS = 160
MAX_DIGESTS = 3
WINDOW_CHARS = 400  # what the agent did before and the turn after
FULL_TURN_CHARS = 300  # the person's turn, around the quote
# The whole line: the person's turn in full, then the window. It grew from 400
# (the window alone) when the turn was added, by the turn's share and its
# wrapping: the turn must not crowd out what the agent did, which decides a
# reaction to one moment as much as the turn does. Each part is bounded on its
# own; this bound only catches what redaction adds.
LINE_CHARS = WINDOW_CHARS + FULL_TURN_CHARS + 60


def _turn_text(turn: TurnRef) -> str:
    digests = "; ".join(turn.tool_digests[:MAX_DIGESTS])
    preview = turn.preview
    for prefix in (f"{turn.role}:", "assistant:", "user:"):
        if preview.startswith(prefix):
            preview = preview[len(prefix):]
            break
    text = flatten(preview, PREVIEW_CHARS)
    if digests:
        return f"{text} [{digests}]" if text else f"[{digests}]"
    return text


def window_line(window: ContextWindow) -> str:
    """"agent before: …; after (user|agent): …" for one window ('' when it has neither)."""
    parts = []
    before = _turn_text(window.trigger) if window.trigger is not None else ""
    if before:
        parts.append(f"agent before: {before}")
    if window.after:
        nxt = window.after[0]
        after = _turn_text(nxt)
        if after:
            who = "agent" if nxt.role == "assistant" else "user"
            parts.append(f"{who} after: {after}")
    return flatten("; ".join(parts), WINDOW_CHARS)


def _fragments(quote: str) -> list[str]:
    return [f for f in (fold(x) for x in quote.replace("...", "…").split("…")) if f]


def _anchor_turn(events: Sequence[TranscriptEvent], turns: Sequence[Turn],
                 quote: str) -> tuple[int, str] | None:
    """(first event, what the person said) of the first user turn holding every
    fragment of `quote`. What they said is the one message of the turn that holds
    them all, else the whole turn: messages sent one after another with no agent
    turn between are one turn, and the next message ("run it once and then
    forget it", about something else) is not part of the quote's sentence."""
    from learn.detect.context import turn_ref
    from learn.transcripts.models import UserEvent

    parts = _fragments(quote)
    if not parts:
        return None
    for turn in turns:
        if turn.role != "user":
            continue
        if not all(p in fold(turn_ref(events, turn, 100_000).preview) for p in parts):
            continue
        # As typed, line breaks kept: redaction reads them (a key block spans lines).
        said = [e.text for e in (events[i] for i in turn.indices) if isinstance(e, UserEvent)]
        one = next((t for t in said if all(p in fold(t) for p in parts)), None)
        return turn.indices[0], one if one is not None else "\n".join(said)
    return None


def find_anchor(events: Sequence[TranscriptEvent], turns: Sequence[Turn], quote: str) -> int | None:
    """The first event of the first user turn holding every fragment of `quote`, or None."""
    found = _anchor_turn(events, turns, quote)
    return found[0] if found is not None else None


def is_whole_turn(turn: str, quote: str) -> bool:
    """Whether the turn says nothing but `quote` (folded; punctuation and spacing
    around its fragments aside): then the turn in full would repeat the quote."""
    rest = fold(turn)
    for part in _fragments(quote):
        rest = rest.replace(part, " ", 1)
    return not any(ch.isalnum() for ch in rest)


def around(text: str, quote: str, limit: int = FULL_TURN_CHARS) -> str:
    """`text` (one line) shortened to about `limit` characters around the first
    fragment of `quote`, kept inside, "…" where cut, and cut between words where
    it can. A quote not found in `text` (redaction changed it) keeps the start."""
    text = flatten(text)
    if len(text) <= limit:
        return text
    parts = _fragments(quote)
    folded, offsets = fold_with_offsets(text)
    at = folded.find(parts[0]) if parts else -1
    if at < 0:
        start = end = 0
    else:
        start, end = offsets[at], offsets[at + len(parts[0]) - 1] + 1
    if end - start >= limit:
        a, b = start, start + limit
    else:
        room = limit - (end - start)
        a = max(0, start - room // 2)
        b = min(len(text), end + room - (start - a))
        a = max(0, b - limit)  # room the end could not use goes before the quote
        if 0 < a < start and not text[a - 1].isspace():
            space = text.find(" ", a, start)
            a = space + 1 if space >= 0 else a
        if end < b < len(text) and not text[b].isspace():
            space = text.rfind(" ", end, b)
            b = space if space >= 0 else b
    return ("…" if a > 0 else "") + text[a:b].strip() + ("…" if b < len(text) else "")


def _relative(line: str, project: str | None) -> str:
    """Paths shown relative to the project, else to ~: shorter for the model, and
    the same line wherever the checkout lives (recorded answers key on it)."""
    if project:
        line = line.replace(project.rstrip("/") + "/", "")
    home = str(Path.home())
    return line.replace(home + "/", "~/") if home not in ("", "/") else line


def _read_events(path: Path) -> list[TranscriptEvent] | None:
    """The events of any agent's session at `path`, read as the listing reads it (a store's
    session included); None when it cannot be read. Read as Claude Code's JSONL alone, a
    Codex rollout, a Gemini chat or an OpenCode session gave the judge no context at all
    (the eval's Codex quotes came without one)."""
    from learn.transcripts.files.sources import read_session
    from learn.transcripts.parser import parse_buffer

    try:
        buf, st = read_session(path)
    except OSError:
        return None
    return list(parse_buffer(buf, path=path, mtime=st.mtime).events)


class TranscriptContext:
    """A `QuoteContext` over the sessions' transcript files (read lazily, once each)."""

    def __init__(self, paths: Mapping[str, Path], *, redact: Callable[[str], str] | None = None,
                 projects: Mapping[str, str] | None = None) -> None:
        self.paths = dict(paths)
        self.redact = redact
        self.projects = dict(projects or {})
        self._loaded: dict[str, tuple[Sequence[TranscriptEvent], Sequence[Turn]] | None] = {}

    def _events(self, session_id: str) -> tuple[Sequence[TranscriptEvent], Sequence[Turn]] | None:
        if session_id not in self._loaded:
            from learn.detect.context import split_turns

            path = self.paths.get(session_id)
            events = _read_events(path) if path is not None else None
            self._loaded[session_id] = None if events is None else (events, split_turns(events))
        return self._loaded[session_id]

    def __call__(self, session_id: str, quote: str) -> str | None:
        from learn.detect.context import capture_window

        loaded = self._events(session_id)
        if loaded is None:
            return None
        events, turns = loaded
        found = _anchor_turn(events, turns, quote)
        if found is None:
            return None
        anchor, turn = found
        project = self.projects.get(session_id)
        try:
            window = capture_window(events, anchor, before=BEFORE_TURNS, after=AFTER_TURNS,
                                    preview_chars=PREVIEW_CHARS,
                                    paths=lambda line: _relative(line, project))
        except (LookupError, ValueError):
            return None
        parts = []
        if not is_whole_turn(turn, quote):
            # Redacted whole, then cut: a secret cut in half would no longer be
            # recognised as one.
            said = flatten(self._shown(_relative(turn, project)))
            parts.append(f'said in full: "{around(said, self._shown(_relative(quote, project)))}"')
        line = _relative(window_line(window), project)
        if line:
            parts.append(self._shown(line))
        return flatten("; ".join(parts), LINE_CHARS) if parts else None

    def _shown(self, text: str) -> str:
        return self.redact(text) if self.redact is not None else text
