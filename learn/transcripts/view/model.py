"""The session view: what one session looks like once the noise is gone.

It answers two questions, kept apart on purpose:
- evidence: what did the person type in this session? `Session.human_turns`
  holds every typed turn wherever it sits in the file (the active branch, a
  branch they rewound away from, before a compaction, a message queued while a
  tool ran, a `/btw` side question), the same text twice being one turn.
- context: what is the conversation? `Session.timeline` is the active branch
  only (see `branch`), for rendering and detectors.
`reading_order` puts the two together for the miner: the active branch with the
off-branch typed turns in time order, so every typed turn is rendered.

This module only declares the shapes; `learn.transcripts.view.session.build_session`
fills them from a parsed `Transcript`. Everything downstream (render, detectors'
pipeline integration, `learn sessions`, `learn show`) reads these, never raw events.

They are msgspec Structs, not dataclasses: making a frozen, slotted dataclass compiles
its methods from source at import (~4 M instructions, ~1 ms each, in every process that
reads a session); a Struct costs almost nothing. Copy one with msgspec.structs.replace
(`dataclasses.replace` fails on a Struct, and mypy does not say so).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import msgspec

from learn.transcripts.ids import Provider

# Where a human turn came from. "typed" is a prompt the person wrote; "denial" is
# the reason they typed when rejecting a tool call (the text after "the user
# said:"); "answer" is a free-form AskUserQuestion answer; "queued" is a prompt
# they typed while the agent was busy (queued_command attachment / queue-operation);
# "aside" is a `/btw` side question (its own agent-aside_question-*.jsonl file).
HumanOrigin = Literal["typed", "denial", "answer", "queued", "aside"]
HUMAN_ORIGINS: tuple[HumanOrigin, ...] = ("typed", "denial", "answer", "queued", "aside")

# Who started a session: a person at a CLI, IDE or app, or a program (the Agent
# SDK, `claude -p` / `codex exec` in a loop, a plugin's background sessions).
SessionOrigin = Literal["interactive", "programmatic"]


class HumanTurn(msgspec.Struct, frozen=True):
    text: str
    origin: HumanOrigin
    at: datetime | None
    event_index: int  # in its own file (an aside's index is into the aside file)
    uuid: str | None = None
    # The slash command the turn invoked (`/deploy`), its arguments being `text`.
    command: str | None = None
    # False for evidence outside the active branch: a rewound branch, a queued
    # message never folded into the chain, a side question.
    on_branch: bool = True
    # What the person wrote into a command or prompt body (its arguments, the words
    # around a replayed template, a spec prompt's input section): never itself a
    # template's skeleton, however alike two of their requests are.
    filled: bool = False


class ToolCall(msgspec.Struct, frozen=True):
    id: str
    name: str
    # One short line describing the call: the command for a shell tool, the path
    # for a file tool, else compact key=value pairs. Never the whole input.
    summary: str
    input: Mapping[str, Any]
    at: datetime | None
    event_index: int


class ToolFailure(msgspec.Struct, frozen=True):
    tool_use_id: str
    tool_name: str | None
    excerpt: str
    at: datetime | None
    event_index: int


class Denial(msgspec.Struct, frozen=True):
    tool_use_id: str
    tool_name: str | None
    kind: str  # "user-rejected" (a human) | "permission-rule" (a hook or guard)
    reason: str | None  # what the user typed, when they typed something
    at: datetime | None
    event_index: int


class Interrupt(msgspec.Struct, frozen=True):
    at: datetime | None
    event_index: int


TimelineItem = HumanTurn | ToolCall | ToolFailure


class Session(msgspec.Struct, frozen=True):
    id: str
    provider: Provider
    path: Path | None
    project: str | None  # the cwd the session ran in
    started_at: datetime | None
    last_activity: datetime | None  # newest timestamp on the active branch or of a typed turn
    # Context: the active branch only, in order: its human turns, tool calls and
    # tool failures interleaved as they happened.
    timeline: tuple[TimelineItem, ...]
    # Evidence: every typed turn in the session, in reading order (`on_branch`
    # says which are also in the timeline).
    human_turns: tuple[HumanTurn, ...]
    tool_calls: tuple[ToolCall, ...]
    failures: tuple[ToolFailure, ...]
    denials: tuple[Denial, ...]
    interrupts: tuple[Interrupt, ...]
    turns: int  # user + assistant entries on the active branch
    size_bytes: int = 0
    skipped_lines: int = 0
    # skipped_lines by reason (`Transcript.skipped`): "too_deep" and "inflate_limit"
    # are said in the listing, the others counted.
    skipped: Mapping[str, int] = msgspec.field(default_factory=dict)
    subagent_paths: tuple[Path, ...] = msgspec.field(default=())
    # Who started the session (learn.transcripts.view.origin): the client the file
    # names (Claude Code `entrypoint`, Codex `originator`/`source`), and the
    # judgement made across the sessions in scope with the evidence that decided it.
    entrypoint: str | None = None
    origin: SessionOrigin = "interactive"
    origin_evidence: tuple[str, ...] = msgspec.field(default=())
    # What the file itself says about a program having started it (`machine_signals`:
    # a prompt handed in through the queue, a command body saying a script runs it,
    # a generated opening prompt), read by the origin judgement.
    signals: tuple[str, ...] = msgspec.field(default=())


def reading_order(session: Session) -> tuple[TimelineItem, ...]:
    """The timeline with the off-branch typed turns merged in by time.

    The renderer reads this, so the miner sees every typed turn, and a turn
    typed on a rewound branch sits where it was typed. The timeline's own order
    is kept; an off-branch turn goes before the first item written after it.
    """
    extra = [t for t in session.human_turns if not t.on_branch]
    if not extra:
        return session.timeline
    out: list[TimelineItem] = []
    pending = list(extra)
    for item in session.timeline:
        while pending and _before(pending[0], item):
            out.append(pending.pop(0))
        out.append(item)
    out.extend(pending)
    return tuple(out)


def _before(turn: HumanTurn, item: TimelineItem) -> bool:
    if turn.at is not None and item.at is not None:
        return turn.at < item.at
    return turn.event_index < item.event_index
