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

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
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


def _turn_text(turn: TurnRef, shown: Callable[[TurnRef], str] | None = None) -> str:
    """A turn in one short line: its words (`shown`, when the caller has them cleaned: else
    the preview) cut to PREVIEW_CHARS, and its first tool lines."""
    digests = "; ".join(turn.tool_digests[:MAX_DIGESTS])
    if shown is not None:
        preview = shown(turn)
    else:
        preview = turn.preview
        for prefix in (f"{turn.role}:", "assistant:", "user:"):
            if preview.startswith(prefix):
                preview = preview[len(prefix):]
                break
    text = flatten(preview, PREVIEW_CHARS)
    if digests:
        return f"{text} [{digests}]" if text else f"[{digests}]"
    return text


def window_line(window: ContextWindow, shown: Callable[[TurnRef], str] | None = None) -> str:
    """"agent before: …; after (user|agent): …" for one window ('' when it has neither)."""
    parts = []
    before = _turn_text(window.trigger, shown) if window.trigger is not None else ""
    if before:
        parts.append(f"agent before: {before}")
    if window.after:
        nxt = window.after[0]
        after = _turn_text(nxt, shown)
        if after:
            who = "agent" if nxt.role == "assistant" else "user"
            parts.append(f"{who} after: {after}")
    return flatten("; ".join(parts), WINDOW_CHARS)


def _fragments(quote: str) -> list[str]:
    return [f for f in (fold(x) for x in quote.replace("...", "…").split("…")) if f]


def find_anchor(events: Sequence[TranscriptEvent], turns: Sequence[Turn], quote: str) -> int | None:
    """The first event of the first user turn holding every fragment of `quote`, or None."""
    from learn.detect.context import turn_ref

    parts = _fragments(quote)
    if not parts:
        return None
    for turn in turns:
        if turn.role == "user" and all(
                p in fold(turn_ref(events, turn, 100_000).preview) for p in parts):
            return turn.indices[0]
    return None


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


# A preview long enough that capture_window cuts nothing: a line is cleaned (redacted)
# whole and cut only then (`_Session.words`, `window_line`).
_UNCUT = 1_000_000


@dataclass(frozen=True, slots=True)
class _Session:
    """One session as the judge's context reads it: its events and turns, the person's
    words as the session view has them by entry (what mining reads: without IDE context,
    pasted agent output, a password given in answer to the agent), and `clean`, which
    redacts a text by every rule and takes out every value caught anywhere in the
    session (learn.render.session_values). The raw events once went out with a shape
    redaction run after the cut: a password typed in answer, a token the agent echoed
    later, an IDE selection, and a key cut in half reached the judge (audit 60)."""

    events: Sequence[TranscriptEvent]
    turns: Sequence[Turn]
    typed: Mapping[str, str]
    clean: Callable[[str], str]

    def said(self, indices: Sequence[int]) -> list[str]:
        """The person's words in these entries, as the view has them."""
        out = []
        for i in indices:
            meta = getattr(self.events[i], "meta", None)
            for uuid in (getattr(meta, "copied_uuid", None), getattr(meta, "uuid", None)):
                if uuid and uuid in self.typed:
                    out.append(self.typed[uuid])
                    break
        return out

    def words(self, turn: TurnRef) -> str:
        """A turn's words, uncut: the agent's text, or the person's as the view has them
        (nothing of theirs the view leaves out)."""
        if turn.role == "user":
            uuids = {ref.event_uuid for ref in turn.refs}
            return " ".join(t for u, t in self.typed.items() if u in uuids)
        return turn.preview.removeprefix(f"{turn.role}:").strip()


