"""Who a session is: its id, its client, its project, read from its entries.

A Claude Code session is its file name; a Codex session is its `session_meta`
id (else the uuid in its file name). The client is the `entrypoint` (Claude
Code) or the `originator`/`source` (Codex); the project is the cwd.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from learn.transcripts.files.listing import claude_session_id, codex_name_id
from learn.transcripts.models import ModeEvent, OtherEvent, TranscriptEvent


def event_time(event: TranscriptEvent) -> datetime | None:
    """When the entry was written (None for the envelope-less mode and other events)."""
    kind = type(event)  # exact: no class derives from an event type
    if kind is ModeEvent or kind is OtherEvent:
        return None
    return event.meta.timestamp  # type: ignore[union-attr]


def _metas(events: Sequence[TranscriptEvent], indices: Sequence[int]) -> Iterator[Any]:
    for i in indices:
        event = events[i]
        kind = type(event)
        if kind is not ModeEvent and kind is not OtherEvent:
            yield event.meta  # type: ignore[union-attr]


def session_id_of(events: Sequence[TranscriptEvent], path: Path | None) -> str:
    """The session's id as its client names it (see the comment below)."""
    # A Claude Code session is its file name: a resumed file opens with lines
    # copied from the session it resumed, carrying that session's id.
    named = claude_session_id(path) if path is not None else None
    if named is not None:
        return named
    for event in events:
        if isinstance(event, ModeEvent):
            return event.session_id
        if isinstance(event, OtherEvent):
            # Codex: session_meta names the session even when nothing was said.
            meta_id = _codex_meta(event).get("id") or _codex_meta(event).get("session_id")
            if isinstance(meta_id, str) and meta_id:
                return meta_id
            continue
        if event.meta.session_id:
            return event.meta.session_id
    if path is not None:
        return codex_name_id(path) or path.stem
    return ""


def entrypoint_of(events: Sequence[TranscriptEvent]) -> str | None:
    """The client the file names: Claude Code's `entrypoint` ("cli", "sdk-cli",
    "claude-vscode", …) or Codex's `originator`/`source` ("codex_exec", …)."""
    for event in events:
        # Exact types, and the meta read once: this reads every entry of a file naming none.
        kind = type(event)
        if kind is ModeEvent or kind is OtherEvent:
            continue
        meta = event.meta  # type: ignore[union-attr]
        if meta.entrypoint and not meta.is_sidechain:
            return str(meta.entrypoint)
    return None


def _codex_meta(event: OtherEvent) -> Mapping[str, Any]:
    """The payload of a Codex session_meta line (wrapped, flattened or bare-era header)."""
    if event.type != "session_meta" or not isinstance(event.raw, Mapping):
        return {}
    payload = event.raw.get("payload")
    return payload if isinstance(payload, Mapping) else event.raw


def cwd_of(events: Sequence[TranscriptEvent], branch: Sequence[int]) -> str | None:
    """The cwd the session ran in: the active branch's first, else any entry's, else Codex's session_meta."""
    # A cwd holding a NUL names no folder of any system (files.heads reads none either).
    for meta in _metas(events, branch):
        if meta.cwd and "\x00" not in meta.cwd:
            return str(meta.cwd)
    for meta in _metas(events, range(len(events))):
        if meta.cwd and "\x00" not in meta.cwd:
            return str(meta.cwd)
    for event in events[:1]:
        if isinstance(event, OtherEvent):
            cwd = _codex_meta(event).get("cwd")
            if isinstance(cwd, str) and cwd and "\x00" not in cwd:
                return cwd
    return None
