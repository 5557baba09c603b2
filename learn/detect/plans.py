"""The two plan detectors: a plan the person declined with a reason typed in the
dialog (`exit_plan_rejection`), and a return to plan mode right after the agent
edited files (`plan_reentry`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from learn.detect.confidence import NONE, CandidateSignal
from learn.detect.emit import calibrated, emit
from learn.detect.signals import (
    PLAN_REVIEW,
    MiningSignal,
)
from learn.detect.spec import MiningSpec
from learn.detect.usertext import SessionIndex
from learn.detect.wording import has_approving_words, has_rejecting_words
from learn.transcripts.blocks import ToolUseBlock
from learn.transcripts.claude.literals import (
    DENIAL_KIND_USER_REJECTED,
    embedded_reason,
)
from learn.transcripts.models import (
    AssistantEvent,
    ModeEvent,
    TranscriptEvent,
    UserEvent,
)

# --------------------------------------------------------------- exit_plan_rejection


def detect_exit_plan_rejections(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
) -> Iterator[MiningSignal]:
    for i, event, block in index.results:
        if block.denial_kind != DENIAL_KIND_USER_REJECTED:
            continue
        use = index.tool(block.tool_use_id)
        if use is None or use.block.name not in spec.plan_tools:
            continue
        reason = index.clean(embedded_reason(block.content) or "")
        if not reason:
            continue
        # The shape is the gate: the person declined the plan and typed a
        # reason, in whatever language. Declining the dialog is also how some
        # clients hand back a plan the person approved ("this plan is solid
        # and ready"), so a reason that approves and rejects nothing (in any
        # language `wording` knows) drops to nothing; words never lift a score.
        signal = calibrated(spec.calibrated, "embedded_text", reason)
        if has_approving_words(reason) and not has_rejecting_words(reason):
            signal = CandidateSignal(NONE, (*signal.reasons, "approving_words"), signal.durable)
        yield emit(
            event,
            i,
            kind=PLAN_REVIEW,
            detector="exit_plan_rejection",
            text=reason,
            trigger_index=use.index,
            signal=signal,
            evidence={"tool": use.block.name, "tool_use_id": block.tool_use_id},
        )


# --------------------------------------------------------------- plan_reentry


def _edit_before(
    events: Sequence[TranscriptEvent], at: int, spec: MiningSpec
) -> tuple[int, str] | None:
    """The nearest edit-tool use in the `reentry_lookback` events before `at`."""
    for j in range(at - 1, max(-1, at - 1 - spec.reentry_lookback), -1):
        event = events[j]
        if isinstance(event, AssistantEvent):
            for block in event.blocks:
                if isinstance(block, ToolUseBlock) and block.name in spec.edit_tools:
                    return j, block.name
    return None


def _next_human(index: SessionIndex, start: int) -> int | None:
    for j in range(start, len(index.events)):
        if index.is_human(j):
            return j
    return None


def detect_plan_reentries(
    events: Sequence[TranscriptEvent], index: SessionIndex, spec: MiningSpec
) -> Iterator[MiningSignal]:
    # Going back into plan mode right after the agent edited files is the person
    # saying "stop, that was not the plan". Only a transition counts: Claude Code
    # repeats the mode on every entry while it holds, and a repeat is not a return.
    seen_users: set[str] = set()
    last_mode: str | None = None
    last_user_mode: str | None = None
    for i, event in enumerate(events):
        entered = False
        if isinstance(event, ModeEvent):
            entered = event.value == "plan" and last_mode != "plan"
            last_mode = event.value
            target = _next_human(index, i + 1) if entered else None
        elif isinstance(event, UserEvent) and event.permission_mode is not None:
            entered = event.permission_mode == "plan" and last_user_mode not in (None, "plan")
            last_user_mode = event.permission_mode
            target = i if entered and index.is_human(i) else None
        else:
            continue
        if not entered or target is None:
            continue
        edit = _edit_before(events, i, spec)
        if edit is None:
            continue
        user = events[target]
        assert isinstance(user, UserEvent)
        if user.meta.uuid in seen_users:
            continue
        seen_users.add(user.meta.uuid)
        yield emit(
            user,
            target,
            kind=PLAN_REVIEW,
            detector="plan_reentry",
            text=index.text(target),
            trigger_index=index.prev_assistant[target],
            signal=calibrated(spec.calibrated, "reentry_after_edit", index.text(target)),
            lower_bound=edit[0],
            evidence={"mode_index": i, "edit_tool": edit[1]},
        )
