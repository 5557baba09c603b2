"""MiningSpec: the whole declarative policy `mine()` runs, as plain frozen values.

Everything that decides what counts (which detectors, which tools anchor a plan
re-entry, which denials are skipped, the scoring stages) lives here rather than
inside the detectors, so a caller can change the policy without touching the
code and `mining_spec_to_json` can record exactly which policy produced a result.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from learn.detect.confidence import (
    CALIBRATED_SPEC,
    USER_MESSAGE_SPEC,
    ConfidenceSpec,
    confidence_spec_to_json,
)

# Listed in the order detectors run in, and so the order `mine()` yields signals in.
DetectorName = Literal[
    "transcript_message",
    "exit_plan_rejection",
    "plan_reentry",
    "denial",
    "interrupt",
    "review_comment",
    "ask_user_question",
]
DETECTOR_ORDER: tuple[DetectorName, ...] = get_args(DetectorName)
ALL_DETECTORS: frozenset[DetectorName] = frozenset(DETECTOR_ORDER)

REENTRY_LOOKBACK = 40

Provenance = Literal["typed", "surfaced", "claude"]
PROVENANCES: tuple[Provenance, ...] = get_args(Provenance)

# Tool-name sets. Codex spells its edit tool apply_patch; Claude Code has had
# both ExitPlanMode and ExitSpecMode for the plan-approval tool.
_TOOL_SETS: dict[str, tuple[str, ...]] = {
    "EDIT_TOOLS": ("Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"),
    "PLAN_TOOLS": ("ExitPlanMode", "ExitSpecMode"),
    "DENIAL_EXCLUDED_TOOLS": ("ExitPlanMode", "ExitSpecMode", "AskUserQuestion"),
    "SUBAGENT_TOOLS": ("Agent", "Task"),
}


def expand_tool_names(names: Iterable[str]) -> frozenset[str]:
    """The names plus their MCP-free lowercase spellings (Codex lowercases tool names)."""
    out: set[str] = set()
    for name in names:
        out.add(name)
        out.add(name.lower())
    return frozenset(out)


EDIT_TOOLS = expand_tool_names(_TOOL_SETS["EDIT_TOOLS"])
PLAN_TOOLS = expand_tool_names(_TOOL_SETS["PLAN_TOOLS"])
DENIAL_EXCLUDED_TOOLS = expand_tool_names(_TOOL_SETS["DENIAL_EXCLUDED_TOOLS"])
SUBAGENT_TOOLS = expand_tool_names(_TOOL_SETS["SUBAGENT_TOOLS"])


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """A single inline review comment parsed from a code-review message."""

    file: str | None
    line_start: int | None
    line_end: int | None
    comment: str


@dataclass(frozen=True, slots=True)
class RegexReviewFormat:
    """A review format recognised by one regular expression.

    Every match is one comment; the groups name where the file, the line range
    and the comment text are. Several comment groups are joined with `join`.
    """

    name: str
    pattern: str
    comment_groups: tuple[str | int, ...]
    file_group: str | int | None = None
    line_start_group: str | int | None = None
    line_end_group: str | int | None = None
    join: str = " "
    multiline: bool = True
    ignore_case: bool = False

    def compile(self) -> re.Pattern[str]:
        flags = (re.MULTILINE if self.multiline else 0) | (re.IGNORECASE if self.ignore_case else 0)
        return re.compile(self.pattern, flags)


@dataclass(frozen=True, slots=True)
class CallableReviewFormat:
    """A review format whose matches are turned into comments by Python code.

    `extract` gets each match and returns a comment, or None to skip the match.
    """

    name: str
    pattern: str
    extract: Callable[[re.Match[str]], ReviewComment | None]
    multiline: bool = True
    ignore_case: bool = False

    def compile(self) -> re.Pattern[str]:
        flags = (re.MULTILINE if self.multiline else 0) | (re.IGNORECASE if self.ignore_case else 0)
        return re.compile(self.pattern, flags)


ReviewFormat = RegexReviewFormat | CallableReviewFormat


@dataclass(frozen=True, slots=True)
class ReviewSpec:
    """Which review formats to recognise, and on which surfaces.

    With no formats the review_comment detector finds nothing: there is no
    universal review syntax, and guessing one turns every numbered list the
    agent prints into "review comments".
    """

    formats: tuple[ReviewFormat, ...] = ()
    surfaces: frozenset[Provenance] = frozenset({"typed", "surfaced"})


@dataclass(frozen=True, slots=True)
class ProvenanceSpec:
    """How to tell who wrote a piece of text.

    typed: the person, in the prompt box. surfaced: a tool on the main chain put
    it in front of the person (a review tool's output they chose to paste or
    run). claude: a subagent or a sidechain wrote it; the person never saw it.
    """

    subagent_tools: frozenset[str] = SUBAGENT_TOOLS


@dataclass(frozen=True, slots=True)
class MiningSpec:
    """The full declarative mining policy `mine()` interprets."""

    detectors: frozenset[DetectorName] = ALL_DETECTORS
    user_message: ConfidenceSpec = USER_MESSAGE_SPEC
    calibrated: ConfidenceSpec = CALIBRATED_SPEC
    provenance: ProvenanceSpec = field(default_factory=ProvenanceSpec)
    review: ReviewSpec = field(default_factory=ReviewSpec)
    reentry_lookback: int = REENTRY_LOOKBACK
    edit_tools: frozenset[str] = EDIT_TOOLS
    plan_tools: frozenset[str] = PLAN_TOOLS
    denial_excluded_tools: frozenset[str] = DENIAL_EXCLUDED_TOOLS

    def __post_init__(self) -> None:
        unknown = set(self.detectors) - ALL_DETECTORS
        if unknown:
            raise ValueError(f"unknown detectors: {sorted(unknown)}; known: {list(DETECTOR_ORDER)}")
        if self.reentry_lookback < 0:
            raise ValueError("reentry_lookback must be >= 0")
        for fmt in self.review.formats:
            try:
                fmt.compile()
            except re.error as exc:
                # Fail when the spec is built, not halfway through a corpus.
                raise ValueError(f"review format {fmt.name!r}: bad pattern: {exc}") from exc


def _review_format_to_json(fmt: ReviewFormat) -> dict[str, Any]:
    if isinstance(fmt, RegexReviewFormat):
        return {
            "type": "regex",
            "name": fmt.name,
            "pattern": fmt.pattern,
            "comment_groups": list(fmt.comment_groups),
            "file_group": fmt.file_group,
            "line_start_group": fmt.line_start_group,
            "line_end_group": fmt.line_end_group,
            "join": fmt.join,
            "multiline": fmt.multiline,
            "ignore_case": fmt.ignore_case,
        }
    # The extractor is code; only its identity can be recorded.
    return {
        "type": "callable",
        "name": fmt.name,
        "pattern": fmt.pattern,
        "extract": getattr(fmt.extract, "__qualname__", repr(fmt.extract)),
        "multiline": fmt.multiline,
        "ignore_case": fmt.ignore_case,
    }


def mining_spec_to_json(spec: MiningSpec) -> dict[str, Any]:
    """A JSON-ready description of `spec`; sorted sets, so equal specs serialize equally."""
    return {
        "detectors": [name for name in DETECTOR_ORDER if name in spec.detectors],
        "user_message": confidence_spec_to_json(spec.user_message),
        "calibrated": confidence_spec_to_json(spec.calibrated),
        "provenance": {"subagent_tools": sorted(spec.provenance.subagent_tools)},
        "review": {
            "formats": [_review_format_to_json(f) for f in spec.review.formats],
            "surfaces": [p for p in PROVENANCES if p in spec.review.surfaces],
        },
        "reentry_lookback": spec.reentry_lookback,
        "edit_tools": sorted(spec.edit_tools),
        "plan_tools": sorted(spec.plan_tools),
        "denial_excluded_tools": sorted(spec.denial_excluded_tools),
    }
