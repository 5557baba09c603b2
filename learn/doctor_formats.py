"""Doctor's look inside the newest Codex rollout: is there anything learn reads as typed?

Codex 0.171 stopped writing the record learn read as the person's prompt, and every
current Codex session was listed with `human 0` while doctor said "1 Codex sessions" and
all was well (audit of the real clients, 2026-12, D1). A rollout with replies and not
one typed turn is what a format learn does not know yet looks like: one parse of the
newest rollout (not of every session) says so, for the price of reading one file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from learn.transcripts.files.discover import SessionFile

# A rollout larger than this is not parsed by doctor (a second's read at most): the
# check is a hint, never worth a slow doctor.
_MAX_BYTES = 32 * 1024 * 1024


def unread_codex_prompts(files: Sequence[SessionFile]) -> str | None:
    """Why the newest Codex session looks unread (replies, no typed turn), or None."""
    codex = [f for f in files if f.provider == "codex" and f.size <= _MAX_BYTES]
    if not codex:
        return None
    newest = max(codex, key=lambda f: f.mtime)
    from learn.transcripts.models import AssistantEvent, UserEvent
    from learn.transcripts.parser import parse

    try:
        transcript = parse(newest.path)
    except (OSError, ValueError):
        return None
    replies = 0
    version: str | None = None
    for event in transcript.events:
        if isinstance(event, UserEvent) and event.prompt_source == "typed":
            return None
        if isinstance(event, AssistantEvent) and event.text and not event.meta.is_sidechain:
            replies += 1
            version = version or event.meta.cc_version
    if not replies:
        return None
    client = f"Codex {version}" if version else "Codex"
    return (f"the newest Codex session ({newest.session_id[:8]}, {client}) has {replies} "
            f"repl{'y' if replies == 1 else 'ies'} and no prompt learn can read")
