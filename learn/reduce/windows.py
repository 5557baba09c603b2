"""What happened around a quote: the context window the judge reads.

"no, use the other one" is a durable rule or a one-off depending on what the
agent had just done, and "leave it" reads differently when the agent then
stopped. The judge is therefore shown, for a proposal's representative quote,
the seed's `capture_window` around the turn that holds it: the agent turn just
before (the trigger: its text and tool calls) and the turn that came after.

The transcript is re-read per session only when a shown proposal quotes it,
and the line is redacted like every other text sent to a model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from learn.models.items import flatten
from learn.textfold import fold

if TYPE_CHECKING:
    from learn.detect.context import ContextWindow, Turn, TurnRef
    from learn.transcripts.models import TranscriptEvent

# (session id, quote text) -> one line of context, or None when it cannot be had.
QuoteContext = Callable[[str, str], "str | None"]

BEFORE_TURNS = 1
AFTER_TURNS = 1
PREVIEW_CHARS = 160
MAX_DIGESTS = 3
LINE_CHARS = 400


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
    return flatten("; ".join(parts), LINE_CHARS)


def _fragments(quote: str) -> list[str]:
    return [f for f in (fold(x) for x in quote.replace("...", "…").split("…")) if f]


def find_anchor(events: Sequence[TranscriptEvent], turns: Sequence[Turn], quote: str) -> int | None:
    """The first event of the first user turn holding every fragment of `quote`, or None."""
    from learn.detect.context import turn_ref

    parts = _fragments(quote)
    if not parts:
        return None
    for turn in turns:
        if turn.role != "user":
            continue
        text = fold(turn_ref(events, turn, 100_000).preview)
        if all(p in text for p in parts):
            return turn.indices[0]
    return None


def _relative(line: str, project: str | None) -> str:
    """Paths shown relative to the project, else to ~: shorter for the model, and
    the same line wherever the checkout lives (recorded answers key on it)."""
    if project:
        line = line.replace(project.rstrip("/") + "/", "")
    home = str(Path.home())
    return line.replace(home + "/", "~/") if home not in ("", "/") else line


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
            from learn.detect.context import load_events, split_turns

            path = self.paths.get(session_id)
            try:
                events = load_events(path.read_bytes()) if path is not None else None
            except OSError:
                events = None
            self._loaded[session_id] = None if events is None else (events, split_turns(events))
        return self._loaded[session_id]

    def __call__(self, session_id: str, quote: str) -> str | None:
        from learn.detect.context import capture_window

        loaded = self._events(session_id)
        if loaded is None:
            return None
        events, turns = loaded
        anchor = find_anchor(events, turns, quote)
        if anchor is None:
            return None
        try:
            project = self.projects.get(session_id)
            window = capture_window(events, anchor, before=BEFORE_TURNS, after=AFTER_TURNS,
                                    preview_chars=PREVIEW_CHARS,
                                    paths=lambda line: _relative(line, project))
        except (LookupError, ValueError):
            return None
        line = _relative(window_line(window), project)
        if not line:
            return None
        return self.redact(line) if self.redact is not None else line