def _read_session(path: Path) -> _Session | None:
    """Any agent's session at `path`, read as the listing reads it (a store's session
    included); None when it cannot be read. Read as Claude Code's JSONL alone, a Codex
    rollout, a Gemini chat or an OpenCode session gave the judge no context at all."""
    from learn.detect.context import split_turns
    from learn.render.session_values import SessionValues, note_answers
    from learn.transcripts.files.sources import read_session
    from learn.transcripts.parser import parse_buffer
    from learn.transcripts.view.session import build_session

    try:
        buf, st = read_session(path)
    except OSError:
        return None
    transcript = parse_buffer(buf, path=path, mtime=st.mtime)
    events = list(transcript.events)
    view = build_session(transcript, detail=False)
    values = SessionValues()
    note_answers(values, view, events)
    for text in _texts(events):  # every value a rule catches anywhere, known to `clean`
        values.first(text)
    typed: dict[str, str] = {}
    for turn in view.human_turns:
        if turn.uuid:
            typed[turn.uuid] = f"{typed[turn.uuid]} {turn.text}" if turn.uuid in typed else turn.text
    return _Session(events, split_turns(events), typed, values.clean)


def _texts(events: Sequence[TranscriptEvent]) -> Iterator[str]:
    """Every text of the session's entries: what they say, tool inputs and results."""
    import json

    from learn.transcripts.blocks import TextBlock, ToolResultBlock, ToolUseBlock

    for event in events:
        text = getattr(event, "text", None)
        if isinstance(text, str) and text:
            yield text
        for block in getattr(event, "blocks", ()):
            if type(block) is TextBlock and block.text:
                yield block.text
            elif type(block) is ToolResultBlock and isinstance(block.content, str):
                yield block.content
            elif type(block) is ToolUseBlock and block.input:
                yield json.dumps(block.input, ensure_ascii=False, default=str)


class TranscriptContext:
    """A `QuoteContext` over the sessions' transcript files (read lazily, once each)."""

    def __init__(self, paths: Mapping[str, Path], *, redact: Callable[[str], str] | None = None,
                 projects: Mapping[str, str] | None = None) -> None:
        self.paths = dict(paths)
        self.redact = redact
        self.projects = dict(projects or {})
        self._loaded: dict[str, _Session | None] = {}

    def _session(self, session_id: str) -> _Session | None:
        if session_id not in self._loaded:
            path = self.paths.get(session_id)
            self._loaded[session_id] = _read_session(path) if path is not None else None
        return self._loaded[session_id]

    def __call__(self, session_id: str, quote: str) -> str | None:
        from learn.detect.context import capture_window

        session = self._session(session_id)
        if session is None:
            return None
        anchor = find_anchor(session.events, session.turns, quote)
        if anchor is None:
            return None
        project = self.projects.get(session_id)

        def clean(text: str) -> str:
            return self._shown(session.clean(_relative(text, project)))

        try:
            # Tool lines cleaned before capture_window cuts them, the turns' words uncut
            # there and cleaned whole before `window_line` cuts them: a secret cut in half
            # is no longer recognised as one.
            window = capture_window(session.events, anchor, before=BEFORE_TURNS,
                                    after=AFTER_TURNS, preview_chars=_UNCUT, paths=clean)
        except (LookupError, ValueError):
            return None
        parts = []
        # The person's message as the view has it: the one holding every fragment of the
        # quote (messages sent one after another are one turn, and the next one may be
        # about something else), none when the view holds no such words.
        fragments = _fragments(quote)
        anchor_turn = next((t for t in session.turns if anchor in t.indices), None)
        said = next((t for t in session.said(anchor_turn.indices if anchor_turn else ())
                     if all(f in fold(t) for f in fragments)), None)
        if said is not None and not is_whole_turn(said, quote):
            # Cleaned whole, then cut: a secret cut in half would no longer be one.
            parts.append(f'said in full: "{around(flatten(clean(said)), clean(quote))}"')
        line = window_line(window, lambda turn: clean(session.words(turn)))
        if line:
            parts.append(line)
        return flatten("; ".join(parts), LINE_CHARS) if parts else None

    def _shown(self, text: str) -> str:
        return self.redact(text) if self.redact is not None else text
