"""The session view tests types exactly (`type(x) is T`), which holds only while no class
derives from the types it tests: these fail the day one does."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import learn
from learn.transcripts.blocks import ContentBlock
from learn.transcripts.details import QueuedCommand
from learn.transcripts.models import ModeEvent, SystemEvent, TranscriptEvent
from learn.transcripts.view.model import HumanTurn, ToolCall, ToolFailure
from learn.transcripts.view.session import _Builder

EXACT = (*get_args(TranscriptEvent), *get_args(ContentBlock), QueuedCommand, HumanTurn,
         ToolCall, ToolFailure)


def _bases(path: Path) -> Iterator[tuple[str, str]]:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                yield node.name, name


def test_no_class_derives_from_a_type_the_view_tests_exactly() -> None:
    names = {cls.__name__ for cls in EXACT}
    root = Path(learn.__file__).parent
    derived = [(str(path.relative_to(root)), cls, base)
               for path in sorted(root.rglob("*.py")) for cls, base in _bases(path)
               if base in names]
    assert derived == []
    assert {cls.__name__: cls.__subclasses__() for cls in EXACT if cls.__subclasses__()} == {}


def test_the_builder_reads_every_event_type_but_the_ones_the_view_never_reads() -> None:
    builder = _Builder({}, None, set())  # type: ignore[arg-type]
    never_read = {SystemEvent, ModeEvent}
    assert set(builder.handlers) | never_read == set(get_args(TranscriptEvent))
    assert not set(builder.handlers) & never_read

