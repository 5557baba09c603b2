"""Entries a session's file holds that were written in another session: typed there.

Two ways a Claude Code file opens with someone else's conversation:

- `/branch` (`/fork`) writes the earlier turns into the new session's file, each
  entry keeping its uuid and time and naming its origin in `forkedFrom`
  (`{"sessionId": <earlier>, "messageUuid": <uuid>}`), read on every entry kind
  (learn.transcripts.models.EntryMeta.copied_from). Read only on assistant
  entries, a directive typed once before a fork counted in both sessions and
  reached the two-session threshold alone;
- an older `claude --resume` started the new file with a copy of the old one under
  the old `sessionId`, the new session's own entries following under its own id.

A turn or a tool run found in such an entry belongs to the session it was typed
or run in; this one's own are the rest. learn.transcripts.view.resume still
matches copies across the sessions a run reads (a client that rewrites ids).
"""

from __future__ import annotations

from collections.abc import Sequence

from learn.transcripts.models import AssistantEvent, Transcript, TranscriptEvent, UserEvent


def copied_entries(events: Sequence[TranscriptEvent]) -> set[int]:
    """Indices of the entries written in another session (module docstring)."""
    own = next((e.meta.session_id for e in reversed(events)
                if isinstance(e, UserEvent | AssistantEvent) and e.meta.copied_from is None
                and e.meta.session_id), None)
    out: set[int] = set()
    for i, event in enumerate(events):
        if not isinstance(event, UserEvent | AssistantEvent):
            continue
        meta = event.meta
        if meta.copied_from is not None or (own is not None and meta.session_id
                                            and meta.session_id != own and not meta.is_sidechain):
            out.add(i)
    return out


def own_events(transcript: Transcript) -> Sequence[TranscriptEvent]:
    """The transcript's entries without those written in another session (what the
    detectors read: a denial reason copied by a fork was typed once)."""
    events = transcript.events
    if transcript.provider != "claude":
        return events
    copied = copied_entries(events)
    return [e for i, e in enumerate(events) if i not in copied] if copied else events
