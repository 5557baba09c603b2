"""The context of a session: which entries are the conversation the agent saw last.

A Claude Code file is a DAG, not a list. A rewind leaves the abandoned branch in
the file; a compaction starts a new root; and lines are appended late that point
back into the middle (a background tool's result, progress, a summary). The
active branch is the chain that ends at the last *conversation* entry — an
assistant message, or a user message that is more than tool results — not the
last line of the file: on real disks a late tool result whose parent was an
early message made everything after that point vanish (13 typed turns of one
session).

This answers "what is the conversation" (rendering, detectors). It never decides
what the person typed: `evidence` collects typed turns from every branch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import compress

from learn.transcripts.blocks import (
    TextBlock,
    ToolResultBlock,
)
from learn.transcripts.claude.literals import COMPACT_SUMMARY_PREFIX
from learn.transcripts.details import CompactBoundary
from learn.transcripts.models import (
    AssistantEvent,
    ModeEvent,
    OtherEvent,
    SystemEvent,
    TranscriptEvent,
    UserEvent,
)


def links(event: TranscriptEvent) -> tuple[str | None, str | None]:
    """(uuid, parent_uuid). `progress` and other untyped lines carry them in raw and
    sit inside the chain on 2.x builds; skipping them would break the walk."""
    kind = type(event)  # exact: no class derives from an event type
    if kind is ModeEvent:
        return None, None
    if kind is OtherEvent:
        uuid = event.raw.get("uuid")  # type: ignore[union-attr]
        parent = event.raw.get("parentUuid")  # type: ignore[union-attr]
        return (
            uuid if isinstance(uuid, str) and uuid else None,
            parent if isinstance(parent, str) and parent else None,
        )
    meta = event.meta  # type: ignore[union-attr]
    return meta.uuid or None, meta.parent_uuid or None


def _all_links(events: Sequence[TranscriptEvent]) -> tuple[list[str | None], list[str | None]]:
    """(uuids, parent uuids) of every event, `links` apart: user and assistant entries
    (most of a file) read inline, the rest through `links` (a call per event was a third
    of finding the branch). Two lists, not a pair per event: the index of uuids is then
    built in C (`active_branch`), and no pair is made or unpacked (callgrind: finding the
    branch of every bench session, spread and tree, took 0.95x the instructions)."""
    uuids: list[str | None] = []
    parents: list[str | None] = []
    uuid = uuids.append
    parent = parents.append
    for event in events:
        kind = type(event)
        if kind is UserEvent or kind is AssistantEvent:
            meta = event.meta  # type: ignore[union-attr]
            uuid(meta.uuid or None)
            parent(meta.parent_uuid or None)
        else:
            own, up = links(event)
            uuid(own)
            parent(up)
    return uuids, parents


def is_sidechain(event: TranscriptEvent) -> bool:
    kind = type(event)
    if kind is ModeEvent or kind is OtherEvent:
        return False
    return event.meta.is_sidechain  # type: ignore[union-attr]


def is_conversation(event: TranscriptEvent) -> bool:
    """An assistant message, or a user message that is not only tool results.

    A tool result is a user message on the wire, but a late one (an async tool,
    a background task) is appended wherever it finishes, so it cannot say where
    the conversation ended.
    """
    if is_sidechain(event):
        return False
    if isinstance(event, AssistantEvent):
        return True
    if isinstance(event, UserEvent):
        if any(isinstance(b, ToolResultBlock) for b in event.blocks):
            return any(isinstance(b, TextBlock) and b.text.strip() for b in event.blocks)
        return True
    return False


def _is_compaction_root(event: TranscriptEvent) -> bool:
    """A compaction's first line: a compact_boundary, or (1.0.x, which wrote no
    boundary) the summary message itself."""
    if isinstance(event, SystemEvent):
        return isinstance(event.detail, CompactBoundary) or event.subtype == "compact_boundary"
    if isinstance(event, UserEvent):
        return event.meta.is_compact_summary or event.text.lstrip().startswith(COMPACT_SUMMARY_PREFIX)
    return False


def _logical_parent(event: TranscriptEvent) -> str | None:
    if isinstance(event, SystemEvent) and isinstance(event.detail, CompactBoundary):
        return event.detail.logical_parent_uuid
    if isinstance(event, SystemEvent | OtherEvent):
        raw = getattr(event.detail, "raw", None) if isinstance(event, SystemEvent) else event.raw
        if isinstance(raw, Mapping):
            value = raw.get("logicalParentUuid")
            if isinstance(value, str) and value:
                return value
    return None


def active_branch(events: Sequence[TranscriptEvent], *, flat: bool = False) -> list[int]:
    """Indices of the entries on the active branch, in file order.

    Start at the last conversation entry (see `is_conversation`), walk
    parent_uuid back, then follow its own trailing children forward (the final
    tool result of a session that ended mid-tool is a child of it). A rewind
    appends a new branch that shares a parent with the abandoned one, so the
    abandoned turns are not reached. A compaction root continues through its
    logical_parent_uuid, or, when it has none (1.0.x clients), through the
    conversation entry before it in the file. A parent that is not in the file
    (a line the parser had to skip) falls back to the previous entry in file
    order rather than silently losing everything before it. Files with no links
    at all (legacy, and Codex, whose rollouts never branch) read flat.
    """
    if flat:  # read flat whatever its links say (none are read: a Codex rollout's raw lines)
        return list(range(len(events)))
    uuids, parents = _all_links(events)
    return list(compress(range(len(events)), branch_marks(events, uuids, parents)))


def branch_marks(
    events: Sequence[TranscriptEvent], uuids: Sequence[str | None],
    parents: Sequence[str | None],
) -> list[bool]:
    """Whether each of linked `events` is on the active branch (`active_branch`), their
    links read by the caller: each event's (uuid, parent uuid) as `links` gives them, in
    two lists (`_all_links`'s). A flag per event, not a set of indices: the branch in
    file order is then picked in C, and no set is built, sorted and probed again."""
    # The last entry of each uuid: dict() keeps the last index a key was given.
    by_uuid = dict(zip(uuids, range(len(uuids)), strict=True))
    by_uuid.pop(None, None)
    if not by_uuid or not any(parents):
        return [True] * len(events)

    start = _last(events, uuids, len(events), conversation=True)
    if start is None:
        start = _last(events, uuids, len(events), conversation=False)
    if start is None:
        start = max(by_uuid.values())

    # Each entry's parent's index, found in C: None when it names none or one not in
    # the file, and the step below then asks as the walk always did (callgrind: with the
    # flags, building the views of the spread and tree bench homes, 250 sessions each,
    # took 0.971x and 0.963x the instructions).
    up = list(map(by_uuid.get, parents))
    on = [False] * len(events)
    current: int | None = start
    while current is not None and not on[current]:
        on[current] = True
        nxt = up[current]
        if nxt is None:
            parent = parents[current] or _logical_parent(events[current])
            if parent is None:
                if not _is_compaction_root(events[current]):
                    break
                current = _last(events, uuids, current, conversation=True, skip=on)
                continue
            nxt = by_uuid.get(parent)
            if nxt is None:
                nxt = _last(events, uuids, current, conversation=False, skip=on)
        current = nxt
    for j in _trailing(events, uuids, parents, start):
        on[j] = True
    return on


def _last(
    events: Sequence[TranscriptEvent],
    uuids: Sequence[str | None],
    before: int,
    *,
    conversation: bool,
    skip: Sequence[bool] | None = None,
) -> int | None:
    """The last linked, non-sidechain entry before index `before` (a conversation one if
    asked), none of those `skip` flags."""
    for j in range(before - 1, -1, -1):
        if not uuids[j] or (skip is not None and skip[j]) or is_sidechain(events[j]):
            continue
        if conversation and not is_conversation(events[j]):
            continue
        return j
    return None


def _trailing(
    events: Sequence[TranscriptEvent], uuids: Sequence[str | None],
    parents: Sequence[str | None], start: int,
) -> list[int]:
    """The chain of last-written children below `start` (tool results, system lines)."""
    children: dict[str, int] = {}
    for j in range(start + 1, len(events)):
        parent = parents[j]
        if parent is not None and uuids[j] and not is_sidechain(events[j]):
            children[parent] = j  # the last one written wins
    out: list[int] = []
    uuid = uuids[start]
    while uuid is not None and uuid in children:
        j = children.pop(uuid)
        out.append(j)
        uuid = uuids[j]
    return out
