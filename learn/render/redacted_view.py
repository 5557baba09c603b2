"""A session view with every text redacted, for what a person shows others.

`learn show` prints what learn read, and its output gets pasted into bug reports and
chats; so it redacts by default, like everything learn sends or stores, and
`--reveal` shows the view as read. The items keep their identity across the
timeline and the evidence (a typed turn on the active branch is one object in
both), which `reading_order` and the renderer rely on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from learn.render.session_values import SessionValues, note_answers
from learn.transcripts.nesting import map_strings
from learn.transcripts.view.model import HumanTurn, Session, TimelineItem, ToolCall, ToolFailure

if TYPE_CHECKING:
    from learn.transcripts.models import TranscriptEvent


def _item(item: TimelineItem, inputs: bool, redact_text: Callable[[str], str]) -> TimelineItem:
    # An item with nothing to redact is kept as it is: copying each of a 6 MB session's
    # 2,860 items (a replace each), whose texts mostly hold no secret, was 2% of the
    # instructions of its `learn show` (callgrind: 1.911 G before, 1.870 G after).
    if isinstance(item, HumanTurn):
        text = redact_text(item.text)
        return item if text == item.text else replace(item, text=text)
    if isinstance(item, ToolCall):
        summary = redact_text(item.summary)
        if inputs:
            return replace(item, summary=summary, input=map_strings(item.input, redact_text))
        if summary == item.summary and not item.input:
            return item
        return replace(item, summary=summary, input={})
    assert isinstance(item, ToolFailure)
    excerpt = redact_text(item.excerpt)
    return item if excerpt == item.excerpt else replace(item, excerpt=excerpt)


def redact_session(session: Session, *, inputs: bool = True,
                   events: Sequence[TranscriptEvent] = ()) -> Session:
    """`session` with every turn, tool line, tool input, failure and denial reason redacted.

    `inputs=False`: tool inputs are dropped, not redacted, for output that prints none
    (`learn show`'s text: redacting them was half its redaction, ~0.05 s on a 3.5 MB
    session).

    Each distinct text is redacted once (`redactor`), and the session as one
    (learn.render.session_values): a value a rule caught in one text is out of all.
    `events`, the transcript the session was built from, when the caller has it: a
    password given in answer to the agent is then out of the texts that repeat it too
    (`note_answers`)."""
    values = SessionValues()
    if events:
        note_answers(values, session, events)
    return values.together(lambda redact_text: _redacted(session, inputs, redact_text))


def _redacted(session: Session, inputs: bool, redact_text: Callable[[str], str]) -> Session:
    done: dict[int, TimelineItem] = {}

    def once(item: TimelineItem) -> Any:
        key = id(item)
        if key not in done:
            done[key] = _item(item, inputs, redact_text)
        return done[key]

    return replace(
        session,
        timeline=tuple(once(i) for i in session.timeline),
        human_turns=tuple(once(t) for t in session.human_turns),
        tool_calls=tuple(once(c) for c in session.tool_calls),
        failures=tuple(once(f) for f in session.failures),
        denials=tuple(replace(d, reason=redact_text(d.reason) if d.reason else d.reason)
                      for d in session.denials),
    )
