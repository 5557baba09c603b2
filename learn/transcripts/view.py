"""The session view: what one session looks like once the noise is gone.

This module only declares the shapes; `learn.transcripts.session.build_session`
fills them from a parsed `Transcript`. Everything downstream (render, detectors'
pipeline integration, `learn sessions`, `learn show`) reads these, never raw events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

Provider = Literal["claude", "codex"]

# Where a human turn came from. "typed" is a prompt the person wrote; "denial" is
# the reason they typed when rejecting a tool call (the text after "the user
# said:"); "answer" is a free-form AskUserQuestion answer; "queued" is a prompt
# they typed while the agent was busy (queued_command attachment / queue-operation).
HumanOrigin = Literal["typed", "denial", "answer", "queued"]


@dataclass(frozen=True, slots=True)
class HumanTurn:
    text: str
    origin: HumanOrigin
    at: datetime | None
    event_index: int
    uuid: str | None = None
    # The slash command the turn invoked (`/deploy`), its arguments being `text`.
    command: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    # One short line describing the call: the command for a shell tool, the path
    # for a file tool, else compact key=value pairs. Never the whole input.
    summary: str
    input: Mapping[str, Any]
    at: datetime | None
    event_index: int


@dataclass(frozen=True, slots=True)
class ToolFailure:
    tool_use_id: str
    tool_name: str | None
    excerpt: str
    at: datetime | None
    event_index: int


@dataclass(frozen=True, slots=True)
class Denial:
    tool_use_id: str
    tool_name: str | None
    kind: str  # "user-rejected" (a human) | "permission-rule" (a hook or guard)
    reason: str | None  # what the user typed, when they typed something
    at: datetime | None
    event_index: int


@dataclass(frozen=True, slots=True)
class Interrupt:
    at: datetime | None
    event_index: int


TimelineItem = HumanTurn | ToolCall | ToolFailure


@dataclass(frozen=True, slots=True)
class Session:
    id: str
    provider: Provider
    path: Path | None
    project: str | None  # the cwd the session ran in
    started_at: datetime | None
    last_activity: datetime | None  # newest timestamp on the active branch
    # Active branch only, in order: human turns, tool calls and tool failures
    # interleaved as they happened. render_transcript reads this.
    timeline: tuple[TimelineItem, ...]
    human_turns: tuple[HumanTurn, ...]
    tool_calls: tuple[ToolCall, ...]
    failures: tuple[ToolFailure, ...]
    denials: tuple[Denial, ...]
    interrupts: tuple[Interrupt, ...]
    turns: int  # user + assistant entries on the active branch
    size_bytes: int = 0
    skipped_lines: int = 0
    subagent_paths: tuple[Path, ...] = field(default=())
