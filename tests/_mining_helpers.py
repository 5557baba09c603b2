"""Builders for Session views used by the render and mining tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from learn.transcripts.view.model import (
    Denial,
    HumanTurn,
    Session,
    TimelineItem,
    ToolCall,
    ToolFailure,
)


def user(text: str, i: int = 0, origin: Any = "typed") -> HumanTurn:
    return HumanTurn(text=text, origin=origin, at=None, event_index=i)


def tool(name: str, summary: str, i: int = 0, **inp: Any) -> ToolCall:
    return ToolCall(id=f"t{i}", name=name, summary=summary, input=inp, at=None, event_index=i)


def fail(excerpt: str, i: int = 0, name: str = "Bash", *, call: int | None = None) -> ToolFailure:
    """A failure at `i` of the call made at `call` (`tool(..., call)`), else of a call at `i`."""
    return ToolFailure(tool_use_id=f"t{i if call is None else call}", tool_name=name,
                       excerpt=excerpt, at=None, event_index=i)


def make_session(
    items: Sequence[TimelineItem],
    *,
    sid: str = "s1",
    path: Path | None = None,
    denials: Sequence[Denial] = (),
) -> Session:
    return Session(
        id=sid,
        provider="claude",
        path=path,
        project="/proj",
        started_at=None,
        last_activity=None,
        timeline=tuple(items),
        human_turns=tuple(i for i in items if isinstance(i, HumanTurn)),
        tool_calls=tuple(i for i in items if isinstance(i, ToolCall)),
        failures=tuple(i for i in items if isinstance(i, ToolFailure)),
        denials=tuple(denials),
        interrupts=(),
        turns=len(items),
    )
