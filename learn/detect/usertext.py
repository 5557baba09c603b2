"""What the detectors read of a session: the user texts as the session view reads them.

The detectors used to read each user event's raw text. On real transcripts that
text held `<ide_opened_file>` blocks (read as the reply to a denial), plan
hand-offs and pasted agent output (read as a plan re-entry's reason), none of
which the person typed. Every detector now reads `SessionIndex.text(i)`: the
message's text blocks through `learn.transcripts.view.typed.typed_blocks`, the same
decision the session view makes, so a signal never quotes words the view says
were not typed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from learn.detect.structural import is_scaffolding
from learn.transcripts.blocks import (
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from learn.transcripts.claude.literals import is_bare_interrupt
from learn.transcripts.models import (
    AssistantEvent,
    TranscriptEvent,
    UserEvent,
)
from learn.transcripts.view.typed import AssistantText, typed_blocks, typed_text


@dataclass(frozen=True, slots=True)
class ToolUse:
    index: int
    block: ToolUseBlock


def _texts(event: UserEvent) -> list[str]:
    texts = [b.text for b in event.blocks if isinstance(b, TextBlock)]
    if not texts and event.text and not any(isinstance(b, ToolResultBlock) for b in event.blocks):
        texts = [event.text]
    return texts


class SessionIndex:
    """What the detectors need, gathered in one pass per session.

    Seven detectors each walking every event cost 2.3x the parse on the 50 MB
    benchmark corpus; most events are assistant turns no detector reads, so the
    user events and tool results are listed once here and walked from there,
    and each user event's typed text is decided once.
    """

    def __init__(
        self,
        events: Sequence[TranscriptEvent],
        *,
        provider: str = "claude",
        fingerprints: Sequence[str] = (),
    ) -> None:
        self.events = events
        self.provider = provider
        self.fingerprints = fingerprints
        self.tool_uses: dict[str, ToolUse] = {}
        # prev_assistant[i]: index of the nearest assistant event strictly before i.
        self.prev_assistant: list[int | None] = []
        self.users: list[tuple[int, UserEvent]] = []
        self.results: list[tuple[int, UserEvent, ToolResultBlock]] = []
        self._typed: dict[int, str] = {}
        said = AssistantText()
        last: int | None = None
        for i, event in enumerate(events):
            self.prev_assistant.append(last)
            if isinstance(event, AssistantEvent):
                last = i
                for block in event.blocks:
                    if isinstance(block, ToolUseBlock):
                        self.tool_uses[block.id] = ToolUse(i, block)
                    elif isinstance(block, TextBlock) and not event.meta.is_sidechain:
                        said.add(block.text)
            elif isinstance(event, UserEvent):
                self.users.append((i, event))
                for block in event.blocks:
                    if isinstance(block, ToolResultBlock):
                        self.results.append((i, event, block))
                texts = _texts(event)
                if texts:
                    self._typed[i] = typed_blocks(
                        texts, fingerprints=fingerprints, provider=provider, assistant_texts=said
                    ).text

    def text(self, i: int) -> str:
        """What the person typed in the user event at `i` ("" for none)."""
        return self._typed.get(i, "")

    def clean(self, text: str) -> str:
        """`text` from a non-prompt slot (a denial reason, a pasted review) as typed."""
        return typed_text(text, fingerprints=self.fingerprints, provider=self.provider).text

    def is_human(self, i: int) -> bool:
        """The event at `i` carries words the person typed."""
        event = self.events[i]
        return (
            isinstance(event, UserEvent)
            and bool(self.text(i))
            and not is_bare_interrupt(event.text)
            and not is_scaffolding(event)
        )

    def tool(self, tool_use_id: str) -> ToolUse | None:
        return self.tool_uses.get(tool_use_id)

    def tool_name(self, tool_use_id: str) -> str | None:
        use = self.tool_uses.get(tool_use_id)
        return use.block.name if use is not None else None


def is_human_message(event: TranscriptEvent) -> bool:
    """A user turn with text a person typed (not a bare marker, not scaffolding,
    not only IDE context, reminders or a replayed body)."""
    return (
        isinstance(event, UserEvent)
        and not is_bare_interrupt(event.text)
        and not is_scaffolding(event)
        and bool(typed_blocks(_texts(event)).text)
    )
