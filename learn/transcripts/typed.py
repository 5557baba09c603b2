"""What the person typed in one user text: the one decision, in one place.

The session builder hands every user text it meets to `typed_text` and keeps
`.text` as a human turn when it is not empty. `.reason` names why text was
dropped or trimmed (an exclusion rule from `exclusions`, or a trimming rule of
this module), `.command` the slash command the turn invoked, if any.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from learn.transcripts.exclusions import strip_reminders, text_exclusion


@dataclass(frozen=True, slots=True)
class Typed:
    text: str  # the words the person typed; "" when none
    reason: str | None = None  # why text was dropped or trimmed
    command: str | None = None  # the slash command named, when the turn invoked one


def typed_text(
    raw: str,
    *,
    fingerprints: Sequence[str] = (),
    provider: str = "claude",
    assistant_texts: Sequence[str] = (),
) -> Typed:
    """The words the person typed in `raw`, and why anything else was dropped."""
    cleaned = strip_reminders(raw)
    reason = text_exclusion(cleaned, fingerprints)
    if reason is not None:
        return Typed("", reason)
    return Typed(cleaned.strip())
