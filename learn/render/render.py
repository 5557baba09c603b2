"""Render a session as plain text for the miner.

User turns the user actually typed go in whole and unfiltered: any truncation
there would quietly reintroduce the recall problem the old regex gate had, and
the chunk sent to the miner must contain every rendered user turn verbatim.

Assistant prose and thinking are dropped: they are the bulk of a transcript and
almost none of it is evidence about what the *user* wants. Tool calls are kept
as one short line, because a failure-then-pass is a fix. Successful tool output
is dropped: it is a file or a command's stdout, not a statement by anyone. When
it used to go in (600 chars per result) about a tenth of mined quotes were lines
lifted out of plan files and configs and attributed to the user.

Rendering produces *blocks*, one per timeline item, so chunking can cut on item
boundaries: a multi-line user turn is one block and is never split across two
model calls (hoocode cut on raw newlines and could split one).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from learn.redaction.redact import redact
from learn.render.session_values import SessionValues
from learn.render_version import RENDER_VERSION as RENDER_VERSION  # re-exported
from learn.transcripts.view.exclusions import is_learn_digest
from learn.transcripts.view.model import HumanTurn, Session, ToolCall, ToolFailure, reading_order
from learn.transcripts.view.replay import (
    is_replayed_turn,
)

# RENDER_VERSION (learn.render_version, bumped there) is part of the mining cache
# key and of every session index entry.

TOOL_SUMMARY_CHARS: Final = 200
# Long enough for the real error line under a banner (hoocode measured fix
# excerpts going from npm banners to the actual TS2339 once it had room).
TOOL_ERROR_CHARS: Final = 1500

# Line heads the chunker treats as item boundaries when it is given plain text.
USER_LABEL: Final = "USER"
TOOL_LABEL: Final = "TOOL: "
ERROR_LABEL: Final = "ERROR: "


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def is_machinery(text: str, fingerprints: Sequence[str] = ()) -> bool:
    """True for a turn the session view should already have dropped: our own
    digest, or a replayed slash-command body. Checked again here because the
    renderer is the last gate before the model, and fingerprints may be newer
    than the session view that was built."""
    if not text.strip() or is_learn_digest(text):
        return True
    return bool(fingerprints) and is_replayed_turn(text, fingerprints)


def user_turns(session: Session, fingerprints: Sequence[str] = ()) -> list[HumanTurn]:
    return [t for t in session.human_turns if not is_machinery(t.text, fingerprints)]


def _user_label(turn: HumanTurn, session: Session) -> str:
    if turn.origin == "denial":
        tool = next(
            (d.tool_name for d in session.denials if d.event_index == turn.event_index and d.tool_name),
            None,
        )
        return f"USER (rejecting {tool})" if tool else "USER (rejecting a tool call)"
    if turn.origin == "answer":
        return "USER (answering a question)"
    if turn.command:
        # The command is the request; the text is what the person gave it.
        return f"USER (running {turn.command} with)"
    return USER_LABEL


def project_relative(text: str, session: Session) -> str:
    """Paths under the session's project, written relative to it.

    The model learns nothing from `/home/alice/code/app/` repeated on every tool
    line, and the rendered chunk (the key of recorded answers and part of the
    cache's meaning) then does not depend on where the checkout lives. Only tool
    lines are rewritten: what the user typed stays verbatim.
    """
    root = (session.project or "").rstrip("/")
    if len(root) < 2:
        return text
    return text.replace(root + "/", "").replace(root, ".")


def render_item(item: HumanTurn | ToolCall | ToolFailure, session: Session,
                redact_text: Callable[[str], str] = redact) -> str:
    """One item's block; `redact_text` redacts its text (`render_blocks` passes the
    session's, learn.render.session_values)."""
    if isinstance(item, HumanTurn):
        # Verbatim: the quote check compares against the same redacted text.
        return f"{_user_label(item, session)}: {redact_text(item.text.strip())}"
    if isinstance(item, ToolCall):
        # One line: a heredoc in a command must not look like several items.
        summary = " ".join(redact_text(project_relative(item.summary, session)).split())
        return f"{TOOL_LABEL}{item.name}({_cut(summary, TOOL_SUMMARY_CHARS)})"
    # Redact before cutting, so a cut can never leave half a key unrecognised.
    excerpt = _cut(redact_text(project_relative(item.excerpt.strip(), session)), TOOL_ERROR_CHARS)
    # Continuation lines are indented so tool output can never forge a `USER:` head.
    return ERROR_LABEL + excerpt.replace("\n", "\n  ")


def render_blocks(session: Session, fingerprints: Sequence[str] = ()) -> list[str]:
    """One rendered block per kept item, in reading order: the active branch, with
    the typed turns from off it (a rewound branch, a queued or side question) in
    time order, so the miner sees every typed turn.

    Redacted as one session (learn.render.session_values): a value a rule caught in
    one item is out of every item, the bare token a tool error echoes after the
    `Bearer` that named it."""
    keep = {id(t) for t in user_turns(session, fingerprints)}
    items = [item for item in reading_order(session)
             if not isinstance(item, HumanTurn) or id(item) in keep]
    return SessionValues().together(
        lambda redact_text: [render_item(item, session, redact_text) for item in items])


def render_transcript(session: Session, fingerprints: Sequence[str] = ()) -> str:
    """The session as the miner sees it: `USER:`, `TOOL:` and `ERROR:` items, redacted."""
    return "\n".join(render_blocks(session, fingerprints))
